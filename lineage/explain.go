package lineage

import (
	"container/heap"
	"fmt"
	"math"
	"sort"
)

// PathEdge is one step of an explanation path, parent to child.
type PathEdge struct {
	Parent string  `json:"parent"`
	Child  string  `json:"child"`
	Weight float64 `json:"weight"`
	Strong bool    `json:"strong"` // Weight > tau
}

// Origin explains how one External ancestor reaches the explained entry.
type Origin struct {
	Ancestor string `json:"ancestor"`
	// Path is the widest path from Ancestor to the entry: among all paths,
	// the one whose smallest edge weight is largest (ties broken by node
	// order). If any all-strong path exists, this path is all-strong.
	Path []PathEdge `json:"path"`
	// Bottleneck is the smallest weight on Path.
	Bottleneck float64 `json:"bottleneck"`
	// Break is the index in Path of the first edge with weight <= tau, or -1
	// when the whole path is strong and the External label propagates.
	Break int `json:"break"`
}

// Explanation says why an entry has its recomputed label.
type Explanation struct {
	Entry      string  `json:"entry"`
	Tau        float64 `json:"tau"`
	Recorded   Trust   `json:"recorded"`
	Recomputed Trust   `json:"recomputed"`
	// Origins has one element per External ancestor, widest first (ties:
	// shorter path, then node order), at most maxOrigins of them.
	Origins []Origin `json:"origins"`
	// TotalOrigins counts all External ancestors, shown or not.
	TotalOrigins int `json:"total_origins"`
	// Unverified says why the entry itself is External: its record failed
	// verification ("" otherwise).
	Unverified string `json:"unverified"`
}

// Explain finds, for every External ancestor of id (ancestors whose label in
// labels is External), the widest path to id and the first edge on it that
// is at or below tau. labels must come from Propagate at the same tau.
// maxOrigins (<= 0: all) bounds how many paths are spelled out, because an
// entry deep in a large store can have thousands of External ancestors.
func (g *Graph) Explain(id string, labels []Trust, tau float64, maxOrigins int) (Explanation, error) {
	t, ok := g.node(id)
	if !ok {
		return Explanation{}, fmt.Errorf("lineage: explain: no entry %s", id)
	}
	if len(labels) != g.Len() {
		return Explanation{}, fmt.Errorf("lineage: explain: %d labels for %d entries", len(labels), g.Len())
	}
	ex := Explanation{Entry: id, Tau: tau, Recorded: g.recorded[t], Recomputed: labels[t], Unverified: g.unverified[t]}

	// width[v] is the best minimum edge weight on a path v -> ... -> target
	// (-1: not an ancestor), via[v] the parent-edge slot that path leaves v
	// by, viaChild[v] the child it leads to. Dense arrays: the ancestry of a
	// late entry can be most of the store.
	n := g.Len()
	width := make([]float64, n)
	for i := range width {
		width[i] = -1
	}
	via := make([]int32, n)
	viaChild := make([]int32, n)
	hops := make([]int32, n)
	width[t] = math.Inf(1)
	var origins []found
	if int(t) < g.acyclicN {
		origins = g.widestAcyclic(t, labels, width, via, viaChild, hops)
	} else {
		origins = g.widestDijkstra(t, labels, width, via, viaChild, hops)
	}
	sort.Slice(origins, func(i, j int) bool {
		a, b := origins[i], origins[j]
		if a.width != b.width {
			return a.width > b.width
		}
		if a.hops != b.hops {
			return a.hops < b.hops
		}
		return a.node < b.node
	})
	ex.TotalOrigins = len(origins)
	if maxOrigins > 0 && len(origins) > maxOrigins {
		origins = origins[:maxOrigins]
	}
	for _, f := range origins {
		o := Origin{Ancestor: g.ids.text(int32(f.node)), Bottleneck: f.width, Break: -1}
		for v := f.node; v != t; v = viaChild[v] {
			w := g.weight[via[v]]
			strong := w > tau
			if !strong && o.Break < 0 {
				o.Break = len(o.Path)
			}
			o.Path = append(o.Path, PathEdge{Parent: g.ids.text(int32(v)), Child: g.ids.text(int32(viaChild[v])), Weight: w, Strong: strong})
		}
		ex.Origins = append(ex.Origins, o)
	}
	return ex, nil
}

type found struct {
	node  int32
	width float64
	hops  int32
}

// widestAcyclic computes widest paths to t when t is in the acyclic part:
// all its ancestors precede it in the topological numbering, so one
// backward sweep over nodes t-1..0 settles them without a priority queue.
func (g *Graph) widestAcyclic(t int32, labels []Trust, width []float64, via, viaChild, hops []int32) []found {
	var origins []found
	for v := t - 1; v >= 0; v-- {
		best := -1.0
		for e := g.childStart[v]; e < g.childStart[v+1]; e++ {
			c := g.child[e]
			if c > t || width[c] < 0 {
				continue
			}
			w := math.Min(g.weight[g.childEdge[e]], width[c])
			if w > best || (w == best && hops[c]+1 < hops[v]) {
				best, viaChild[v], hops[v] = w, c, hops[c]+1
			}
		}
		if best < 0 {
			continue
		}
		width[v] = best
		via[v] = g.edgeSlot(viaChild[v], v)
		if labels[v] == External {
			origins = append(origins, found{v, best, hops[v]})
		}
	}
	return origins
}

// edgeSlot returns the parent-edge slot of edge p -> c.
func (g *Graph) edgeSlot(c, p int32) int32 {
	for e := g.parentStart[c]; e < g.parentStart[c+1]; e++ {
		if g.parent[e] == p {
			return e
		}
	}
	return -1 // unreachable: the edge came from the child list
}

// widestDijkstra is the general case (t on or below a cycle): a bottleneck
// Dijkstra backwards over parent edges.
func (g *Graph) widestDijkstra(t int32, labels []Trust, width []float64, via, viaChild, hops []int32) []found {
	var origins []found
	done := make([]bool, len(width))
	pq := &widthQueue{{node: t, width: math.Inf(1)}}
	for pq.Len() > 0 {
		it := heap.Pop(pq).(widthItem)
		c := it.node
		if done[c] || it.width < width[c] {
			continue
		}
		done[c] = true
		if c != t && labels[c] == External {
			origins = append(origins, found{c, it.width, hops[c]})
		}
		for e := g.parentStart[c]; e < g.parentStart[c+1]; e++ {
			p := g.parent[e]
			if done[p] {
				continue
			}
			w := math.Min(it.width, g.weight[e])
			if w > width[p] {
				width[p], via[p], viaChild[p], hops[p] = w, e, c, hops[c]+1
				heap.Push(pq, widthItem{node: p, width: w})
			}
		}
	}
	return origins
}

type widthItem struct {
	node  int32
	width float64
}

type widthQueue []widthItem

func (q widthQueue) Len() int { return len(q) }
func (q widthQueue) Less(i, j int) bool {
	if q[i].width != q[j].width {
		return q[i].width > q[j].width
	}
	return q[i].node < q[j].node
}
func (q widthQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *widthQueue) Push(x any)   { *q = append(*q, x.(widthItem)) }
func (q *widthQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

// Relative is a node reached from another within a depth limit.
type Relative struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Depth int    `json:"depth"` // 1 = direct parent or child
}

// Ancestors lists ancestors of id breadth-first up to maxDepth steps
// (maxDepth <= 0 means unlimited) and at most maxNodes nodes (<= 0 means
// unlimited). Truncated reports whether a limit cut the walk short.
func (g *Graph) Ancestors(id string, maxDepth, maxNodes int) (rel []Relative, truncated bool, err error) {
	return g.walk(id, maxDepth, maxNodes, g.parentStart, g.parent)
}

// Descendants is Ancestors in the other direction.
func (g *Graph) Descendants(id string, maxDepth, maxNodes int) (rel []Relative, truncated bool, err error) {
	return g.walk(id, maxDepth, maxNodes, g.childStart, g.child)
}

func (g *Graph) walk(id string, maxDepth, maxNodes int, start []int32, adj []int32) ([]Relative, bool, error) {
	s, ok := g.node(id)
	if !ok {
		return nil, false, fmt.Errorf("lineage: no entry %s", id)
	}
	seen := map[int32]bool{s: true}
	frontier := []int32{s}
	var out []Relative
	truncated := false
	for depth := 1; len(frontier) > 0; depth++ {
		if maxDepth > 0 && depth > maxDepth {
			truncated = true
			break
		}
		var nextFrontier []int32
		for _, v := range frontier {
			for e := start[v]; e < start[v+1]; e++ {
				u := adj[e]
				if seen[u] {
					continue
				}
				if maxNodes > 0 && len(out) >= maxNodes {
					return out, true, nil
				}
				seen[u] = true
				out = append(out, Relative{Index: int(u), ID: g.ids.text(int32(u)), Depth: depth})
				nextFrontier = append(nextFrontier, u)
			}
		}
		frontier = nextFrontier
	}
	return out, truncated, nil
}

// SubNode is a node of a Neighbourhood.
type SubNode struct {
	Index  int         `json:"index"`
	ID     string      `json:"id"`
	Writer WriterClass `json:"writer"`
	Label  Trust       `json:"label"`
	// HiddenParents counts parents (including dangling ones) not in the
	// neighbourhood: elided ancestry.
	HiddenParents int `json:"hidden_parents"`
}

// SubEdge is an edge of a Neighbourhood, parent to child.
type SubEdge struct {
	Parent int     `json:"parent"` // positions in Neighbourhood.Nodes
	Child  int     `json:"child"`  // positions in Neighbourhood.Nodes
	Weight float64 `json:"weight"`
	Strong bool    `json:"strong"`
}

// Neighbourhood is the part of the DAG around one entry, ready to draw.
type Neighbourhood struct {
	Center int       `json:"center"` // position of the centre entry in Nodes
	Nodes  []SubNode `json:"nodes"`
	Edges  []SubEdge `json:"edges"`
}

// Neighbourhood collects id, its ancestors up to up steps and descendants up
// to down steps (at most maxNodes each way, <= 0 unlimited), and every edge
// among them, labelled with labels at tau.
func (g *Graph) Neighbourhood(id string, up, down, maxNodes int, labels []Trust, tau float64) (Neighbourhood, error) {
	if len(labels) != g.Len() {
		return Neighbourhood{}, fmt.Errorf("lineage: neighbourhood: %d labels for %d entries", len(labels), g.Len())
	}
	anc, _, err := g.Ancestors(id, up, maxNodes)
	if err != nil {
		return Neighbourhood{}, err
	}
	desc, _, _ := g.Descendants(id, down, maxNodes)
	c, _ := g.node(id)
	pos := map[int32]int{}
	var nb Neighbourhood
	addNode := func(i int32) {
		if _, ok := pos[i]; ok {
			return
		}
		pos[i] = len(nb.Nodes)
		nb.Nodes = append(nb.Nodes, SubNode{Index: int(i), ID: g.ids.text(int32(i)), Writer: g.writers[i], Label: labels[i]})
	}
	for k := len(desc) - 1; k >= 0; k-- {
		addNode(int32(desc[k].Index))
	}
	addNode(c)
	nb.Center = pos[c]
	for _, a := range anc {
		addNode(int32(a.Index))
	}
	for k := range nb.Nodes {
		v := int32(nb.Nodes[k].Index)
		if g.danglingW[v] >= 0 {
			nb.Nodes[k].HiddenParents++ // at least one; exact count is in the findings
		}
		for e := g.parentStart[v]; e < g.parentStart[v+1]; e++ {
			p, ok := pos[g.parent[e]]
			if !ok {
				nb.Nodes[k].HiddenParents++
				continue
			}
			w := g.weight[e]
			nb.Edges = append(nb.Edges, SubEdge{Parent: p, Child: k, Weight: w, Strong: w > tau})
		}
	}
	return nb, nil
}
