package hipporag

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// negate rewrites graph.pickle with python-igraph: the first edge's weight
// made negative, and a negative parallel edge added beside the second
// (whose pair's sum stays positive). It prints both pairs, the first
// edge's old weight, and whether igraph ran a personalized PageRank on the
// result as HippoRAG 2's run_ppr does (python-igraph 0.10 does).
const negate = `
import sys, igraph as ig
g = ig.Graph.Read_Pickle(sys.argv[1])
e0, e1 = g.es[0], g.es[1]
w0 = e0["weight"]
e0["weight"] = -1.0
g.add_edge(e1.source, e1.target, weight=-0.25)
g.write_pickle(sys.argv[1])
try:
    g.personalized_pagerank(damping=0.5, directed=False, weights="weight", reset=[1.0] * g.vcount(), implementation="prpack")
    ppr = "ran"
except Exception as ex:
    ppr = "refused"
n = g.vs["name"]
print(n[e0.source], n[e0.target], n[e1.source], n[e1.target], repr(w0), ppr)
`

// A negative edge weight in graph.pickle is a finding naming the edge,
// and the rest of the store is still analysed; on one of two parallel
// edges it is not summed away.
func TestNegativeWeight(t *testing.T) {
	t.Parallel()
	if err := exec.Command("/usr/bin/python3", "-c", "import igraph").Run(); err != nil {
		sharedtest.Missing(t, "python3-igraph")
	}
	dir := evidencetest.CopyTree(t, filepath.Join(fixtures, "clean"))
	pickle := filepath.Join(dir, "gpt-4o-mini_nvidia_NV-Embed-v2", "graph.pickle")
	out, err := exec.Command("/usr/bin/python3", "-c", negate, pickle).Output()
	if err != nil {
		t.Fatalf("python-igraph: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 6 {
		t.Fatalf("python said %q", out)
	}
	t.Logf("python-igraph %s a personalized PageRank with negative weights", f[5])
	w0, err := strconv.ParseFloat(f[4], 64)
	if err != nil {
		t.Fatal(err)
	}
	base, err := Open(context.Background(), filepath.Join(fixtures, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatalf("the store is refused whole: %v", err)
	}
	var named []string
	for _, is := range st.Issues {
		if is.Code == finding.StoreRecordMalformed && strings.Contains(is.Subject, "field weight") {
			named = append(named, is.Subject)
		}
	}
	if len(named) != 2 || !strings.Contains(named[0], f[0]) || !strings.Contains(named[0], f[1]) || !strings.Contains(named[1], f[2]) {
		t.Errorf("findings %q, want edges %s--%s and %s--%s", named, f[0], f[1], f[2], f[3])
	}
	weights := map[string]float64{}
	for _, e := range base.Edges {
		weights[e.ID] = e.Weight
	}
	// Every pair keeps its weight but the first edge's, which loses that
	// edge's old weight (HippoRAG stores fact edges both ways); the second
	// pair's negative parallel edge is not summed in.
	first := storemodel.PairID(f[0], f[1])
	for _, e := range st.Edges {
		want := weights[e.ID]
		if e.ID == first {
			want -= w0
		}
		if math.Abs(e.Weight-want) > 1e-12 {
			t.Errorf("edge %s: weight %v, want %v", e.ID, e.Weight, want)
		}
		delete(weights, e.ID)
	}
	for id, w := range weights {
		if id != first || math.Abs(w-w0) > 1e-12 {
			t.Errorf("edge %s (weight %v) is gone", id, w)
		}
	}
}
