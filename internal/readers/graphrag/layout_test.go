package graphrag

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/sharedtest"
)

// GraphRAG 0.2-0.3.4 kept one output/<timestamp>/artifacts/ per index run;
// its query CLI reads the most recently modified run, and so does Open,
// naming the others.
func TestArtifactRunsNewestFirst(t *testing.T) {
	src := filepath.Join(sharedtest.Case(t, "graphrag-gy-artifacts"), "output", "artifacts")
	root := t.TempDir()
	old := time.Now().Add(-48 * time.Hour)
	for i, run := range []string{"20240901-101010", "20240902-101010"} {
		dir := filepath.Join(root, "output", run, "artifacts")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range finalNames.files() {
			b, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mod := old.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(root, "output", run), mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(st.Root, "20240902-101010") || !strings.HasPrefix(st.Layout, "GraphRAG 0.2.0-0.3.4") {
		t.Errorf("root %s layout %q: want the newer run in the artifacts layout", st.Root, st.Layout)
	}
	if !strings.Contains(strings.Join(st.Notes, "\n"), "20240901-101010") {
		t.Errorf("notes %q do not name the older run", st.Notes)
	}
}

// The 0.2-0.4 layouts key entities by name, later ones by title; the same
// relationships join either way, so every relationship of the real 0.2-era
// store is an edge between two of its entities.
func TestNameKeyedEntities(t *testing.T) {
	st, err := Open(context.Background(), sharedtest.Case(t, "graphrag-gy-artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Issues) != 0 {
		t.Errorf("issues on an untouched store: %+v", st.Issues)
	}
	relations := 0
	for _, e := range st.Edges {
		if e.Kind == "relation" {
			relations++
		}
	}
	if relations == 0 {
		t.Fatal("no relationship read")
	}
}

// The fixtures follow 3.x's schemas.py (text_units.document_id, one
// value); the real michaelto20 store (2.x) keeps document_ids, a list.
func TestThreeXTextUnitsDocumentID(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(fixtures, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Layout, "GraphRAG 3.x") {
		t.Errorf("layout %q, want GraphRAG 3.x", st.Layout)
	}
	st, err = Open(context.Background(), sharedtest.Case(t, "graphrag-michaelto20"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(st.Layout, "GraphRAG 2.x") {
		t.Errorf("layout %q, want GraphRAG 2.x", st.Layout)
	}
}
