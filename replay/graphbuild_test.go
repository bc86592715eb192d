package replay

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// TestAddEachIsAddInTurn: AddEach (lookups and sources a batch ahead on a
// second goroutine) builds the graph Add builds from the same edges one at
// a time, columns and all, and stops at the same first error with the
// same message wherever it falls; done sees every added edge once, in
// order, and no edge after an error's batch.
func TestAddEachIsAddInTurn(t *testing.T) {
	t.Parallel()
	var nodes []Node
	for i := range 500 {
		nodes = append(nodes, Node{ID: fmt.Sprintf("n%03d", i), Kind: []string{KindEntity, KindPassage}[i%2]})
	}
	n := 3*addBatch + 123
	edges := make([]Edge, n)
	for i := range edges {
		a, b := nodes[i%500].ID, nodes[(i/500+i*7+1)%500].ID
		id := fmt.Sprintf("e%d", i)
		if i%3 == 0 {
			id = min(a, b) + "--" + max(a, b) + fmt.Sprintf("#%d", i)
		}
		var src []string
		switch i % 4 {
		case 1:
			src = []string{}
		case 2:
			src = []string{fmt.Sprintf("chunk-%d", i%97), fmt.Sprintf("chunk-%d", i%13)}
		case 3:
			src = []string{fmt.Sprintf("chunk-%d", i%1001)}
		}
		edges[i] = Edge{ID: id, Src: a, Dst: b, Weight: float64(i%5) / 2, Prov: Provenance{Writer: fmt.Sprintf("w%d", i%3), Sources: src}}
	}
	build := func(es []Edge, each bool) (*Graph, []int, error) {
		b, err := NewGraphBuilder(nodes, len(es), DropSelfLoops)
		if err != nil {
			t.Fatal(err)
		}
		b.PairIDs("--")
		var done []int
		if each {
			err = b.AddEach(len(es), func(i int) Edge { return es[i] }, func(i int) { done = append(done, i) })
		} else {
			for _, e := range es {
				if err = b.Add(e); err != nil {
					break
				}
			}
		}
		if err != nil {
			return nil, done, err
		}
		g, err := b.Graph()
		return g, done, err
	}
	want, _, err := build(edges, false)
	if err != nil {
		t.Fatal(err)
	}
	got, done, err := build(edges, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range done {
		if d != i {
			t.Fatalf("done call %d was for edge %d", i, d)
		}
	}
	if len(done) != n {
		t.Fatalf("done called %d times for %d edges", len(done), n)
	}
	cols := func(g *Graph) []any {
		return []any{g.ends, g.weight, g.prov, g.provs, g.srcOff, g.srcs, g.srcNames, g.emptySrc, g.offsets, g.cols, g.weights, g.edgeOf, g.strength}
	}
	if !reflect.DeepEqual(cols(got), cols(want)) {
		t.Fatal("AddEach built other columns than Add")
	}
	if !reflect.DeepEqual(got.Edges(), want.Edges()) {
		t.Fatal("AddEach built other edges than Add")
	}
	for _, at := range []int{0, addBatch - 1, addBatch, 2*addBatch + 5, n - 1} {
		for what, spoil := range map[string]func(e *Edge){
			"unknown source":      func(e *Edge) { e.Src = "nowhere" },
			"unknown destination": func(e *Edge) { e.Dst = "nowhere" },
			"repeated id":         func(e *Edge) { e.ID = edges[0].ID },
			"empty id":            func(e *Edge) { e.ID = "" },
			"weight":              func(e *Edge) { e.Weight = math.NaN() },
		} {
			if at == 0 && what == "repeated id" {
				continue
			}
			bad := append([]Edge(nil), edges...)
			spoil(&bad[at])
			// A second fault later: the first must win.
			bad[n-1-(n-1-at)/2].Dst = "later"
			_, _, wantErr := build(bad, false)
			_, done, gotErr := build(bad, true)
			if wantErr == nil || gotErr == nil || gotErr.Error() != wantErr.Error() {
				t.Errorf("%s at edge %d: AddEach error %v, Add error %v", what, at, gotErr, wantErr)
			}
			if len(done) > at {
				t.Errorf("%s at edge %d: done called for %d edges", what, at, len(done))
			}
		}
	}
}
