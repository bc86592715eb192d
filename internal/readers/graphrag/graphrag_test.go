package graphrag

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

func TestOpenPoisoned(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), filepath.Join(fixtures, "poisoned"))
	if err != nil {
		t.Fatal(err)
	}
	passages, entities := 0, 0
	for _, n := range st.Nodes {
		switch n.Kind {
		case storemodel.KindPassage:
			passages++
		case storemodel.KindEntity:
			entities++
		}
	}
	if passages != 6 || entities != 6 {
		t.Errorf("%d passages, %d entities; want 6 and 6", passages, entities)
	}
	var injected *storemodel.Edge
	sourced := 0
	for i, e := range st.Edges {
		if e.ID == "injected-fowler-acme" {
			injected = &st.Edges[i]
		} else if len(e.Sources) > 0 {
			sourced++
		}
	}
	if injected == nil || len(injected.Sources) != 0 || injected.Weight != 8 {
		t.Fatalf("injected relationship %+v", injected)
	}
	if sourced != len(st.Edges)-1 {
		t.Errorf("%d of %d other edges sourced", sourced, len(st.Edges)-1)
	}
	if len(st.Issues) != 1 || st.Issues[0].Code != finding.StoreEdgeUnexplained || !strings.Contains(st.Issues[0].Subject, "injected-fowler-acme") {
		t.Errorf("issues %+v", st.Issues)
	}
}

// A truncated relationships.parquet is refused with the file named.
func TestTruncatedParquet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range tables {
		b, err := os.ReadFile(filepath.Join(fixtures, "clean", "output", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "relationships.parquet" {
			b = b[:len(b)*2/3]
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(context.Background(), dir)
	if err == nil || !strings.Contains(err.Error(), "relationships.parquet") || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("err %v", err)
	}
}
