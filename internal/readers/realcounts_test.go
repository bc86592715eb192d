package stores

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// python is Debian's interpreter, where networkx, python-igraph and sqlite3
// are the upstream tools' own libraries.
const python = "/usr/bin/python3"

type counts struct {
	Nodes, Passages, Edges, History, Messages int
}

func modelCounts(st *storemodel.Store) counts {
	c := counts{Nodes: len(st.Nodes), Edges: len(st.Edges), History: len(st.Versions), Messages: len(st.Messages)}
	for _, n := range st.Nodes {
		if n.Kind == storemodel.KindPassage {
			c.Passages++
		}
	}
	return c
}

// Every real store of a format whose upstream library is at hand opens
// with the node, passage, edge, history and message counts that library
// computes (testdata/realcounts.py). GraphRAG's parquet tables are
// counted with hyparquet instead (pyarrow is not packaged for this Debian):
// TestGraphRAGCountsMatchHyparquet.
func TestRealStoreCountsMatchUpstreamLibraries(t *testing.T) {
	dir := sharedtest.RealStores(t)
	if err := exec.Command(python, "-c", "import networkx, igraph, sqlite3").Run(); err != nil {
		sharedtest.Missing(t, python+" with networkx, python-igraph and sqlite3 ("+err.Error()+")")
	}
	ctx := context.Background()
	checked := 0
	for _, c := range realStores {
		if c.format == storemodel.GraphRAG {
			continue
		}
		found, err := Resolve(filepath.Join(dir, c.dir))
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		st, err := Open(ctx, found.Path, found.Format)
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		out, err := exec.CommandContext(ctx, python, filepath.Join("testdata", "realcounts.py"), string(found.Format), found.Path).Output()
		if err != nil {
			t.Errorf("%s: realcounts.py: %v", c.dir, err)
			continue
		}
		var want counts
		if err := json.Unmarshal(out, &want); err != nil {
			t.Errorf("%s: %v in %s", c.dir, err, out)
			continue
		}
		if got := modelCounts(st); got != want {
			t.Errorf("%s: memscope %+v, upstream library %+v", c.dir, got, want)
		}
		checked++
	}
	if checked < 12 {
		t.Errorf("only %d real stores cross-checked", checked)
	}
}
