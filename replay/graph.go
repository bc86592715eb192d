// Package replay replays an agent's graph selection (Personalized PageRank as
// HippoRAG2 runs it) on the full memory graph G and on the authenticated
// subgraph G_auth, and explains where and why the two selections differ
// (AuthSelect, arXiv:2606.12290). It is pure analysis: no terminal code, no I/O
// beyond what callers hand it.
package replay

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/memscope/memscope/internal/idtab"
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
	// Unread marks a placeholder for a node row the loader could not read
	// (an entity, so never selected): the writes naming it still replay,
	// and a query's dense score for it is set aside rather than refused.
	Unread bool `json:"unread,omitempty"`
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
	// NotInLog is the inclusion failure of the write's record
	// (RECORD_NOT_IN_LOG, INCLUSION_FAILED), "" when the log proves it or
	// was not read: a write the log does not prove is unverified, and so
	// not authenticated under the default policy.
	NotInLog string `json:"not_in_log,omitempty"`
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
//
// The edges are held by column, not as Edge values: ids compactly with their
// index (internal/idtab), endpoints as node indices, and each edge's
// provenance as a code into the distinct provenance values (a million writes
// share a few writers and channels). Edge(i) rebuilds edge i; Edges() builds
// every one, which costs what the columns save.
type Graph struct {
	nodes     []Node
	nodeIndex map[string]int32
	passages  []int32    // passage node indices in node order
	ends      [][2]int32 // node indices of each edge's endpoints, in edge order
	selfLoops SelfLoopMode

	ids    *idtab.Table // edge ids in edge order, indexed
	weight []float64    // each edge's weight as given
	prov   []int32      // each edge's provenance: an index into provs
	provs  []provRow
	// Sources of edge i are srcs[srcOff[i]:srcOff[i+1]]; emptySrc marks the
	// edges whose empty Sources was a non-nil slice (kept as given).
	srcOff   []int32
	srcs     []int32 // codes into srcNames
	srcNames []string
	emptySrc map[int32]bool

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

// provRow is one distinct provenance value, without the sources (which
// every write has its own of).
type provRow struct {
	writer, channel string
	notInLog        string
	sigValid, reg   bool
	declared        int8 // -1: nil, 0: false, 1: true
	problems        []string
}

// provKey identifies a provRow for sharing.
type provKey struct {
	writer, channel string
	notInLog        string
	sigValid, reg   bool
	declared        int8
	problems        string // joined by NUL; problemsSet says non-nil
	problemsSet     bool
}

// Sweeps returns how many sweeps over the graph every solve on it has made
// so far: the unit of replay's work, counted where the work is done, so a
// caller (or a test of cancellation) can tell how much ran.
func (g *Graph) Sweeps() int64 { return g.sweeps.Load() }

// NewGraph validates nodes and edges and compiles the CSR. Node order is
// significant: it breaks score ties.
func NewGraph(nodes []Node, edges []Edge, selfLoops SelfLoopMode) (*Graph, error) {
	b, err := NewGraphBuilder(nodes, len(edges), selfLoops)
	if err != nil {
		return nil, err
	}
	for _, e := range edges {
		if err := b.Add(e); err != nil {
			return nil, err
		}
	}
	return b.Graph()
}

// GraphBuilder compiles a graph from edges handed over one at a time, so a
// caller with a million writes never holds them as Edge values: NewGraph
// with the edges in the order added, the same checks and the same errors.
type GraphBuilder struct {
	g     *Graph
	provs map[provKey]int32
	names map[string]int32 // source name -> code
	// shared: the ids come from a caller's table (UseIDs), edge i's
	// being its position i; Add ignores Edge.ID.
	shared bool
	// pairSep: an edge whose id is its endpoints' ids joined by pairSep
	// (PairIDs) keeps no id of its own.
	pairSep string
	maxW    float64
	err     error
}

// NewGraphBuilder validates the nodes and starts a graph of about edges
// edges (a hint for sizing).
func NewGraphBuilder(nodes []Node, edges int, selfLoops SelfLoopMode) (*GraphBuilder, error) {
	if len(nodes) > math.MaxInt32-1 || 2*edges > math.MaxInt32-1 {
		return nil, fmt.Errorf("replay: graph too large (%d nodes, %d edges)", len(nodes), edges)
	}
	if selfLoops != DropSelfLoops && selfLoops != SelfLoopsTwice {
		return nil, fmt.Errorf("replay: unknown self-loop mode %d", selfLoops)
	}
	edges = max(edges, 0)
	g := &Graph{
		nodes:     nodes,
		nodeIndex: make(map[string]int32, len(nodes)),
		selfLoops: selfLoops,
		ids:       idtab.New(edges),
		ends:      make([][2]int32, 0, edges),
		weight:    make([]float64, 0, edges),
		prov:      make([]int32, 0, edges),
		srcOff:    make([]int32, 1, edges+1),
		srcs:      make([]int32, 0, edges),
	}
	for i, n := range nodes {
		if n.ID == "" {
			return nil, fmt.Errorf("replay: node %d has an empty id", i)
		}
		if n.Kind != KindPassage && n.Kind != KindEntity {
			return nil, fmt.Errorf("replay: node \"%s\" has kind \"%s\", want \"%s\" or \"%s\"", n.ID, n.Kind, KindPassage, KindEntity)
		}
		if _, dup := g.nodeIndex[n.ID]; dup {
			return nil, fmt.Errorf("replay: node id \"%s\" appears twice", n.ID)
		}
		g.nodeIndex[n.ID] = int32(i)
		if n.Kind == KindPassage {
			g.passages = append(g.passages, int32(i))
		}
	}
	return &GraphBuilder{g: g, provs: map[provKey]int32{}, names: map[string]int32{}}, nil
}

// UseIDs makes t (a caller's table of distinct ids) the graph's edge ids:
// edge i is t's id i, and Add then ignores Edge.ID, so a caller holding
// the ids compactly need not spell each one out. It refuses (false) a
// table with a repeated id or a builder that has edges already.
func (b *GraphBuilder) UseIDs(t *idtab.Table) bool {
	if b.err != nil || len(b.g.ends) > 0 || t.Dups() > 0 {
		return false
	}
	b.g.ids, b.shared = t, true
	return true
}

// PairIDs says that edge ids of the form A+sep+B, where A and B are the
// edge's endpoints with the lesser (in byte order) first, are spelt out
// from the endpoints when asked for instead of being kept: a store that
// names its edges by their endpoints (storemodel.PairID) then costs no
// string per edge. Ids are found and compared exactly as before.
func (b *GraphBuilder) PairIDs(sep string) {
	if b.shared || sep == "" {
		return
	}
	b.pairSep = sep
	g := b.g
	g.ids.SpellPairs(sep, func(i int) (string, string) {
		a, c := g.nodes[g.ends[i][0]].ID, g.nodes[g.ends[i][1]].ID
		if c < a {
			a, c = c, a
		}
		return a, c
	})
}

// isPairID says whether id is src+sep+dst (the lesser first).
func isPairID(id, src, dst, sep string) bool {
	if dst < src {
		src, dst = dst, src
	}
	return len(id) == len(src)+len(sep)+len(dst) && id[:len(src)] == src && id[len(src):len(src)+len(sep)] == sep && id[len(src)+len(sep):] == dst
}

// Has says whether an edge with this id was added.
func (b *GraphBuilder) Has(id string) bool {
	_, ok := b.g.ids.Find(id)
	return ok
}

// Add appends edge e (edge index: the number added before it).
func (b *GraphBuilder) Add(e Edge) error {
	if b.err != nil {
		return b.err
	}
	if err := b.addInOrder(&e, b.lookUp(&e)); err != nil {
		return err
	}
	b.addSources(len(b.g.ends)-1, e.Prov.Sources)
	return nil
}

// addInOrder is Add but for the sources (addSources), with what lookUp
// found of e: the part that depends on the edges added before.
func (b *GraphBuilder) addInOrder(e *Edge, l edgeLookup) error {
	if b.err != nil {
		return b.err
	}
	g := b.g
	i := len(g.ends)
	if 2*(i+1) > math.MaxInt32-1 {
		b.err = fmt.Errorf("replay: graph too large (%d nodes, %d edges)", len(g.nodes), i+1)
		return b.err
	}
	if b.shared {
		// Distinct by UseIDs; spelt out only for an error message.
		if i >= g.ids.Len() {
			b.err = fmt.Errorf("replay: edge %d has no id (%d ids given)", i, g.ids.Len())
			return b.err
		}
		if !g.ids.Canonical(i) && g.ids.At(i) == "" {
			b.err = fmt.Errorf("replay: edge %d (%s-%s) has an empty id", i, e.Src, e.Dst)
			return b.err
		}
	}
	id := func() string { return g.ids.At(i) }
	if !b.shared {
		if e.ID == "" {
			b.err = fmt.Errorf("replay: edge %d (%s-%s) has an empty id", i, e.Src, e.Dst)
			return b.err
		}
		add := g.ids.Add
		if l.pairID {
			add = g.ids.AddPair // compares with earlier edges only
		}
		if _, fresh := add(e.ID); !fresh {
			b.err = fmt.Errorf("replay: edge id \"%s\" appears twice", e.ID)
			return b.err
		}
		// A paired id is spelt from ends[i], not set until the endpoints
		// are known.
		id = func() string { return e.ID }
	}
	a, c := l.src, l.dst
	if a < 0 {
		b.err = fmt.Errorf("replay: edge \"%s\" names unknown source node \"%s\"", id(), e.Src)
		return b.err
	}
	if c < 0 {
		b.err = fmt.Errorf("replay: edge \"%s\" names unknown destination node \"%s\"", id(), e.Dst)
		return b.err
	}
	if math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) || e.Weight < 0 {
		b.err = fmt.Errorf("replay: edge \"%s\" has weight %v, want a finite non-negative number", id(), e.Weight)
		return b.err
	}
	g.ends = append(g.ends, [2]int32{a, c})
	g.weight = append(g.weight, e.Weight)
	b.maxW = max(b.maxW, e.Weight)
	p := e.Prov
	k := provKey{writer: p.Writer, channel: p.Channel, notInLog: p.NotInLog, sigValid: p.SignatureValid, reg: p.WriterRegistered, declared: -1,
		problems: joinLengths(p.SourceProblems), problemsSet: p.SourceProblems != nil}
	if p.Declared != nil {
		k.declared = 0
		if *p.Declared {
			k.declared = 1
		}
	}
	code, ok := b.provs[k]
	if !ok {
		code = int32(len(g.provs))
		row := provRow{writer: p.Writer, channel: p.Channel, notInLog: p.NotInLog, sigValid: p.SignatureValid, reg: p.WriterRegistered, declared: k.declared}
		if p.SourceProblems != nil {
			row.problems = slices.Clone(p.SourceProblems)
		}
		g.provs = append(g.provs, row)
		b.provs[k] = code
	}
	g.prov = append(g.prov, code)
	return nil
}

// addSources records edge i's sources (the last part of Add): it depends
// on no edge but those before i having had theirs added.
func (b *GraphBuilder) addSources(i int, sources []string) {
	g := b.g
	for _, s := range sources {
		c, ok := b.names[s]
		if !ok {
			c = int32(len(g.srcNames))
			g.srcNames = append(g.srcNames, s)
			b.names[s] = c
		}
		g.srcs = append(g.srcs, c)
	}
	g.srcOff = append(g.srcOff, int32(len(g.srcs)))
	if sources != nil && len(sources) == 0 {
		if g.emptySrc == nil {
			g.emptySrc = map[int32]bool{}
		}
		g.emptySrc[int32(i)] = true
	}
}

// joinLengths joins strings unambiguously (each one after its length).
func joinLengths(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

// Graph compiles the CSR over the edges added; the builder is spent.
func (b *GraphBuilder) Graph() (*Graph, error) {
	if b.err != nil {
		return nil, b.err
	}
	g := b.g
	b.g, b.provs, b.names, b.err = nil, nil, nil, fmt.Errorf("replay: GraphBuilder used after Graph")
	if b.shared && len(g.ends) != g.ids.Len() {
		return nil, fmt.Errorf("replay: %d edges for %d ids", len(g.ends), g.ids.Len())
	}
	if 2*len(g.ends) > math.MaxInt32-1 || len(g.srcs) > math.MaxInt32-1 {
		return nil, fmt.Errorf("replay: graph too large (%d nodes, %d edges)", len(g.nodes), len(g.ends))
	}
	n := len(g.nodes)
	ends := g.ends
	count := make([]int32, n+1)
	for i := range ends {
		a, c := ends[i][0], ends[i][1]
		if !g.carriesWalk(i, a, c) {
			continue
		}
		count[a]++
		if a != c {
			count[c]++
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
	g.walkW = walkWeights(g.weight, b.maxW)
	fill := make([]int32, n)
	copy(fill, g.offsets[:n])
	put := func(v, u int32, w float64, e int) {
		p := fill[v]
		g.cols[p], g.weights[p], g.edgeOf[p] = u, w, int32(e)
		fill[v]++
		g.strength[v] += w
	}
	for i := range ends {
		a, c := ends[i][0], ends[i][1]
		if !g.carriesWalk(i, a, c) {
			continue
		}
		w := g.walkW[i]
		if a == c {
			put(a, a, 2*w, i)
			continue
		}
		put(a, c, w, i)
		put(c, a, w, i)
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

func walkWeights(weight []float64, maxW float64) []float64 {
	scale := 1.0
	if maxW > maxWalkWeight {
		scale = 1 / maxW
	}
	if scale == 1 && !slices.ContainsFunc(weight, func(w float64) bool { return w > 0 && w < minWalkWeight }) {
		return weight // the walk uses every weight as given: one array serves both
	}
	out := make([]float64, len(weight))
	for i, wi := range weight {
		w := wi * scale
		if wi > 0 && w < minWalkWeight {
			w = minWalkWeight
		}
		out[i] = w
	}
	return out
}

// carriesWalk says whether edge i (between a and b) enters the walk at all.
func (g *Graph) carriesWalk(i int, a, b int32) bool {
	if g.weight[i] == 0 {
		return false
	}
	return a != b || g.selfLoops == SelfLoopsTwice
}

// SelfLoops says how self-loops enter the walk.
func (g *Graph) SelfLoops() SelfLoopMode { return g.selfLoops }

// Nodes returns the nodes in graph order (do not modify).
func (g *Graph) Nodes() []Node { return g.nodes }

// EdgeCount is the number of edges.
func (g *Graph) EdgeCount() int { return len(g.ends) }

// Edge rebuilds edge i as it was given. Its SourceProblems are shared
// with the graph: do not modify them.
func (g *Graph) Edge(i int) Edge {
	e := Edge{ID: g.ids.At(i), Src: g.nodes[g.ends[i][0]].ID, Dst: g.nodes[g.ends[i][1]].ID, Weight: g.weight[i]}
	lo, hi := g.srcOff[i], g.srcOff[i+1]
	e.Prov, _ = g.provenance(i, make([]string, 0, hi-lo))
	return e
}

// provenance is edge i's provenance as Edge gives it, its sources
// appended to buf (which the caller may reuse once done with them).
func (g *Graph) provenance(i int, buf []string) (Provenance, []string) {
	p := &g.provs[g.prov[i]]
	out := Provenance{Writer: p.writer, SignatureValid: p.sigValid, WriterRegistered: p.reg, Channel: p.channel, SourceProblems: p.problems, NotInLog: p.notInLog}
	if p.declared >= 0 {
		d := p.declared == 1
		out.Declared = &d
	}
	if lo, hi := g.srcOff[i], g.srcOff[i+1]; hi > lo {
		for _, c := range g.srcs[lo:hi] {
			buf = append(buf, g.srcNames[c])
		}
		out.Sources = buf
	} else if g.emptySrc[int32(i)] {
		out.Sources = []string{}
	}
	return out, buf
}

// ShareIDs lets the graph read its edge ids from t when t holds the same
// ids in the same order (a caller's own table of the writes), so they are
// held once; it reports whether it did.
func (g *Graph) ShareIDs(t *idtab.Table) bool {
	if !g.ids.Same(t) {
		return false
	}
	g.ids = t
	return true
}

// EdgeID is edge i's id.
func (g *Graph) EdgeID(i int) string { return g.ids.At(i) }

// EdgeWeight is edge i's weight as given.
func (g *Graph) EdgeWeight(i int) float64 { return g.weight[i] }

// EdgeEnds are the node indices of edge i's source and destination.
func (g *Graph) EdgeEnds(i int) (src, dst int) { return int(g.ends[i][0]), int(g.ends[i][1]) }

// Edges builds every edge in input order: as much memory as the graph
// saves by holding them by column, so a caller that walks a large graph
// once should use EdgeCount and Edge instead.
func (g *Graph) Edges() []Edge {
	out := make([]Edge, g.EdgeCount())
	for i := range out {
		out[i] = g.Edge(i)
	}
	return out
}

// NodeIndex returns the position of a node id.
func (g *Graph) NodeIndex(id string) (int, bool) {
	i, ok := g.nodeIndex[id]
	return int(i), ok
}

// EdgeIndex returns the position of an edge id.
func (g *Graph) EdgeIndex(id string) (int, bool) {
	return g.ids.Find(id)
}

// edgeIndices resolves edge ids, naming the first unknown one.
func (g *Graph) edgeIndices(ids []string, what string) ([]int32, error) {
	out := make([]int32, 0, len(ids))
	for _, id := range ids {
		i, ok := g.ids.Find(id)
		if !ok {
			return nil, fmt.Errorf("replay: %s names unknown edge \"%s\"", what, id)
		}
		out = append(out, int32(i))
	}
	return out, nil
}
