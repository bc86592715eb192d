package hipporag

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

func kinds(st *storemodel.Store) map[string][]string {
	out := map[string][]string{}
	for _, e := range st.Edges {
		out[e.Kind] = append(out[e.Kind], e.ID)
	}
	return out
}

// The clean store: every edge is explained by OpenIE or, for the one
// synonym pair, by the stored entity embeddings; no issue.
func TestCleanProvenance(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), filepath.Join(fixtures, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	k := kinds(st)
	if len(k[storemodel.EdgeSynonym]) != 1 || len(k[storemodel.EdgeUnexplained]) != 0 || len(k[storemodel.EdgeFact]) == 0 || len(k[storemodel.EdgePassage]) == 0 {
		t.Errorf("edge kinds %v", k)
	}
	if len(st.Issues) != 0 {
		t.Errorf("issues %+v", st.Issues)
	}
	for _, e := range st.Edges {
		if e.Kind == storemodel.EdgeFact && (len(e.Sources) == 0 || e.Weight != e.Expected) {
			t.Errorf("fact edge %s: weight %v, expected %v, sources %v", e.ID, e.Weight, e.Expected, e.Sources)
		}
	}
}

// The poisoned store: exactly the two appended edges are unexplained.
func TestPoisonedProvenance(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), filepath.Join(fixtures, "poisoned"))
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, is := range st.Issues {
		if is.Code != finding.StoreEdgeUnexplained {
			t.Errorf("unexpected issue %+v", is)
		}
		subjects = append(subjects, strings.TrimPrefix(is.Subject, "edge "))
	}
	slices.Sort(subjects)
	want := []string{
		"chunk-72c412af4949893215045740e7d99776--entity-1f03e0221e3617541daeedc1b40d2856",
		"chunk-72c412af4949893215045740e7d99776--entity-4f752b5c1e686f8adbc0fa3867d39bb9",
	}
	if !slices.Equal(subjects, want) {
		t.Errorf("unexplained %v, want %v", subjects, want)
	}
}

// Without vdb_entity.parquet the synonym pair cannot be told from an
// injected one: it is reported as unexplained, saying why.
func TestWithoutEntityEmbeddings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wd := "gpt-4o-mini_nvidia_NV-Embed-v2"
	if err := os.MkdirAll(filepath.Join(dir, wd), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"openie_results_ner_gpt-4o-mini.json", filepath.Join(wd, "graph.pickle")} {
		b, err := os.ReadFile(filepath.Join(fixtures, "clean", p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(context.Background(), filepath.Join(dir, wd, "graph.pickle"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Issues) != 1 || !strings.Contains(st.Issues[0].Message, "may be a synonym edge") {
		t.Errorf("issues %+v", st.Issues)
	}
}

func TestTextProcessingAndIDs(t *testing.T) {
	t.Parallel()
	if got := TextProcessing("  Karen J. Fowler (b. 1950)! "); got != "karen j  fowler  b  1950" {
		t.Errorf("TextProcessing = %q", got)
	}
	// compute_mdhash_id("karen joy fowler", "entity-") as HippoRAG computes it.
	if got := MDHashID("karen joy fowler", "entity-"); got != "entity-"+"1f03e0221e3617541daeedc1b40d2856" && got != "entity-"+"4f752b5c1e686f8adbc0fa3867d39bb9" {
		t.Errorf("MDHashID = %s, not one of the fixture's seed entities", got)
	}
}

// An OpenIE file with one bad doc is read doc by doc (the one-pass decode
// refuses it): the bad doc and the non-string triple element are issues,
// and every other doc explains exactly what the one-pass read of the
// intact file explains.
func TestOpenIEBadDocReadDocByDoc(t *testing.T) {
	t.Parallel()
	src := filepath.Join(fixtures, "clean")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "openie_results_ner_gpt-4o-mini.json")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	f["docs"] = append(f["docs"].([]any),
		map[string]any{"idx": 5, "passage": "idx is a number"},
		map[string]any{"idx": "chunk-extra", "passage": "p", "extracted_triples": []any{[]any{"Karen Joy Fowler", "wrote", 7.0}}})
	if b, err = json.Marshal(f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want, got := openBoth(t, src, dir)
	var msgs []string
	for _, is := range got.Issues {
		msgs = append(msgs, is.Subject+": "+is.Message)
	}
	if len(got.Issues) != 2 || !strings.Contains(msgs[0], "docs[12]") || !strings.Contains(msgs[1], "extracted_triples[0][2] is not a string") {
		t.Errorf("issues %q, want docs[12] malformed and docs[13]'s triple element", msgs)
	}
	sameEdges(t, got, want)
}

// openBoth opens the two save directories.
func openBoth(t *testing.T, a, b string) (*storemodel.Store, *storemodel.Store) {
	t.Helper()
	var st [2]*storemodel.Store
	for i, dir := range []string{a, b} {
		var err error
		if st[i], err = Open(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
	}
	return st[0], st[1]
}

// sameEdges requires got's edges to be want's, with their provenance.
func sameEdges(t *testing.T, got, want *storemodel.Store) {
	t.Helper()
	if len(got.Edges) != len(want.Edges) {
		t.Fatalf("%d edges, want %d", len(got.Edges), len(want.Edges))
	}
	for i, e := range got.Edges {
		w := want.Edges[i]
		if e.ID != w.ID || e.Kind != w.Kind || e.Expected != w.Expected || !slices.Equal(e.Sources, w.Sources) {
			t.Errorf("edge %d: %+v, want %+v", i, e, w)
		}
	}
}
