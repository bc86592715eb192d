package replay

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/memscope/memscope/internal/idtab"
)

// TestEdgesRoundTrip: a graph holds its edges by column, and every edge
// comes back exactly as given (ids canonical or not, nil and empty
// sources, declared labels, source problems, weights that the walk scales
// or raises), and ShareIDs takes a table only when it holds the same ids.
func TestEdgesRoundTrip(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	nodes := []Node{{ID: "a", Kind: KindEntity}, {ID: "b", Kind: KindPassage}, {ID: "c", Kind: KindPassage}}
	var edges []Edge
	for i := range 40 {
		e := Edge{ID: fmt.Sprintf("019b76da-b514-7c45-b83c-%012x", i), Src: nodes[i%3].ID, Dst: nodes[(i+1)%3].ID, Weight: float64(i % 4)}
		switch i % 5 {
		case 0:
			e.ID = fmt.Sprintf("odd-%d", i)
			e.Prov = Provenance{Writer: "w1", SignatureValid: true, WriterRegistered: true, Channel: ChannelAuthenticated, Sources: []string{"s1", "s2"}}
		case 1:
			e.Prov = Provenance{Writer: "w2", Sources: []string{}, Declared: &yes}
		case 2:
			e.Prov = Provenance{Writer: "w1", Channel: ChannelUnauthenticated, Declared: &no, Sources: []string{"s2"}, SourceProblems: []string{"s2: missing"}}
		case 3:
			e.Prov = Provenance{Writer: "w1", SourceProblems: []string{}}
		}
		edges = append(edges, e)
	}
	edges[7].Weight = 5e-324 // raised for the walk, kept as given
	g, err := NewGraph(nodes, edges, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Edges(); !reflect.DeepEqual(got, edges) {
		for i := range edges {
			if !reflect.DeepEqual(got[i], edges[i]) {
				t.Fatalf("edge %d: got %+v, want %+v", i, got[i], edges[i])
			}
		}
	}
	if g.walkW[7] != minWalkWeight || g.EdgeWeight(7) != 5e-324 {
		t.Errorf("walk weight %v, weight %v", g.walkW[7], g.EdgeWeight(7))
	}
	big, err := NewGraph(nodes, []Edge{{ID: "x", Src: "a", Dst: "b", Weight: math.MaxFloat64}}, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(big.walkW[0]-1) > 1e-15 || big.EdgeWeight(0) != math.MaxFloat64 {
		t.Errorf("scaled walk weight %v, weight %v", big.walkW[0], big.EdgeWeight(0))
	}
	same, other := idtab.New(0), idtab.New(0)
	for i, e := range edges {
		same.Add(e.ID)
		if i != 3 {
			other.Add(e.ID)
		}
	}
	other.Add(edges[3].ID)
	if g.ShareIDs(other) {
		t.Error("ShareIDs took a table with the ids in another order")
	}
	if !g.ShareIDs(same) || g.EdgeID(5) != edges[5].ID {
		t.Error("ShareIDs refused the same ids")
	}
	if i, ok := g.EdgeIndex(edges[9].ID); !ok || i != 9 {
		t.Errorf("EdgeIndex after sharing: %d, %v", i, ok)
	}
	// Built from a table of the ids, with no id spelt out: the same graph.
	b, err := NewGraphBuilder(nodes, len(edges), DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	if !b.UseIDs(same) {
		t.Fatal("UseIDs refused a table of distinct ids")
	}
	for _, e := range edges {
		e.ID = ""
		if err := b.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	g2, err := b.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g2.Edges(), edges) || !reflect.DeepEqual(g2.cols, g.cols) || !reflect.DeepEqual(g2.weights, g.weights) {
		t.Error("a graph built on a table of ids differs from NewGraph's")
	}
	dup := idtab.New(0)
	dup.Add("a")
	dup.Add("a")
	if b2, _ := NewGraphBuilder(nodes, 2, DropSelfLoops); b2.UseIDs(dup) {
		t.Error("UseIDs took a table that repeats an id")
	}
	b3, _ := NewGraphBuilder(nodes, 1, DropSelfLoops)
	short := idtab.New(0)
	short.Add("only")
	b3.UseIDs(short)
	b3.Add(Edge{Src: "a", Dst: "b", Weight: 1})
	if err := b3.Add(Edge{Src: "a", Dst: "b", Weight: 1}); err == nil {
		t.Error("an edge beyond the ids given was accepted")
	}
}
