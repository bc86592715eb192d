package lineage

import "testing"

// A graph large enough that renumbering gathers in several chunks side by
// side keeps every entry's id, its parents (distinct, each with its
// largest weight, as the input lists them) and their children's mirror
// edges, numbered parents first.
func TestBuildManyChunksKeepsEveryEdge(t *testing.T) {
	t.Parallel()
	entries := syntheticStore(150_000)
	g := Build(entries)
	if g.Len() != len(entries) || !g.Acyclic() {
		t.Fatalf("%d nodes (acyclic %v) for %d entries", g.Len(), g.Acyclic(), len(entries))
	}
	edges := 0
	for row, e := range entries {
		c, ok := g.InputNode(row)
		if !ok || g.ID(c) != e.ID {
			t.Fatalf("row %d (%s) is node %d (%v) named %s", row, e.ID, c, ok, g.ID(c))
		}
		if j, ok := g.Index(e.ID); !ok || j != c {
			t.Fatalf("Index(%s) = %d, %v; want %d", e.ID, j, ok, c)
		}
		want := map[string]float64{}
		for k, p := range e.Parents {
			if w, seen := want[p]; !seen || e.Weights[k] > w {
				want[p] = e.Weights[k]
			}
		}
		got := g.Parents(c)
		if len(got) != len(want) {
			t.Fatalf("entry %s: %d parents, want %d", e.ID, len(got), len(want))
		}
		for _, p := range got {
			if p.Node >= c {
				t.Fatalf("entry %s (node %d): parent node %d is not numbered first", e.ID, c, p.Node)
			}
			if w, ok := want[g.ID(p.Node)]; !ok || w != p.Weight {
				t.Fatalf("entry %s: parent %s weight %v, want %v (listed %v)", e.ID, g.ID(p.Node), p.Weight, w, ok)
			}
		}
		edges += len(got)
	}
	mirrored := 0
	for p := range g.Len() {
		for _, ch := range g.Children(p) {
			found := false
			for _, e := range g.Parents(ch.Node) {
				found = found || (e.Node == p && e.Weight == ch.Weight)
			}
			if !found {
				t.Fatalf("child edge %d -> %d has no parent edge", p, ch.Node)
			}
			mirrored++
		}
	}
	if mirrored != edges {
		t.Fatalf("%d child edges for %d parent edges", mirrored, edges)
	}
}
