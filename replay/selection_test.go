package replay

import (
	"slices"
	"testing"
)

// A k far above the passages keeps every passage, ranked, in memory
// proportional to the passages: a buffer of k+1 for k = 2^40 was an
// out-of-memory crash.
func TestTopKHugeKKeepsEveryPassage(t *testing.T) {
	nodes := []Node{{ID: "p1", Kind: KindPassage}, {ID: "e1", Kind: KindEntity}, {ID: "p2", Kind: KindPassage}, {ID: "p3", Kind: KindPassage}}
	g, err := NewGraph(nodes, nil, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	scores := []float64{0.2, 0.9, 0.5, 0.2}
	sel := g.selectPassages(scores, 1<<40)
	if want := []string{"p2", "p1", "p3"}; !slices.Equal(sel.IDs(), want) || sel.Next != nil {
		t.Errorf("top-2^40 = %v (next %v), want %v and no next", sel.IDs(), sel.Next, want)
	}
	if small := g.selectPassages(scores, 2); !slices.Equal(small.IDs(), []string{"p2", "p1"}) || small.Next == nil || small.Next.NodeID != "p3" || !small.TieAtCutoff {
		t.Errorf("top-2 = %v, next %+v", small.IDs(), small.Next)
	}
}
