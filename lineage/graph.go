package lineage

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/par"
	"github.com/memscope/memscope/internal/present/finding"
)

// Finding codes of the lineage analysis (package finding's catalogue).
const (
	CodeEmptyID         = finding.LineageEmptyID
	CodeDuplicateID     = finding.LineageDuplicateID
	CodeWriterUnknown   = finding.LineageWriterUnknown
	CodeTrustInvalid    = finding.LineageTrustInvalid
	CodeDanglingParent  = finding.LineageDanglingParent
	CodeWeightNaN       = finding.LineageWeightNaN
	CodeWeightRange     = finding.LineageWeightRange
	CodeWeightCount     = finding.LineageWeightCount
	CodeDuplicateParent = finding.LineageDuplicateParent
	CodeCycle           = finding.LineageCycle
	CodeLaundering      = finding.LineageLaundering
)

// Graph is the derivation DAG in dense form. Build it once; Propagate can
// then be called for any tau without further allocation of the structure.
//
// Ids are held as 16-byte keys (ids.go), not strings, and looked up by
// binary search, not through a map: at a million entries the string ids
// and their map were two thirds of the graph.
type Graph struct {
	ids      idTable          // by node
	sorted   []int32          // canonical nodes sorted by (key, input position)
	oddIdx   map[string]int32 // non-canonical id -> its first node
	nodeOf   []int32          // input position -> node index
	firstOf  map[int32]int32  // input position of a repeated id -> its first
	writers  []WriterClass
	recorded []Trust

	// Parent adjacency (CSR): parents of node c are parent[parentStart[c]:parentStart[c+1]].
	parentStart []int32
	parent      []int32
	weight      []float64

	// Child adjacency (CSR), for descendants and explain; the weight of a
	// child edge is weight[childEdge[k]], the parent edge it mirrors.
	childStart []int32
	child      []int32
	childEdge  []int32

	// danglingW is the largest weight among a node's unknown parents, or -1
	// (after Resolve: among those without a tombstone).
	danglingW []float64
	// dangling lists each input position's unknown parents, for Resolve.
	dangling map[int32][]danglingEdge
	// missingByNode is dangling keyed by node index, built on first use.
	missingOnce   sync.Once
	missingByNode map[int32][]danglingEdge

	// Set by Resolve: entries that failed verification (forced External,
	// with the reason) and edges to tombstoned parents, by node.
	forced     []bool
	unverified map[int32]string
	ghost      [][]ghostEdge
	resolved   bool
	// buildFindings are Build's findings, before Resolve edits them.
	buildFindings []finding.Finding

	// Nodes are numbered in topological order (parents first) so that
	// propagation streams through the arrays. Nodes from acyclicN on lie on
	// or below a cycle; propagation settles them by fixpoint. order and
	// cyclic hold input positions and are only used while building.
	acyclicN int
	order    []int32
	cyclic   []int32

	findings []finding.Finding
}

// Build constructs the DAG from entries. Node indices are internal (a
// topological order); use Index and ID to map to and from entry ids. It never fails: every anomaly
// becomes a Finding and is repaired as documented in docs/LINEAGE.md
// (dangling parents dropped, NaN weight read as 1, weights clamped to [0,1],
// missing weights read as 1, duplicate parents merged keeping the largest
// weight, self-parents dropped).
func Build(entries []Entry) *Graph {
	b := NewBuilder(len(entries))
	for _, e := range entries {
		b.Add(e)
	}
	return b.Graph()
}

// Builder builds a Graph from entries given one at a time, holding each in
// compact form (16-byte ids, writer classes, parent keys), so that a caller
// streaming a million rows never holds them as Entry values.
type Builder struct {
	ids       idTable
	writers   []WriterClass
	writerErr map[int32]error
	recorded  []Trust
	// Parent references as given: parents of input position i are
	// pids[pstart[i]:pstart[i+1]] with weights pw (missing weights are 1).
	pstart []int32
	pids   idTable
	pw     []float64
	// wcount holds the parent and weight counts of entries whose counts
	// differ.
	wcount map[int32][2]int
}

// NewBuilder returns a Builder for about n entries.
func NewBuilder(n int) *Builder {
	b := &Builder{writers: make([]WriterClass, 0, n), recorded: make([]Trust, 0, n), pstart: make([]int32, 1, n+1)}
	b.ids.keys = make([]record.ID, 0, n)
	return b
}

// Add adds one entry (Build's input order is the order of Add calls).
func (b *Builder) Add(e Entry) {
	i := b.begin(e.ID, e.Writer, e.Recorded)
	for j, p := range e.Parents {
		b.pids.add(p)
		b.pw = append(b.pw, weightAt(e.Weights, j))
	}
	b.end(i, len(e.Parents), len(e.Weights))
}

// AddRecord adds one entry whose parents are record ids, as a signed
// record carries them (no parent id is turned into text).
func (b *Builder) AddRecord(id, writer string, recorded Trust, parents []record.ID, weights []float64) {
	i := b.begin(id, writer, recorded)
	for j, p := range parents {
		b.pids.addKey(p)
		b.pw = append(b.pw, weightAt(weights, j))
	}
	b.end(i, len(parents), len(weights))
}

func weightAt(ws []float64, j int) float64 {
	if j < len(ws) {
		return ws[j]
	}
	return 1
}

func (b *Builder) begin(id, writer string, recorded Trust) int32 {
	i := int32(len(b.writers))
	b.ids.add(id)
	wc, err := ParseWriter(writer)
	if err != nil {
		if b.writerErr == nil {
			b.writerErr = map[int32]error{}
		}
		b.writerErr[i] = err
	}
	b.writers = append(b.writers, wc)
	b.recorded = append(b.recorded, recorded)
	return i
}

func (b *Builder) end(i int32, parents, weights int) {
	b.pstart = append(b.pstart, int32(len(b.pw)))
	if parents != weights {
		if b.wcount == nil {
			b.wcount = map[int32][2]int{}
		}
		b.wcount[i] = [2]int{parents, weights}
	}
}

// Graph builds the graph from the entries added so far. The Builder must
// not be used afterwards: the graph takes over its arrays.
func (b *Builder) Graph() *Graph {
	n := len(b.writers)
	g := &Graph{ids: b.ids, writers: b.writers, recorded: b.recorded}
	b.ids, b.writers, b.recorded = idTable{}, nil, nil
	g.sorted = g.ids.sortedIndex()
	g.oddIdx = g.ids.oddIndex()
	// first[i] is the input position an id resolves to (its first row).
	dupOf := g.ids.duplicates(g.sorted)
	g.firstOf = dupOf
	for i := 0; i < n; i++ {
		in := int32(i)
		id := func() string { return g.ids.text(in) } // findings only
		if g.ids.isOdd(in) && g.ids.odd[in] == "" {
			g.add(CodeEmptyID, finding.SevWarning, []string{""}, fmt.Sprintf("entry #%d has an empty id; nothing can name it as a parent", i))
		} else if first, dup := dupOf[in]; dup {
			g.add(CodeDuplicateID, finding.SevError, []string{id()}, fmt.Sprintf("entry id %s appears at #%d and #%d; parent references resolve to #%d", id(), first, i, first))
		}
		if err := b.writerErr[in]; err != nil {
			g.add(CodeWriterUnknown, finding.SevWarning, []string{id()}, fmt.Sprintf("entry %s: %v; treated as External", id(), err))
		}
		if r := g.recorded[i]; !r.Valid() {
			g.add(CodeTrustInvalid, finding.SevError, []string{id()}, fmt.Sprintf("entry %s: recorded trust %d is not a defined level (0..3)", id(), uint8(r)))
		}
	}

	total := len(b.pw)
	g.parentStart = make([]int32, n+1)
	g.parent = make([]int32, 0, total)
	g.weight = make([]float64, 0, total)
	g.danglingW = make([]float64, n)
	childCount := make([]int32, n+1)

	resolved := g.resolveParents(&b.pids)
	seen := make(map[int32]int) // parent index -> position in g.parent, per entry
	for i := 0; i < n; i++ {
		g.parentStart[i] = int32(len(g.parent))
		g.danglingW[i] = -1
		s, e := b.pstart[i], b.pstart[i+1]
		np := int(e - s)
		id := func() string { return g.ids.text(int32(i)) } // findings only
		if c, bad := b.wcount[int32(i)]; bad {
			g.add(CodeWeightCount, finding.SevWarning, []string{id()}, fmt.Sprintf("entry %s has %d parents but %d weights; missing weights read as 1, extra ignored", id(), c[0], c[1]))
		}
		if np > linearScanMax {
			clear(seen)
		}
		for k := s; k < e; k++ {
			w := b.pw[k]
			switch {
			case math.IsNaN(w):
				pid := b.pids.text(k)
				g.add(CodeWeightNaN, finding.SevWarning, []string{id(), pid}, fmt.Sprintf("entry %s: weight of parent %s is NaN; read as 1 (strong)", id(), pid))
				w = 1
			case w < 0 || w > 1:
				pid := b.pids.text(k)
				g.add(CodeWeightRange, finding.SevWarning, []string{id(), pid}, fmt.Sprintf("entry %s: weight %g of parent %s is outside [0,1]; clamped", id(), w, pid))
				w = math.Min(1, math.Max(0, w))
			}
			p := resolved[k]
			if p < 0 {
				pid := b.pids.text(k)
				g.add(CodeDanglingParent, finding.SevWarning, []string{id(), pid}, fmt.Sprintf("entry %s names parent %s, which is not in the store", id(), pid))
				if w > g.danglingW[i] {
					g.danglingW[i] = w
				}
				if g.dangling == nil {
					g.dangling = map[int32][]danglingEdge{}
				}
				g.dangling[int32(i)] = append(g.dangling[int32(i)], danglingEdge{pid, w})
				continue
			}
			if int(p) == i {
				g.add(CodeCycle, finding.SevError, []string{id()}, fmt.Sprintf("entry %s names itself as a parent", id()))
				continue
			}
			if at, dup := findParent(g.parent, g.parentStart[i], p, seen, np); dup {
				pid := b.pids.text(k)
				g.add(CodeDuplicateParent, finding.SevWarning, []string{id(), pid}, fmt.Sprintf("entry %s lists parent %s more than once; the largest weight is kept", id(), pid))
				if w > g.weight[at] {
					g.weight[at] = w
				}
				continue
			}
			if np > linearScanMax {
				seen[p] = len(g.parent)
			}
			g.parent = append(g.parent, p)
			g.weight = append(g.weight, w)
			childCount[p+1]++
		}
	}
	g.parentStart[n] = int32(len(g.parent))
	*b = Builder{}

	// Child CSR by counting sort over the parent lists.
	for i := 1; i <= n; i++ {
		childCount[i] += childCount[i-1]
	}
	g.childStart = childCount
	g.child = make([]int32, len(g.parent))
	g.childEdge = make([]int32, len(g.parent))
	fill := make([]int32, n)
	copy(fill, g.childStart[:n])
	for c := 0; c < n; c++ {
		for e := g.parentStart[c]; e < g.parentStart[c+1]; e++ {
			p := g.parent[e]
			g.child[fill[p]] = int32(c)
			g.childEdge[fill[p]] = e
			fill[p]++
		}
	}

	g.topoSort()
	g.renumber()
	g.buildFindings = append([]finding.Finding(nil), g.findings...)
	return g
}

// renumber permutes every per-node and per-edge array into topological
// order, acyclic nodes first. The gathers write disjoint ranges, so they
// run on every core (at a million entries they were a third of the
// graph's build, on the inspector's way to "verified"); the arrays and
// their order are the same.
func (g *Graph) renumber() {
	n := g.Len()
	perm := append(g.order, g.cyclic...) // new -> old
	g.acyclicN = len(g.order)
	g.order, g.cyclic = nil, nil
	pos := make([]int32, n) // old -> new
	inChunks(n, func(lo, hi int) {
		for nw := lo; nw < hi; nw++ {
			pos[perm[nw]] = int32(nw)
		}
	})
	writers := make([]WriterClass, n)
	recorded := make([]Trust, n)
	dangling := make([]float64, n)
	pstart := make([]int32, n+1)
	k := int32(0)
	for nw, old := range perm {
		pstart[nw] = k
		k += g.parentStart[old+1] - g.parentStart[old]
	}
	pstart[n] = k
	inChunks(n, func(lo, hi int) {
		for nw := lo; nw < hi; nw++ {
			old := perm[nw]
			writers[nw], recorded[nw], dangling[nw] = g.writers[old], g.recorded[old], g.danglingW[old]
		}
	})
	g.writers, g.recorded, g.danglingW = writers, recorded, dangling
	g.ids = g.ids.permute(perm)
	// The edge arrays are permuted one at a time so that only one old
	// array is held beside its new copy.
	parent := make([]int32, len(g.parent))
	inChunks(n, func(lo, hi int) {
		for nw := lo; nw < hi; nw++ {
			old := perm[nw]
			at := pstart[nw]
			for e := g.parentStart[old]; e < g.parentStart[old+1]; e++ {
				parent[at] = pos[g.parent[e]]
				at++
			}
		}
	})
	g.parent = parent
	weight := make([]float64, len(g.weight))
	inChunks(n, func(lo, hi int) {
		for nw := lo; nw < hi; nw++ {
			old := perm[nw]
			copy(weight[pstart[nw]:], g.weight[g.parentStart[old]:g.parentStart[old+1]])
		}
	})
	g.weight = weight
	perm = nil
	g.parentStart = pstart
	inChunks(len(g.sorted), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			g.sorted[j] = pos[g.sorted[j]]
		}
	})
	for s, p := range g.oddIdx {
		g.oddIdx[s] = pos[p]
	}
	g.nodeOf = pos

	cstart := g.childStart
	clear(cstart)
	for _, p := range parent {
		cstart[p+1]++
	}
	for i := 1; i <= n; i++ {
		cstart[i] += cstart[i-1]
	}
	child, cedge := g.child, g.childEdge // reused: same lengths
	fill := make([]int32, n)
	copy(fill, cstart[:n])
	for c := 0; c < n; c++ {
		for e := pstart[c]; e < pstart[c+1]; e++ {
			p := parent[e]
			child[fill[p]], cedge[fill[p]] = int32(c), e
			fill[p]++
		}
	}
}

// inChunks calls fn on consecutive ranges covering [0, n), side by side
// on every core; fn must write only inside its range.
func inChunks(n int, fn func(lo, hi int)) {
	const chunk = 1 << 16
	par.Each((n+chunk-1)/chunk, 0, func(c int) {
		fn(c*chunk, min(n, (c+1)*chunk))
	})
}

// linearScanMax is the parent count up to which duplicate parents are found
// by scanning, which is faster than a map for typical fan-in.
const linearScanMax = 16

func findParent(parents []int32, start int32, p int32, seen map[int32]int, count int) (int, bool) {
	if count > linearScanMax {
		at, ok := seen[p]
		return at, ok
	}
	for k := int(start); k < len(parents); k++ {
		if parents[k] == p {
			return k, true
		}
	}
	return 0, false
}

// resolveParents gives every parent reference of ref (a Builder's parent
// table) its input position, -1 when no entry has that id. The look-ups
// (through an idDirectory, which reads a bucket where a binary search over
// a million keys missed the cache at every level: BenchmarkBuild1MTimeOrdered
// 2.7 CPU-s against 3.3-3.8) are most of Graph's time at a million entries
// and share nothing, so they run on every core, before the serial pass
// that repairs and reports.
func (g *Graph) resolveParents(ref *idTable) []int32 {
	out := make([]int32, len(ref.keys))
	dir := newIDDirectory(g.ids.keys, g.sorted)
	const chunk = 1 << 14
	par.Each((len(out)+chunk-1)/chunk, 0, func(c int) {
		for k := c * chunk; k < min(len(out), (c+1)*chunk); k++ {
			p, ok := g.lookupIn(ref, dir, int32(k))
			if !ok {
				p = -1
			}
			out[k] = p
		}
	})
	return out
}

// lookupIn resolves the parent reference at position k of ref (a
// Builder's parent table) to an input position while building.
func (g *Graph) lookupIn(ref *idTable, dir *idDirectory, k int32) (int32, bool) {
	if s, ok := ref.odd[k]; ok {
		if s == "" {
			return 0, false
		}
		i, ok := g.oddIdx[s]
		return i, ok
	}
	return dir.find(ref.keys[k])
}

func (g *Graph) add(code finding.Code, sev finding.Severity, ids []string, msg string) {
	g.findings = append(g.findings, newFinding(code, sev, ids, msg))
}

// newFinding makes a lineage finding: the subject is the first entry
// involved, Entries lists all of them when there are several.
func newFinding(code finding.Code, sev finding.Severity, ids []string, msg string) finding.Finding {
	f := finding.Finding{Severity: sev, Code: code, Family: finding.FamLineage, Message: msg}
	if len(ids) > 0 {
		f.Subject = ids[0]
	}
	if len(ids) > 1 {
		f.Entries = ids
	}
	return f
}

// topoSort runs Kahn's algorithm (parents first). Nodes left over lie on or
// below a cycle; cycles themselves are reported once per strongly connected
// component.
func (g *Graph) topoSort() {
	n := g.Len()
	indeg := make([]int32, n)
	for c := 0; c < n; c++ {
		indeg[c] = g.parentStart[c+1] - g.parentStart[c]
	}
	order := make([]int32, 0, n)
	for c := 0; c < n; c++ {
		if indeg[c] == 0 {
			order = append(order, int32(c))
		}
	}
	for head := 0; head < len(order); head++ {
		p := order[head]
		for e := g.childStart[p]; e < g.childStart[p+1]; e++ {
			c := g.child[e]
			indeg[c]--
			if indeg[c] == 0 {
				order = append(order, c)
			}
		}
	}
	g.order = order
	if len(order) == n {
		return
	}
	for c := 0; c < n; c++ {
		if indeg[c] > 0 {
			g.cyclic = append(g.cyclic, int32(c))
		}
	}
	for _, scc := range g.cycles() {
		ids := make([]string, len(scc))
		for i, v := range scc {
			ids[i] = g.ids.text(int32(v))
		}
		g.add(CodeCycle, finding.SevError, ids, fmt.Sprintf("derivation cycle through %d entries: %s", len(ids), abbreviateList(ids, 8)))
	}
}

// cycles returns the strongly connected components of size > 1 among the
// leftover nodes, each sorted by index, using an iterative Tarjan so a long
// cycle cannot overflow the stack.
func (g *Graph) cycles() [][]int32 {
	inRest := make(map[int32]bool, len(g.cyclic))
	for _, v := range g.cyclic {
		inRest[v] = true
	}
	index := make(map[int32]int32, len(g.cyclic))
	low := make(map[int32]int32, len(g.cyclic))
	onStack := make(map[int32]bool)
	var stack []int32
	var out [][]int32
	next := int32(0)
	type frame struct {
		v int32
		e int32 // next child edge to look at
	}
	for _, root := range g.cyclic {
		if _, done := index[root]; done {
			continue
		}
		call := []frame{{root, g.childStart[root]}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.e < g.childStart[v+1] {
				w := g.child[f.e]
				f.e++
				if !inRest[w] {
					continue
				}
				if _, seen := index[w]; !seen {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, g.childStart[w]})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				if low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] == index[v] {
				var comp []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				if len(comp) > 1 {
					sort.Slice(comp, func(i, j int) bool { return comp[i] < comp[j] })
					out = append(out, comp)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func abbreviateList(ids []string, max int) string {
	if len(ids) <= max {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:max], ", ") + fmt.Sprintf(", ... (%d more)", len(ids)-max)
}

// node resolves an entry id to its node index.
func (g *Graph) node(id string) (int32, bool) {
	if k, ok := canonicalID(id); ok {
		return g.ids.find(g.sorted, k)
	}
	if id == "" {
		return 0, false
	}
	i, ok := g.oddIdx[id]
	return i, ok
}

// Len is the number of entries.
func (g *Graph) Len() int { return len(g.ids.keys) }

// ID returns the id of node i.
func (g *Graph) ID(i int) string { return g.ids.text(int32(i)) }

// Index returns the node index of an entry id (the first entry if the id is
// duplicated).
func (g *Graph) Index(id string) (int, bool) {
	i, ok := g.node(id)
	return int(i), ok
}

// InputNode is Index of the id of the i-th entry given to Build or the
// Builder, without the search: the node of that id's first entry.
func (g *Graph) InputNode(i int) (int, bool) {
	in := int32(i)
	if f, ok := g.firstOf[in]; ok {
		in = f
	}
	n := g.nodeOf[in]
	if s, odd := g.ids.odd[n]; odd && s == "" {
		return 0, false // nothing names an empty id
	}
	return int(n), true
}

// Writer returns the writer class of node i.
func (g *Graph) Writer(i int) WriterClass { return g.writers[i] }

// Recorded returns the trust label node i was signed with.
func (g *Graph) Recorded(i int) Trust { return g.recorded[i] }

// Edge is one derivation edge seen from one of its ends.
type Edge struct {
	Node   int     `json:"node"` // the other end: the parent in Parents, the child in Children
	Weight float64 `json:"weight"`
}

// Parents returns node c's resolved parent edges (dangling, duplicate and
// self parents removed) in record order.
func (g *Graph) Parents(c int) []Edge {
	s, e := g.parentStart[c], g.parentStart[c+1]
	out := make([]Edge, 0, e-s)
	for k := s; k < e; k++ {
		out = append(out, Edge{Node: int(g.parent[k]), Weight: g.weight[k]})
	}
	return out
}

// Children returns the entries that name node p as a parent, with weights.
func (g *Graph) Children(p int) []Edge {
	s, e := g.childStart[p], g.childStart[p+1]
	out := make([]Edge, 0, e-s)
	for k := s; k < e; k++ {
		out = append(out, Edge{Node: int(g.child[k]), Weight: g.weight[g.childEdge[k]]})
	}
	return out
}

// HasDanglingParent reports whether node c names a parent not in the store.
func (g *Graph) HasDanglingParent(c int) bool { return g.danglingW[c] >= 0 }

// Findings returns the structural findings found by Build, in input order.
func (g *Graph) Findings() []finding.Finding { return g.findings }

// Acyclic reports whether the graph has no cycle.
func (g *Graph) Acyclic() bool { return g.acyclicN == g.Len() }
