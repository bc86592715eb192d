package replay

import (
	"fmt"
	"reflect"
	"testing"
)

// TestPairIDsKeepEveryEdgeAsGiven: a graph built with PairIDs gives back
// every edge, finds every id and refuses a repeated id (paired or not)
// exactly as a graph built without it; ids that only look like pairs (the
// greater endpoint first, another separator, endpoints that are not the
// edge's) are kept as given.
func TestPairIDsKeepEveryEdgeAsGiven(t *testing.T) {
	t.Parallel()
	var nodes []Node
	for i := range 30 {
		nodes = append(nodes, Node{ID: fmt.Sprintf("n-%02d", i), Kind: []string{KindEntity, KindPassage}[i%2]})
	}
	var edges []Edge
	for i := range 400 {
		a, b := nodes[i%30].ID, nodes[(i*7+3)%30].ID
		lo, hi := min(a, b), max(a, b)
		id := lo + "--" + hi
		switch i % 6 {
		case 1:
			id = hi + "--" + lo
		case 2:
			id = lo + "-" + hi
		case 3:
			id = fmt.Sprintf("%s#%d", id, i)
		case 4:
			id = nodes[(i+1)%30].ID + "--" + hi
		case 5:
			id = fmt.Sprintf("019b76da-b514-7c45-b83c-%012x", i)
		}
		edges = append(edges, Edge{ID: id, Src: a, Dst: b, Weight: float64(i%3 + 1), Prov: Provenance{Writer: "w", Sources: []string{lo}}})
	}
	// Keep the first of each id: a graph refuses a repeat.
	seen := map[string]bool{}
	var distinct []Edge
	for _, e := range edges {
		if !seen[e.ID] {
			seen[e.ID] = true
			distinct = append(distinct, e)
		}
	}
	build := func(es []Edge, pairs bool) (*Graph, error) {
		b, err := NewGraphBuilder(nodes, 4, DropSelfLoops) // small: the index grows
		if err != nil {
			t.Fatal(err)
		}
		if pairs {
			b.PairIDs("--")
		}
		for _, e := range es {
			if err := b.Add(e); err != nil {
				return nil, err
			}
		}
		return b.Graph()
	}
	plain, err := build(distinct, false)
	if err != nil {
		t.Fatal(err)
	}
	paired, err := build(distinct, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(paired.Edges(), plain.Edges()) || !reflect.DeepEqual(paired.Edges(), distinct) {
		t.Fatal("a graph with paired ids gives back other edges")
	}
	pairs := 0
	for i, e := range distinct {
		if j, ok := paired.EdgeIndex(e.ID); !ok || j != i {
			t.Fatalf("EdgeIndex(%q) = %d, %v; want %d", e.ID, j, ok, i)
		}
		want := e.ID == min(e.Src, e.Dst)+"--"+max(e.Src, e.Dst)
		if paired.ids.Paired(i) != want || plain.ids.Paired(i) {
			t.Errorf("edge %q: kept as a pair %v, want %v", e.ID, paired.ids.Paired(i), want)
		}
		if want {
			pairs++
		}
	}
	if pairs == 0 || pairs == len(distinct) {
		t.Fatalf("%d of %d ids are pairs: the test does not mix them", pairs, len(distinct))
	}
	if _, ok := paired.EdgeIndex("n-00--n-99"); ok {
		t.Error("found an edge that is not there")
	}
	for _, dup := range []int{0, 3, 5} { // a paired, a plain and a canonical id again
		es := append(distinct[:20:20], distinct[dup])
		_, errPlain := build(es, false)
		_, errPaired := build(es, true)
		if errPlain == nil || errPaired == nil || errPlain.Error() != errPaired.Error() {
			t.Errorf("repeated id %q: %v with pairs, %v without", distinct[dup].ID, errPaired, errPlain)
		}
	}
}
