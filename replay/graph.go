// Package replay replays an agent's graph selection (Personalized PageRank as
// HippoRAG2 runs it) on the full memory graph G and on the authenticated
// subgraph G_auth, and explains where and why the two selections differ
// (AuthSelect, arXiv:2606.12290). It is pure analysis: no terminal code, no I/O
// beyond what callers hand it.
package replay

import (
	"fmt"
	"math"
	"sync/atomic"
)

// Node kinds. Only passage nodes are ranked; entity nodes carry walk mass.
const (
	KindPassage = "passage"
	KindEntity  = "entity"
)

// Node is one vertex of the memory graph.
type Node struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"` // KindPassage or KindEntity
	Label string `json:"label"`
	// Authenticated says the node's own record (the passage or entity write)
	// carries authenticated provenance. A selected passage counts as an
	// authenticated item exactly when this is true; it decides IFC-blind rows.
	Authenticated bool `json:"authenticated"`
}

// Provenance is the write provenance of one structural write (edge, merge
// link, relation). Edge integrity is decided from this alone, never from the
// endpoints (AuthSelect, arXiv:2606.12290, Definition 1).
type Provenance struct {
	Writer           string   `json:"writer"`
	SignatureValid   bool     `json:"signature_valid"`
	WriterRegistered bool     `json:"writer_registered"`
	Channel          string   `json:"channel"`  // ChannelAuthenticated, ChannelUnauthenticated or "" (unknown)
	Sources          []string `json:"sources"`  // empty: a no-source write
	Declared         *bool    `json:"declared"` // label declared by an importer, not verified
	// SourceProblems names the cited sources that are missing or untrusted
	// after verification and lineage ("id: why"), in source order. Under
	// closure min-inheritance (AuthSelect, arXiv:2606.12290, section 4) one such source makes
	// the write unauthenticated.
	SourceProblems []string `json:"source_problems"`
}

// Write channels.
const (
	ChannelAuthenticated   = "authenticated"
	ChannelUnauthenticated = "unauthenticated"
)

// Edge is one structural write between two nodes. Weights must be finite and
// non-negative; weight 0 edges are kept (so what-if can name them) but carry
// no walk mass.
type Edge struct {
	ID     string     `json:"id"`
	Src    string     `json:"src"`
	Dst    string     `json:"dst"`
	Weight float64    `json:"weight"`
	Prov   Provenance `json:"prov"`
}

// SelfLoopMode says how an edge from a node to itself enters the walk.
type SelfLoopMode int

const (
	// DropSelfLoops ignores self-loops (the semantics BRIEF.md decides).
	DropSelfLoops SelfLoopMode = iota
	// SelfLoopsTwice counts an undirected self-loop of weight w as 2w of
	// both the node's strength and its self-transition. This is what igraph
	// 0.10 prpack actually does (the loop appears twice in the incidence
	// list), measured against python3-igraph 0.10.2.
	SelfLoopsTwice
)

// Graph is a memory graph compiled once into an undirected CSR adjacency.
// Every view (G, G_auth, G minus any edge set) is the same CSR with a set of
// removed edges, so views are cheap and can be solved together.
type Graph struct {
	nodes     []Node
	edges     []Edge
	nodeIndex map[string]int32
	edgeIndex map[string]int32
	passages  []int32    // passage node indices in node order
	ends      [][2]int32 // node indices of each edge's endpoints, in edge order
	selfLoops SelfLoopMode

	// CSR over walk-carrying entries: for node v, entries offsets[v]..offsets[v+1]
	// hold neighbour cols[i] with weight weights[i]; edgeOf[i] is the input edge.
	offsets  []int32
	cols     []int32
	weights  []float64
	edgeOf   []int32
	strength []float64 // summed incident walk weight per node on G
	walkW    []float64 // per edge: the weight the walk uses (see walkWeights)
	degree   []int32   // number of CSR entries per node on G

	sweeps atomic.Int64 // Gauss-Seidel sweeps over the CSR by every solve (Sweeps)
}

// Sweeps returns how many sweeps over the graph every solve on it has made
// so far: the unit of replay's work, counted where the work is done, so a
// caller (or a test of cancellation) can tell how much ran.
func (g *Graph) Sweeps() int64 { return g.sweeps.Load() }

// NewGraph validates nodes and edges and compiles the CSR. Node order is
// significant: it breaks score ties.
func NewGraph(nodes []Node, edges []Edge, selfLoops SelfLoopMode) (*Graph, error) {
	if len(nodes) > math.MaxInt32-1 || 2*len(edges) > math.MaxInt32-1 {
		return nil, fmt.Errorf("replay: graph too large (%d nodes, %d edges)", len(nodes), len(edges))
	}
	if selfLoops != DropSelfLoops && selfLoops != SelfLoopsTwice {
		return nil, fmt.Errorf("replay: unknown self-loop mode %d", selfLoops)
	}
	g := &Graph{
		nodes:     nodes,
		edges:     edges,
		nodeIndex: make(map[string]int32, len(nodes)),
		edgeIndex: make(map[string]int32, len(edges)),
		selfLoops: selfLoops,
	}
	for i, n := range nodes {
		if n.ID == "" {
			return nil, fmt.Errorf("replay: node %d has an empty id", i)
		}
		if n.Kind != KindPassage && n.Kind != KindEntity {
			return nil, fmt.Errorf("replay: node %q has kind %q, want %q or %q", n.ID, n.Kind, KindPassage, KindEntity)
		}
		if _, dup := g.nodeIndex[n.ID]; dup {
			return nil, fmt.Errorf("replay: node id %q appears twice", n.ID)
		}
		g.nodeIndex[n.ID] = int32(i)
		if n.Kind == KindPassage {
			g.passages = append(g.passages, int32(i))
		}
	}
	n := len(nodes)
	g.ends = make([][2]int32, len(edges))
	ends := g.ends
	count := make([]int32, n+1)
	for i, e := range edges {
		if e.ID == "" {
			return nil, fmt.Errorf("replay: edge %d (%s-%s) has an empty id", i, e.Src, e.Dst)
		}
		if _, dup := g.edgeIndex[e.ID]; dup {
			return nil, fmt.Errorf("replay: edge id %q appears twice", e.ID)
		}
		g.edgeIndex[e.ID] = int32(i)
		a, ok := g.nodeIndex[e.Src]
		if !ok {
			return nil, fmt.Errorf("replay: edge %q names unknown source node %q", e.ID, e.Src)
		}
		b, ok := g.nodeIndex[e.Dst]
		if !ok {
			return nil, fmt.Errorf("replay: edge %q names unknown destination node %q", e.ID, e.Dst)
		}
		if math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) || e.Weight < 0 {
			return nil, fmt.Errorf("replay: edge %q has weight %v, want a finite non-negative number", e.ID, e.Weight)
		}
		ends[i] = [2]int32{a, b}
		if !g.carriesWalk(i, a, b) {
			continue
		}
		count[a]++
		if a != b {
			count[b]++
		}
	}
	g.offsets = make([]int32, n+1)
	for v := 0; v < n; v++ {
		g.offsets[v+1] = g.offsets[v] + count[v]
	}
	nnz := g.offsets[n]
	g.cols = make([]int32, nnz)
	g.weights = make([]float64, nnz)
	g.edgeOf = make([]int32, nnz)
	g.strength = make([]float64, n)
	g.degree = count[:n]
	g.walkW = walkWeights(edges)
	fill := make([]int32, n)
	copy(fill, g.offsets[:n])
	put := func(v, u int32, w float64, e int) {
		p := fill[v]
		g.cols[p], g.weights[p], g.edgeOf[p] = u, w, int32(e)
		fill[v]++
		g.strength[v] += w
	}
	for i := range edges {
		a, b := ends[i][0], ends[i][1]
		if !g.carriesWalk(i, a, b) {
			continue
		}
		w := g.walkW[i]
		if a == b {
			put(a, a, 2*w, i)
			continue
		}
		put(a, b, w, i)
		put(b, a, w, i)
	}
	return g, nil
}

// Weight bounds of the walk. The format allows any finite non-negative
// weight, from 5e-324 to MaxFloat64; summed strengths would overflow and
// 1/strength of a subnormal is infinite. A transition is w/strength, which
// one global scale leaves unchanged, so a graph whose largest weight is
// over maxWalkWeight is scaled down by it, and a positive weight below
// minWalkWeight (after scaling) counts as minWalkWeight: it still carries
// the walk when it is a node's only edge, and is still negligible beside
// any ordinary one. Graphs within the bounds are used exactly as written.
const (
	maxWalkWeight = 1e100
	minWalkWeight = 1e-300
)

func walkWeights(edges []Edge) []float64 {
	maxW := 0.0
	for _, e := range edges {
		maxW = max(maxW, e.Weight)
	}
	scale := 1.0
	if maxW > maxWalkWeight {
		scale = 1 / maxW
	}
	out := make([]float64, len(edges))
	for i, e := range edges {
		w := e.Weight * scale
		if e.Weight > 0 && w < minWalkWeight {
			w = minWalkWeight
		}
		out[i] = w
	}
	return out
}

// carriesWalk says whether edge i (between a and b) enters the walk at all.
func (g *Graph) carriesWalk(i int, a, b int32) bool {
	if g.edges[i].Weight == 0 {
		return false
	}
	return a != b || g.selfLoops == SelfLoopsTwice
}

// SelfLoops says how self-loops enter the walk.
func (g *Graph) SelfLoops() SelfLoopMode { return g.selfLoops }

// Nodes returns the nodes in graph order (do not modify).
func (g *Graph) Nodes() []Node { return g.nodes }

// Edges returns the edges in input order (do not modify).
func (g *Graph) Edges() []Edge { return g.edges }

// NodeIndex returns the position of a node id.
func (g *Graph) NodeIndex(id string) (int, bool) {
	i, ok := g.nodeIndex[id]
	return int(i), ok
}

// EdgeIndex returns the position of an edge id.
func (g *Graph) EdgeIndex(id string) (int, bool) {
	i, ok := g.edgeIndex[id]
	return int(i), ok
}

// edgeIndices resolves edge ids, naming the first unknown one.
func (g *Graph) edgeIndices(ids []string, what string) ([]int32, error) {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		i, ok := g.edgeIndex[id]
		if !ok {
			return nil, fmt.Errorf("replay: %s names unknown edge %q", what, id)
		}
		out = append(out, i)
	}
	return out, nil
}
