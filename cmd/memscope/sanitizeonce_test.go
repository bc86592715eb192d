package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	found := false
	for _, f := range jsonFindings(t, out.Bytes()) {
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
	// kv_store_doc_status.json's chunks_list names chunks the store lacks:
	// findings of the same code, which the text's group would show first.
	_, dir := plantLightRAGEdge(t, "source_id", "chunk-x\ty\\z", "kv_store_doc_status.json")
	var out, errb bytes.Buffer
	run(context.Background(), []string{"verify", dir}, &out, &errb)
	want := `source_id names chunk "chunk-x\ty\\z", which is not in`
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), `\\t`) {
		t.Errorf("verify's text does not quote the chunk id escaped once (want %s):\n%s%s", want, out.String(), errb.String())
	}
	out.Reset()
	run(context.Background(), []string{"verify", "--json", dir}, &out, &errb)
	found := false
	for _, f := range jsonFindings(t, out.Bytes()) {
		found = found || strings.Contains(f.Message, want)
	}
	if !found {
		t.Errorf("verify --json: no finding quotes the chunk id escaped once (want %s):\n%s", want, out.String())
	}
}

// jsonFindings reads the findings of verify --json's answer.
func jsonFindings(t *testing.T, out []byte) []struct{ Code, Subject, Message string } {
	t.Helper()
	var doc struct {
		Findings []struct{ Code, Subject, Message string }
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	return doc.Findings
}
