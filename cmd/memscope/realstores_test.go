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

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/sharedtest"
)

// realStoreCases are the real stores of registered formats, named by their
// case folder (the registry finds the store inside).
func realStoreCases(t *testing.T) []string {
	var out []string
	for _, c := range sharedtest.Cases(t, "") {
		if _, err := stores.Resolve(c); err == nil {
			out = append(out, c)
		}
	}
	if len(out) < 13 {
		t.Fatalf("only %d real stores open; every hippo2, lightrag, nanographrag, graphrag and mem0 history case should", len(out))
	}
	return out
}

// On every untouched real store verify finds no error (upstream behaviour
// is never one), and the CLI's text, its --json and the inspector count
// the same findings of each severity.
func TestRealStoresOneCount(t *testing.T) {
	ctx := context.Background()
	for _, c := range realStoreCases(t) {
		name := filepath.Base(c)
		var out, errb bytes.Buffer
		code := run(ctx, []string{"verify", "--json", c}, &out, &errb)
		var doc struct {
			Findings []finding.Finding `json:"findings"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Errorf("%s: verify --json exit %d: %v; stderr %s", name, code, err, errb.String())
			continue
		}
		e, w, i := finding.Count(doc.Findings)
		if code != exitOK || e != 0 {
			t.Errorf("%s: verify exit %d with %d error(s) on an untouched real store: %v", name, code, e, errorsOf(doc.Findings))
		}
		var text bytes.Buffer
		run(ctx, []string{"verify", c}, &text, &errb)
		if want := []byte(resultLine(e, w)); !bytes.Contains(text.Bytes(), want) {
			t.Errorf("%s: text output lacks %q", name, want)
		}
		src, err := openNativeInspector(ctx, c, "", nativeQueries{}, evidenceFlags{}, certFlags{}, true)
		if err != nil {
			t.Errorf("%s: inspector: %v", name, err)
			continue
		}
		ie, iw, ii := finding.Count(src.Findings())
		if ie != e || iw != w || ii != i {
			t.Errorf("%s: inspector counts %d/%d/%d errors/warnings/info, verify --json %d/%d/%d", name, ie, iw, ii, e, w, i)
		}
	}
}

func resultLine(errs, warns int) string {
	return fmt.Sprintf("result: %d error(s), %d warning(s)", errs, warns)
}

// A copy of a real LightRAG store with one planted no-source edge that
// pulls another entity's chunks into a query's top-k: replay exits 1 on
// the copy (the untouched store: 0), and the inspector's findings for the
// same replay hold the same error.
func TestPlantedNoSourceEdgeFailsReplay(t *testing.T) {
	src := filepath.Join(sharedtest.Case(t, "lightrag-lennyhub"), "rag_storage")
	dir := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "graph_chunk_entity_relation.graphml" {
			// An edge as networkx writes it, with a weight and no
			// source_id: the two entities share no chunk.
			key := regexp.MustCompile(`<key id="(d\d+)" for="edge" attr.name="weight"`).FindSubmatch(b)
			if key == nil {
				t.Fatal("no edge weight key in the real store's GraphML")
			}
			edge := fmt.Sprintf("<edge source=\"Kim Malone Scott\" target=\"Coaching\">\n      <data key=%q>40.0</data>\n    </edge>\n  </graph>", key[1])
			b = bytes.Replace(b, []byte("</graph>"), []byte(edge), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	queries := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(queries, []byte(`{"id": "q-kim", "k": 2, "reset": {"Kim Malone Scott": 1.0}, "text": "Who is Kim Malone Scott?"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"replay", src, "--queries", queries}, &out, &errb); code != exitOK {
		t.Fatalf("untouched store: replay exit %d: %s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run(ctx, []string{"replay", dir, "--queries", queries}, &out, &errb); code != exitFindings || !strings.Contains(out.String(), "DIVERGE") {
		t.Fatalf("planted copy: replay exit %d, want 1 with the row diverging:\n%s%s", code, out.String(), errb.String())
	}
	src2, err := openNativeInspector(ctx, dir, "", nativeQueries{file: queries}, evidenceFlags{}, certFlags{}, true)
	if err != nil {
		t.Fatal(err)
	}
	var fs []finding.Finding
	for p := range src2.Verify(ctx) {
		if p.Finished {
			fs = p.Findings
		}
	}
	if e, _, _ := finding.Count(fs); e == 0 {
		t.Errorf("inspector finds no error in the replay of the planted copy: %v", fs)
	}
}

func errorsOf(fs []finding.Finding) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.Severity == finding.SevError {
			out = append(out, f)
		}
	}
	return out
}
