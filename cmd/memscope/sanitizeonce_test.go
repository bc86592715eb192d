package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// TestFindingsSanitisedOnce: an escape sequence quoted in a finding shows
// as \e once in verify's text and JSON, as docs/SANITIZE.md writes it,
// never as \\e (a literal backslash and e), which a second pass made of it.
func TestFindingsSanitisedOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "memory.jsonl")
	line := `{"type":"entity","name":"Evil","entityType":"t","observations":["pay \u001b[2J now"]}` + "\n"
	if err := os.WriteFile(file, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"verify", file}, &out, &errb)
	text := out.String()
	if !strings.Contains(text, `pay \e[2J now`) || strings.Contains(text, `\\e`) {
		t.Errorf("verify's text does not show the escape once as \\e:\n%s", text)
	}
	out.Reset()
	run(context.Background(), []string{"verify", "--json", file}, &out, &errb)
	var doc struct {
		Findings []struct{ Code, Subject, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out.String())
	}
	found := false
	for _, f := range doc.Findings {
		if f.Code == "TEXT_CONTROL_CHARS" {
			found = strings.HasSuffix(f.Message, `pay \e[2J now`)
		}
	}
	if !found {
		t.Errorf("verify --json: no TEXT_CONTROL_CHARS whose message ends with the escape shown once:\n%s", out.String())
	}
}

// A store reader's finding that quotes evidence (a LightRAG edge's
// source_id naming a chunk the store lacks, in a copy of a real store)
// shows the quoted text escaped once: a TAB as \t and a backslash as \\,
// not Go's %q escapes escaped again (\\t, \\\\).
func TestReaderQuotesSanitisedOnce(t *testing.T) {
	src := filepath.Join(sharedtest.Case(t, "lightrag-lennyhub"), "rag_storage")
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() == "kv_store_doc_status.json" {
			// Its chunks_list names chunks the store lacks: findings of
			// the same code that the text's group would show first.
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "graph_chunk_entity_relation.graphml" {
			source := regexp.MustCompile(`<key id="(d\d+)" for="edge" attr.name="source_id"`).FindSubmatch(b)
			if source == nil {
				t.Fatal("no edge source_id key in the real store's GraphML")
			}
			edge := fmt.Sprintf("<edge source=\"Kim Malone Scott\" target=\"Coaching\">\n      <data key=%q>chunk-x\ty\\z</data>\n    </edge>\n  </graph>", source[1])
			b = bytes.Replace(b, []byte("</graph>"), []byte(edge), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	run(context.Background(), []string{"verify", dir}, &out, &errb)
	want := `source_id names chunk "chunk-x\ty\\z", which is not in`
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), `\\t`) {
		t.Errorf("verify's text does not quote the chunk id escaped once (want %s):\n%s%s", want, out.String(), errb.String())
	}
	out.Reset()
	run(context.Background(), []string{"verify", "--json", dir}, &out, &errb)
	var doc struct {
		Findings []struct{ Code, Subject, Message string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out.String())
	}
	found := false
	for _, f := range doc.Findings {
		found = found || strings.Contains(f.Message, want)
	}
	if !found {
		t.Errorf("verify --json: no finding quotes the chunk id escaped once (want %s):\n%s", want, out.String())
	}
}
