package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/refused"
	"github.com/memscope/memscope/internal/sharedtest"
)

// realStoreCases are the real stores of registered formats, named by their
// case folder (the registry finds the store inside).
func realStoreCases(t *testing.T) []string {
	var out []string
	for _, c := range sharedtest.Cases(t, "") {
		// Formats memscope recognises only to refuse them (LangGraph,
		// MemGPT, Letta) are the refusal tests' business.
		if f, err := stores.Resolve(c); err == nil && f.Format != refused.Format {
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
		html := filepath.Join(t.TempDir(), "r.html")
		if code := run(ctx, []string{"report", c, "--out", html, "--date", "none"}, &text, &errb); code != exitOK {
			t.Errorf("%s: report exit %d: %s", name, code, errb.String())
			continue
		}
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"UNSIGNED", fmt.Sprintf(`<span class="v">%d</span><span class="l">error findings`, e), fmt.Sprintf(`<span class="v">%d</span><span class="l">warnings`, w), fmt.Sprintf(`<span class="v">%d</span><span class="l">info`, i)} {
			if !bytes.Contains(page, []byte(want)) {
				t.Errorf("%s: report lacks %q", name, want)
			}
		}
	}
}

func resultLine(errs, warns int) string {
	return fmt.Sprintf("result: %d error(s), %d warning(s)", errs, warns)
}

// kimQueries writes, in a new file, one query of lightrag-lennyhub in the
// importer's queries format: its top 2 from Kim Malone Scott.
func kimQueries(t *testing.T) string {
	t.Helper()
	q := filepath.Join(t.TempDir(), "q.jsonl")
	if err := os.WriteFile(q, []byte(`{"id": "q-kim", "k": 2, "reset": {"Kim Malone Scott": 1.0}, "text": "Who is Kim Malone Scott?"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return q
}

// copyLennyhub copies the real LightRAG store lightrag-lennyhub (its
// rag_storage, less the files named in skip) into a new directory, each
// file through edit (its name and bytes in, the bytes to write out). It
// returns the original and the copy.
func copyLennyhub(t *testing.T, edit func(name string, b []byte) []byte, skip ...string) (src, dir string) {
	t.Helper()
	src = filepath.Join(sharedtest.Case(t, "lightrag-lennyhub"), "rag_storage")
	dir = t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if slices.Contains(skip, e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), edit(e.Name(), b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src, dir
}

// plantLightRAGEdge copies lightrag-lennyhub (copyLennyhub) with one more
// edge, Kim Malone Scott - Coaching, whose only data is the edge attribute
// attr set to value, as networkx writes an edge.
func plantLightRAGEdge(t *testing.T, attr, value string, skip ...string) (src, dir string) {
	t.Helper()
	return copyLennyhub(t, func(name string, b []byte) []byte {
		if name != "graph_chunk_entity_relation.graphml" {
			return b
		}
		key := regexp.MustCompile(`<key id="(d\d+)" for="edge" attr.name="` + attr + `"`).FindSubmatch(b)
		if key == nil {
			t.Fatalf("no edge %s key in the real store's GraphML", attr)
		}
		edge := fmt.Sprintf("<edge source=\"Kim Malone Scott\" target=\"Coaching\">\n      <data key=%q>%s</data>\n    </edge>\n  </graph>", key[1], value)
		return bytes.Replace(b, []byte("</graph>"), []byte(edge), 1)
	}, skip...)
}

// A copy of a real LightRAG store with one planted no-source edge that
// pulls another entity's chunks into a query's top-k: replay exits 1 on
// the copy (the untouched store: 0), and the inspector's findings for the
// same replay hold the same error.
func TestPlantedNoSourceEdgeFailsReplay(t *testing.T) {
	// An edge as networkx writes it, with a weight and no source_id: the
	// two entities share no chunk.
	src, dir := plantLightRAGEdge(t, "weight", "40.0")
	queries := kimQueries(t)
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"replay", src, "--queries", queries}, &out, &errb); code != exitOK {
		t.Fatalf("untouched store: replay exit %d: %s%s", code, out.String(), errb.String())
	}
	out.Reset()
	if code := run(ctx, []string{"replay", dir, "--queries", queries}, &out, &errb); code != exitFindings || !strings.Contains(out.String(), "DIVERGE") {
		t.Fatalf("planted copy: replay exit %d, want 1 with the row diverging:\n%s%s", code, out.String(), errb.String())
	}
	// diff of the untouched store and the planted copy: the one added
	// write, with no source, and the selection it changed.
	out.Reset()
	if code := run(ctx, []string{"diff", "--json", "--queries", queries, src, dir}, &out, &errb); code != exitOK {
		t.Fatalf("diff exit %d: %s", code, errb.String())
	}
	var d struct {
		Diff struct {
			Edges []struct {
				Change   string `json:"change"`
				NoSource bool   `json:"no_source"`
			} `json:"edges"`
		} `json:"diff"`
		Selections []struct {
			Same bool `json:"same"`
		} `json:"selections"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Diff.Edges) != 1 || d.Diff.Edges[0].Change != "added" || !d.Diff.Edges[0].NoSource || len(d.Selections) != 1 || d.Selections[0].Same {
		t.Errorf("diff: edges %+v, selections %+v; want one added no-source write and the selection changed", d.Diff.Edges, d.Selections)
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

// The commands that refused native stores run on them: timeline in the
// store's own order and times, diff of two snapshots of one real Mem0
// store, exposure of a real LightRAG store under a query, actions refused
// in one line naming the reason.
func TestWholeToolOnRealStores(t *testing.T) {
	ctx := context.Background()
	exim2, exim4 := sharedtest.Case(t, "mem0-exim-20251102"), sharedtest.Case(t, "mem0-exim-20251104")
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"timeline", "--json", exim4}, &out, &errb); code != exitOK {
		t.Fatalf("timeline exit %d: %s", code, errb.String())
	}
	var tl struct {
		Timed  bool `json:"timed"`
		Events []struct {
			Kind string `json:"kind"`
			UTC  string `json:"utc"`
		} `json:"events"`
	}
	if err := json.Unmarshal(out.Bytes(), &tl); err != nil || !tl.Timed || len(tl.Events) != 63 {
		t.Fatalf("timeline: %v, timed %v, %d events (want the 63 history rows)", err, tl.Timed, len(tl.Events))
	}
	out.Reset()
	run(ctx, []string{"timeline", sharedtest.Case(t, "graphrag-gy-artifacts")}, &out, &errb)
	if !strings.Contains(out.String(), "records no time") {
		t.Errorf("a store without times does not say so:\n%.400s", out.String())
	}
	out.Reset()
	if code := run(ctx, []string{"diff", "--json", exim2, exim4}, &out, &errb); code != exitOK {
		t.Fatalf("diff exit %d: %s", code, errb.String())
	}
	var d struct {
		Diff struct {
			Memories []struct{ Change string } `json:"memories"`
		} `json:"diff"`
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, m := range d.Diff.Memories {
		n[m.Change]++
	}
	// SOURCE.txt: 12 ADD + 1 UPDATE on 11-02; 49 ADD, 13 UPDATE, 1 DELETE
	// on 11-04 (the same store two days later).
	if n["added"]+n["added, then deleted"] != 37 || n["deleted"]+n["added, then deleted"] != 1 {
		t.Errorf("diff: %v; want 37 memories added (49-12 ADD rows) and 1 deleted", n)
	}
	out.Reset()
	q := kimQueries(t)
	if code := run(ctx, []string{"exposure", "--json", "--draws", "20", "--curve-draws", "0", "--queries", q, sharedtest.Case(t, "lightrag-lennyhub")}, &out, &errb); code != exitOK {
		t.Fatalf("exposure exit %d: %s", code, errb.String())
	}
	var ex struct {
		Store struct {
			Edges int `json:"edges"`
		} `json:"store"`
		EquiMem struct {
			Writes []json.RawMessage `json:"writes"`
		} `json:"equimem"`
		Selectors map[string]json.RawMessage `json:"selectors"`
	}
	if err := json.Unmarshal(out.Bytes(), &ex); err != nil || len(ex.EquiMem.Writes) != ex.Store.Edges || ex.Store.Edges == 0 || ex.Selectors["ppr"] == nil || ex.Selectors["leiden"] == nil {
		t.Errorf("exposure: %v; EquiMem scored %d writes of %d, %d selectors\n%.300s", err, len(ex.EquiMem.Writes), ex.Store.Edges, len(ex.Selectors), out.String())
	}
	out.Reset()
	if code := run(ctx, []string{"actions", exim4}, &out, &errb); code != exitUsage {
		t.Errorf("actions on a Mem0 store: exit %d, want 2", code)
	}
}

// A copy of a real LightRAG store with one chunk whose content is not a
// string (STORE_RECORD_MALFORMED, an error: LightRAG could not use it):
// every command that reads the store exits 1 and says why in its JSON,
// as a snapshot's unreadable rows give 1 in every command. timeline,
// exposure and diff used to exit 0 without a word, and replay showed the
// error and exited 0. The untouched store gives 0 in each.
func TestEveryCommandCountsTheStoresErrors(t *testing.T) {
	orig, dir := copyLennyhub(t, func(name string, b []byte) []byte {
		if name != "kv_store_text_chunks.json" {
			return b
		}
		var chunks map[string]map[string]any
		if err := json.Unmarshal(b, &chunks); err != nil {
			t.Fatal(err)
		}
		first := slices.Sorted(maps.Keys(chunks))[0]
		chunks[first]["content"] = 5
		out, err := json.Marshal(chunks)
		if err != nil {
			t.Fatal(err)
		}
		return out
	})
	queries := kimQueries(t)
	for _, store := range []string{dir, orig} {
		want := exitFindings
		if store == orig {
			want = exitOK
		}
		for _, args := range [][]string{
			{"verify", store}, {"lineage", store}, {"timeline", store},
			{"replay", store, "--queries", queries},
			{"exposure", store, "--queries", queries, "--draws", "2", "--curve-draws", "0"},
			{"diff", orig, store},
		} {
			code, out, errs := runIn(t, dir, append(args, "--json")...)
			if code != want || wantFromJSON(t, args[0], []byte(out)) != want {
				t.Errorf("%s on %s: exit %d, its JSON says %d, want %d\n%s", args[0], filepath.Base(store), code, wantFromJSON(t, args[0], []byte(out)), want, errs)
			}
		}
	}
}
