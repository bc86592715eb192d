package dagdraw

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchGraph is a wide neighbourhood: n nodes, 0-4 parents each among the
// next 30 nodes, so lanes fill up and the cap matters.
func benchGraph(n int) Graph {
	r := rand.New(rand.NewPCG(5, 6))
	g := Graph{}
	for i := 0; i < n; i++ {
		g.Nodes = append(g.Nodes, Node{ID: fmt.Sprint(i), Label: fmt.Sprintf("entry %d agent:1 some label text", i), Trust: "DU"})
	}
	for c := 0; c < n; c++ {
		for k := r.IntN(5); k > 0; k-- {
			if p := c + 1 + r.IntN(30); p < n {
				g.Edges = append(g.Edges, Edge{Parent: p, Child: c, Weight: r.Float64(), Strong: r.IntN(2) == 0})
			}
		}
	}
	return g
}

func BenchmarkLayout2000(b *testing.B) {
	g := benchGraph(2000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewLayout(g, Options{MaxLanes: 12}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderWindow is one screenful (50 rows at 120 columns).
func BenchmarkRenderWindow(b *testing.B) {
	l, _ := NewLayout(benchGraph(2000), Options{MaxLanes: 12})
	b.ReportAllocs()
	for b.Loop() {
		l.Render(1000, 1050, 120, Box)
	}
}
