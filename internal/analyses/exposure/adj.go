package exposure

import (
	"github.com/memscope/memscope/replay"
)

// adj is the walk-carrying adjacency of one view of the memory graph (G or
// G_auth) in CSR form, with the semantics replay's PPR uses: undirected,
// parallel edges separate entries that add up, weight-0 edges ignored,
// self-loops dropped or counted twice as the graph says.
type adj struct {
	n   int
	off []int32
	col []int32
	w   []float64
	str []float64 // strength (summed incident walk weight)
}

// buildAdj keeps the edges for which keep(i) is true.
func buildAdj(g *replay.Graph, keep func(i int) bool) *adj {
	nodes, edges := g.Nodes(), g.Edges()
	twice := g.SelfLoops() == replay.SelfLoopsTwice
	a := &adj{n: len(nodes), off: make([]int32, len(nodes)+1), str: make([]float64, len(nodes))}
	type end struct{ a, b int32 }
	ends := make([]end, len(edges))
	use := make([]bool, len(edges))
	for i, e := range edges {
		if !keep(i) || e.Weight == 0 {
			continue
		}
		x, _ := g.NodeIndex(e.Src)
		y, _ := g.NodeIndex(e.Dst)
		if x == y && !twice {
			continue
		}
		ends[i], use[i] = end{int32(x), int32(y)}, true
		a.off[x+1]++
		if x != y {
			a.off[y+1]++
		}
	}
	for v := 0; v < a.n; v++ {
		a.off[v+1] += a.off[v]
	}
	a.col = make([]int32, a.off[a.n])
	a.w = make([]float64, a.off[a.n])
	fill := append([]int32(nil), a.off[:a.n]...)
	put := func(v, u int32, w float64) {
		a.col[fill[v]], a.w[fill[v]] = u, w
		fill[v]++
		a.str[v] += w
	}
	for i, e := range edges {
		if !use[i] {
			continue
		}
		x, y := ends[i].a, ends[i].b
		if x == y {
			put(x, x, 2*e.Weight)
			continue
		}
		put(x, y, e.Weight)
		put(y, x, e.Weight)
	}
	return a
}

// bfs returns hop distances from src (-1: unreachable).
func (a *adj) bfs(src int32) []int32 {
	dist := make([]int32, a.n)
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int32{src}
	for h := 0; h < len(queue); h++ {
		v := queue[h]
		for p := a.off[v]; p < a.off[v+1]; p++ {
			if u := a.col[p]; dist[u] < 0 {
				dist[u] = dist[v] + 1
				queue = append(queue, u)
			}
		}
	}
	return dist
}
