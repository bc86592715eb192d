package stores

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/parquetcols"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// hyparquetCounts is what scripts/graphrag-counts.mjs prints.
type hyparquetCounts struct {
	TextUnitRows     int `json:"text_unit_rows"`
	EntityRows       int `json:"entity_rows"`
	RelationshipRows int `json:"relationship_rows"`
	DocumentRows     int `json:"document_rows"`
	Passages         int `json:"passages"`
	Entities         int `json:"entities"`
	Joins            int `json:"joins"`
	Relationships    int `json:"relationships"`
	NoSource         int `json:"no_source"`
}

// graphRAGCounts are memscope's counts of the same things: the graph from
// the reader, the raw row counts from parquetcols (memscope's parquet
// reader, over parquet-go).
func graphRAGCounts(t *testing.T, st *storemodel.Store) hyparquetCounts {
	t.Helper()
	var c hyparquetCounts
	for _, n := range st.Nodes {
		switch n.Kind {
		case storemodel.KindPassage:
			c.Passages++
		case storemodel.KindEntity:
			c.Entities++
		}
	}
	for _, e := range st.Edges {
		switch e.Kind {
		case storemodel.EdgePassage:
			c.Joins++
		case storemodel.EdgeUnexplained:
			c.NoSource++
			c.Relationships++
		case storemodel.EdgeRelation:
			c.Relationships++
		}
	}
	prefix := "create_final_"
	if _, err := os.Stat(filepath.Join(st.Root, "text_units.parquet")); err == nil {
		prefix = ""
	}
	rows := func(table string) int {
		path := filepath.Join(st.Root, prefix+table+".parquet")
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return -1
		}
		if err != nil {
			t.Fatal(err)
		}
		f, err := parquetcols.Open(path, b)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return f.Rows()
	}
	c.TextUnitRows, c.EntityRows, c.RelationshipRows, c.DocumentRows = rows("text_units"), rows("entities"), rows("relationships"), rows("documents")
	return c
}

// Every real GraphRAG store, in each layout, opens with the text unit,
// entity, relationship and document counts (rows, and the graph built from
// them) that hyparquet, a parquet reader independent of parquet-go,
// computes (scripts/graphrag-counts.mjs).
func TestGraphRAGCountsMatchHyparquet(t *testing.T) {
	dir := sharedtest.RealStores(t)
	mods := sharedtest.Hyparquet(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "graphrag-counts.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	layouts := map[string]bool{}
	for _, c := range realStores {
		if c.format != storemodel.GraphRAG {
			continue
		}
		st, err := Open(ctx, filepath.Join(dir, c.dir), storemodel.GraphRAG)
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		cmd := exec.CommandContext(ctx, "node", script, st.Root)
		cmd.Env = append(os.Environ(), "MEMSCOPE_NPM_MODULES="+mods)
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: graphrag-counts.mjs: %v", c.dir, err)
			continue
		}
		var want hyparquetCounts
		if err := json.Unmarshal(out, &want); err != nil {
			t.Errorf("%s: %v in %s", c.dir, err, out)
			continue
		}
		if got := graphRAGCounts(t, st); got != want {
			t.Errorf("%s (%s): memscope %+v, hyparquet %+v", c.dir, st.Layout, got, want)
		}
		if want.Passages == 0 || want.Entities == 0 || want.Relationships == 0 {
			t.Errorf("%s: hyparquet counted an empty graph %+v", c.dir, want)
		}
		layouts[c.layout] = true
	}
	if len(layouts) < 3 {
		t.Errorf("only %d GraphRAG layouts cross-checked: %v", len(layouts), layouts)
	}
}
