// Package storelineage is the provenance a native graph store declares
// about its own writes, per node: the edges that touch the node, each with
// the passages the store's fields name as its sources, and, for a passage,
// the edges elsewhere in the graph that name it as a source. Nothing here
// is verified: it is what the store says (storemodel.Unsigned).
package storelineage

import (
	"sort"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Index answers provenance questions about one store's graph.
type Index struct {
	st       *storemodel.Store
	nodes    map[string]int
	byNode   map[string][]int // node id -> edges touching it
	bySource map[string][]int // passage id -> edges that name it as a source
}

// New indexes st's nodes and edges.
func New(st *storemodel.Store) *Index {
	ix := &Index{st: st, nodes: make(map[string]int, len(st.Nodes)), byNode: map[string][]int{}, bySource: map[string][]int{}}
	for i, n := range st.Nodes {
		ix.nodes[n.ID] = i
	}
	for i, e := range st.Edges {
		ix.byNode[e.Src] = append(ix.byNode[e.Src], i)
		if e.Dst != e.Src {
			ix.byNode[e.Dst] = append(ix.byNode[e.Dst], i)
		}
		for _, s := range e.Sources {
			ix.bySource[s] = append(ix.bySource[s], i)
		}
	}
	return ix
}

// Write is one edge as seen from a node.
type Write struct {
	Edge *storemodel.Edge
	// Other is the endpoint that is not the node ("" when the node is not
	// an endpoint: an edge elsewhere that the passage is a source of).
	Other string
	// BySelf: the node is one of the edge's declared sources.
	BySelf bool
}

// NoSource says the store names no source for the write.
func (w Write) NoSource() bool { return len(w.Edge.Sources) == 0 }

// Provenance is what the store declares around one node.
type Provenance struct {
	Node storemodel.Node
	// Touching are the edges with the node as an endpoint: no-source
	// writes first (what a responder looks for), then the ones the node
	// itself sources, then the rest, each group in edge order.
	Touching []Write
	// Sourced are the edges elsewhere that name the node (a passage) as a
	// source.
	Sourced []Write
}

// Node returns the declared provenance around node id.
func (ix *Index) Node(id string) (Provenance, bool) {
	i, ok := ix.nodes[id]
	if !ok {
		return Provenance{}, false
	}
	p := Provenance{Node: ix.st.Nodes[i]}
	for _, ei := range ix.byNode[id] {
		e := &ix.st.Edges[ei]
		other := e.Dst
		if other == id {
			other = e.Src
		}
		p.Touching = append(p.Touching, Write{Edge: e, Other: other, BySelf: hasSource(e, id)})
	}
	rank := func(w Write) int {
		switch {
		case w.NoSource():
			return 0
		case w.BySelf:
			return 1
		}
		return 2
	}
	sort.SliceStable(p.Touching, func(a, b int) bool { return rank(p.Touching[a]) < rank(p.Touching[b]) })
	for _, ei := range ix.bySource[id] {
		e := &ix.st.Edges[ei]
		if e.Src == id || e.Dst == id {
			continue
		}
		p.Sourced = append(p.Sourced, Write{Edge: e, BySelf: true})
	}
	return p, true
}

func hasSource(e *storemodel.Edge, id string) bool {
	for _, s := range e.Sources {
		if s == id {
			return true
		}
	}
	return false
}

// Label is a node's stored text ("" when id is not a node).
func (ix *Index) Label(id string) string {
	if i, ok := ix.nodes[id]; ok {
		return ix.st.Nodes[i].Label
	}
	return ""
}
