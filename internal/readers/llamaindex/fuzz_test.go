package llamaindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// TestSeedDir: the hand-made persist directory in testdata (one KG
// triplet filed under both ends, one property-graph relation with a
// triplet_source_id and one without) reads as the rules say.
func TestSeedDir(t *testing.T) {
	st, err := Open(context.Background(), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	explained, unexplained := 0, 0
	for _, e := range st.Edges {
		if len(e.Sources) > 0 {
			explained++
		} else {
			unexplained++
		}
	}
	// c1-Alice, c1-Bob, Alice-Bob (KG); c2-Carol, c2-Dan, Carol-Dan (MET
	// from c2 and LIKES without a source merge into one explained write).
	if len(st.Nodes) != 6 || explained != 6 || unexplained != 0 || len(st.Issues) != 1 || st.Issues[0].Code != "STORE_EDGE_UNEXPLAINED" {
		t.Fatalf("nodes %d edges %+v issues %+v", len(st.Nodes), st.Edges, st.Issues)
	}
	for _, e := range st.Edges {
		if e.ID == storemodel.PairID("Carol", "Dan") && (e.Parts != 2 || e.Weight != 2) {
			t.Fatalf("Carol--Dan %+v", e)
		}
	}
}

func FuzzOpen(f *testing.F) {
	seed := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	f.Add(seed("index_store.json"), seed("docstore.json"), seed("property_graph_store.json"), seed("graph_store.json"))
	f.Fuzz(func(t *testing.T, idx, ds, lpg, kg []byte) {
		dir := t.TempDir()
		for n, b := range map[string][]byte{indexFile: idx, docstoreFile: ds, lpgFile: lpg, kgFile: kg} {
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_, _ = Open(context.Background(), dir)
	})
}
