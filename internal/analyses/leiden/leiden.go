// Package leiden finds communities of a weighted undirected graph with the
// Leiden algorithm (Traag, Waltman and van Eck, "From Louvain to Leiden:
// guaranteeing well-connected communities", arXiv:1810.08473), optimising
// modularity with a resolution parameter. It is the community selector of
// AuthSelect's (arXiv:2606.12290) second accumulable mechanism (Graphiti's community search).
//
// The implementation follows the paper's pseudo-code: fast local moving
// with a queue, refinement of each community by merging well-connected
// singletons into well-connected sub-communities, aggregation of the refined
// partition with the unrefined one as the aggregate's starting partition,
// repeated until local moving changes nothing. Refinement is greedy (the
// paper's randomness parameter theta -> 0): every choice is the best gain,
// ties broken by community order, so a seed fixes the result exactly.
package leiden

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Edge is one undirected weighted edge. Parallel edges add their weights.
type Edge struct {
	A, B   int32
	Weight float64
}

// Graph is a weighted undirected graph in CSR form. A self-loop of weight w
// counts 2w in its node's degree and w in the internal weight, as in the
// usual modularity definition.
type Graph struct {
	n      int
	off    []int32
	col    []int32
	w      []float64
	self   []float64 // self-loop weight per node
	degree []float64 // weighted degree: incident weight, self-loops twice
	total  float64   // sum of degrees (2m)
}

// NewGraph builds the CSR of n nodes. Edges with weight 0 are ignored;
// negative, NaN or infinite weights and out-of-range endpoints are errors.
func NewGraph(n int, edges []Edge) (*Graph, error) {
	if n < 0 || n > math.MaxInt32-1 || 2*len(edges) > math.MaxInt32-1 {
		return nil, fmt.Errorf("leiden: graph too large (%d nodes, %d edges)", n, len(edges))
	}
	g := &Graph{n: n, off: make([]int32, n+1), self: make([]float64, n), degree: make([]float64, n)}
	for i, e := range edges {
		if e.A < 0 || int(e.A) >= n || e.B < 0 || int(e.B) >= n {
			return nil, fmt.Errorf("leiden: edge %d (%d-%d) names a node outside 0..%d", i, e.A, e.B, n-1)
		}
		if math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) || e.Weight < 0 {
			return nil, fmt.Errorf("leiden: edge %d has weight %v", i, e.Weight)
		}
		if e.Weight == 0 {
			continue
		}
		if e.A == e.B {
			g.self[e.A] += e.Weight
			g.degree[e.A] += 2 * e.Weight
			continue
		}
		g.off[e.A+1]++
		g.off[e.B+1]++
		g.degree[e.A] += e.Weight
		g.degree[e.B] += e.Weight
	}
	for v := 0; v < n; v++ {
		g.off[v+1] += g.off[v]
		g.total += g.degree[v]
	}
	g.col = make([]int32, g.off[n])
	g.w = make([]float64, g.off[n])
	fill := append([]int32(nil), g.off[:n]...)
	for _, e := range edges {
		if e.Weight == 0 || e.A == e.B {
			continue
		}
		g.col[fill[e.A]], g.w[fill[e.A]] = e.B, e.Weight
		fill[e.A]++
		g.col[fill[e.B]], g.w[fill[e.B]] = e.A, e.Weight
		fill[e.B]++
	}
	return g, nil
}

// N is the number of nodes.
func (g *Graph) N() int { return g.n }

// Degree is a node's weighted degree.
func (g *Graph) Degree(v int32) float64 { return g.degree[v] }

// Neighbors calls fn for every CSR entry of v (parallel edges separately).
func (g *Graph) Neighbors(v int32, fn func(u int32, w float64)) {
	for p := g.off[v]; p < g.off[v+1]; p++ {
		fn(g.col[p], g.w[p])
	}
}

// cancelEvery is how many node visits pass between two checks of the
// context: a check costs a lock, a visit a pass over the node's edges.
const cancelEvery = 4096

// Options tune a run. Zero values take the defaults.
type Options struct {
	Resolution float64 // gamma; 0 means 1 (standard modularity)
	Seed       uint64  // fixes the node visiting order
	MaxLevels  int     // aggregation levels; 0 means 32
	// Iterations reruns the algorithm from its own result, which can only
	// keep or improve the partition. 0 reruns until the partition stops
	// changing, at most 10 times.
	Iterations int
}

// Modularity of a membership on g: sum over communities of
// L_c/m - gamma (K_c/2m)^2, L_c the internal weight, K_c the total degree.
func Modularity(g *Graph, member []int32, gamma float64) float64 {
	if gamma == 0 {
		gamma = 1
	}
	if g.total == 0 {
		return 0
	}
	in := map[int32]float64{}
	tot := map[int32]float64{}
	for v := int32(0); int(v) < g.n; v++ {
		c := member[v]
		tot[c] += g.degree[v]
		in[c] += 2 * g.self[v]
		for p := g.off[v]; p < g.off[v+1]; p++ {
			if member[g.col[p]] == c {
				in[c] += g.w[p]
			}
		}
	}
	var q float64
	for c, k := range tot {
		q += in[c]/g.total - gamma*(k/g.total)*(k/g.total)
	}
	return q
}

// Run returns a community id per node (0..C-1, numbered by first node).
// A cancelled ctx ends it with ctx's error.
func Run(ctx context.Context, g *Graph, opt Options) ([]int32, error) {
	return RunFrom(ctx, g, singletons(g.n), opt)
}

// RunFrom is Run starting from the partition start (one community id per
// node, any ids below N) instead of singletons: the Leiden paper's own
// iteration, in which each pass of local moving, refinement and
// aggregation starts from the previous pass's result. start is not
// changed. A start that is already a fixed point comes back unchanged
// (renumbered by first node). A cancelled ctx ends it with ctx's error: it
// is checked every few thousand node visits, so a run on a large graph
// stops within a fraction of a second.
func RunFrom(ctx context.Context, g *Graph, start []int32, opt Options) ([]int32, error) {
	if len(start) != g.n {
		return nil, fmt.Errorf("leiden: start partition has %d nodes, graph %d", len(start), g.n)
	}
	for v, c := range start {
		if c < 0 || int(c) >= g.n {
			return nil, fmt.Errorf("leiden: node %d is in community %d, outside 0..%d", v, c, g.n-1)
		}
	}
	if opt.Resolution == 0 {
		opt.Resolution = 1
	}
	if opt.MaxLevels == 0 {
		opt.MaxLevels = 32
	}
	untilStable := opt.Iterations == 0
	if untilStable {
		opt.Iterations = 10
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x1e1de9))
	part := append([]int32(nil), start...)
	renumber(part)
	for it := 0; it < opt.Iterations; it++ {
		next, err := runOnce(ctx, g, part, opt, rng)
		if err != nil {
			return nil, err
		}
		same := slices.Equal(next, part)
		part = next
		if untilStable && same {
			break
		}
	}
	return part, nil
}

// With returns g plus extra edges as a new graph (g is not changed): the
// graph a Monte Carlo draw's writes make, for a full Leiden run on it.
func (g *Graph) With(extra []Edge) (*Graph, error) {
	es := make([]Edge, 0, len(g.col)/2+g.n+len(extra))
	for v := int32(0); int(v) < g.n; v++ {
		if g.self[v] != 0 {
			es = append(es, Edge{A: v, B: v, Weight: g.self[v]})
		}
		for p := g.off[v]; p < g.off[v+1]; p++ {
			if u := g.col[p]; u > v {
				es = append(es, Edge{A: v, B: u, Weight: g.w[p]})
			}
		}
	}
	return NewGraph(g.n, append(es, extra...))
}

func runOnce(ctx context.Context, g *Graph, start []int32, opt Options, rng *rand.Rand) ([]int32, error) {
	// flat[v] is the aggregate node holding original node v.
	flat := make([]int32, g.n)
	for i := range flat {
		flat[i] = int32(i)
	}
	cur := g
	part := append([]int32(nil), start...)
	for level := 0; level < opt.MaxLevels; level++ {
		moveNodesFast(ctx, cur, part, opt.Resolution, rng, nil, nil)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if countCommunities(part) == cur.n {
			break
		}
		refined := refine(ctx, cur, part, opt.Resolution, rng)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		nr := renumber(refined)
		agg, aggPart := aggregate(cur, refined, nr, part)
		for v := range flat {
			flat[v] = refined[flat[v]]
		}
		cur, part = agg, aggPart
	}
	out := make([]int32, g.n)
	for v := range out {
		out[v] = part[flat[v]]
	}
	renumber(out)
	return out, nil
}

// MoveFrom runs fast local moving on g starting from member (which it
// changes in place), visiting only the frontier nodes and, as they move,
// their neighbours: the dynamic-frontier update of an existing partition
// after a few edges changed. It returns whether any node moved.
func MoveFrom(g *Graph, member []int32, frontier []int32, gamma float64, seed uint64) bool {
	return MoveFromWith(g, nil, member, frontier, gamma, seed)
}

// MoveFromWith is MoveFrom on g plus a few extra edges, without copying g:
// the Monte Carlo of the exposure estimate adds a handful of writes to a
// large graph thousands of times. Self-loops and zero weights in extra are
// ignored.
func MoveFromWith(g *Graph, extra []Edge, member []int32, frontier []int32, gamma float64, seed uint64) bool {
	if gamma == 0 {
		gamma = 1
	}
	rng := rand.New(rand.NewPCG(seed, 0x1e1de9))
	var ov *overlay
	if len(extra) > 0 {
		ov = &overlay{adj: map[int32][]nbr{}, deg: map[int32]float64{}}
		for _, e := range extra {
			if e.A == e.B || !(e.Weight > 0) || math.IsInf(e.Weight, 0) {
				continue
			}
			ov.adj[e.A] = append(ov.adj[e.A], nbr{e.B, e.Weight})
			ov.adj[e.B] = append(ov.adj[e.B], nbr{e.A, e.Weight})
			ov.deg[e.A] += e.Weight
			ov.deg[e.B] += e.Weight
			ov.total += 2 * e.Weight
		}
	}
	// A draw's few edges move few nodes: the caller checks its context
	// between draws.
	return moveNodesFast(context.Background(), g, member, gamma, rng, frontier, ov)
}

type nbr struct {
	u int32
	w float64
}

// overlay is a few extra edges on top of a Graph.
type overlay struct {
	adj   map[int32][]nbr
	deg   map[int32]float64
	total float64
}

func singletons(n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	return p
}

func countCommunities(p []int32) int {
	seen := map[int32]bool{}
	for _, c := range p {
		seen[c] = true
	}
	return len(seen)
}

// renumber maps community ids to 0..C-1 in order of first appearance and
// returns C.
func renumber(p []int32) int {
	m := map[int32]int32{}
	for i, c := range p {
		id, ok := m[c]
		if !ok {
			id = int32(len(m))
			m[c] = id
		}
		p[i] = id
	}
	return len(m)
}

// moveNodesFast is the Leiden paper's MoveNodesFast: visit nodes from a
// queue in random order, move each to the neighbouring community (or an
// empty one) with the largest positive modularity gain, and queue the
// neighbours that are not in the new community. frontier nil queues every
// node. Community ids must be < n. It returns early, with member a valid
// partition, once ctx is cancelled (the caller checks ctx).
func moveNodesFast(ctx context.Context, g *Graph, member []int32, gamma float64, rng *rand.Rand, frontier []int32, ov *overlay) bool {
	n := g.n
	total := g.total
	degree := func(v int32) float64 { return g.degree[v] }
	if ov != nil {
		total += ov.total
		degree = func(v int32) float64 { return g.degree[v] + ov.deg[v] }
	}
	if n == 0 || total == 0 {
		return false
	}
	tot, size, empty := communityTotals(g, member, ov)
	queue, inQ := moveQueue(n, frontier, rng)
	wTo := make([]float64, n)
	var touched []int32
	moved := false
	for head := 0; head < len(queue); head++ {
		if head%cancelEvery == 0 && ctx.Err() != nil {
			return moved
		}
		v := queue[head]
		inQ[v] = false
		old := member[v]
		kv := degree(v)
		touched = touched[:0]
		for p := g.off[v]; p < g.off[v+1]; p++ {
			c := member[g.col[p]]
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c] += g.w[p]
		}
		var extra []nbr
		if ov != nil {
			extra = ov.adj[v]
		}
		for _, e := range extra {
			c := member[e.u]
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c] += e.w
		}
		// Take v out of its community, then find the best place for it: a
		// neighbouring community or an empty one (gain 0).
		tot[old] -= kv
		size[old]--
		if size[old] == 0 {
			empty = append(empty, old)
		}
		best, bestGain := old, wTo[old]-gamma*kv*tot[old]/total
		for _, c := range touched {
			if c == old {
				continue
			}
			if gain := wTo[c] - gamma*kv*tot[c]/total; gain > bestGain+1e-12 {
				best, bestGain = c, gain
			}
		}
		if bestGain < -1e-12 {
			// Alone is better than anywhere. Some id is free (v is in no
			// community now); the stack may hold ids that filled up again.
			for {
				e := empty[len(empty)-1]
				empty = empty[:len(empty)-1]
				if size[e] == 0 {
					best = e
					break
				}
			}
		}
		member[v] = best
		tot[best] += kv
		size[best]++
		if best != old {
			moved = true
			for p := g.off[v]; p < g.off[v+1]; p++ {
				u := g.col[p]
				if member[u] != best && !inQ[u] {
					inQ[u] = true
					queue = append(queue, u)
				}
			}
			for _, e := range extra {
				if member[e.u] != best && !inQ[e.u] {
					inQ[e.u] = true
					queue = append(queue, e.u)
				}
			}
		}
		for _, c := range touched {
			wTo[c] = 0
		}
	}
	return moved
}

// communityTotals answers each community id's total degree (with the
// overlay's) and size, and the ids no node holds (highest first, so the
// lowest is taken first).
func communityTotals(g *Graph, member []int32, ov *overlay) (tot []float64, size []int32, empty []int32) {
	n := g.n
	tot = make([]float64, n)
	size = make([]int32, n)
	for v := 0; v < n; v++ {
		tot[member[v]] += g.degree[v]
		size[member[v]]++
	}
	if ov != nil {
		for v, d := range ov.deg {
			tot[member[v]] += d
		}
	}
	for c := n - 1; c >= 0; c-- {
		if size[c] == 0 {
			empty = append(empty, int32(c))
		}
	}
	return tot, size, empty
}

// moveQueue is the shuffled queue of nodes to visit (every node, or the
// frontier without repeats) and which nodes are in it.
func moveQueue(n int, frontier []int32, rng *rand.Rand) ([]int32, []bool) {
	queue := make([]int32, 0, n)
	inQ := make([]bool, n)
	if frontier == nil {
		queue = append(queue, singletons(n)...)
	} else {
		for _, v := range frontier {
			if !inQ[v] {
				queue = append(queue, v)
				inQ[v] = true
			}
		}
	}
	rng.Shuffle(len(queue), func(i, j int) { queue[i], queue[j] = queue[j], queue[i] })
	for _, v := range queue {
		inQ[v] = true
	}
	return queue, inQ
}

// refine is the Leiden paper's RefinePartition with greedy merging: start
// from singletons and, within each community of part, merge well-connected
// singleton nodes into well-connected sub-communities with the best gain.
func refine(ctx context.Context, g *Graph, part []int32, gamma float64, rng *rand.Rand) []int32 {
	n := g.n
	ref := singletons(n)
	refTot := append([]float64(nil), g.degree...)
	refSize := make([]int32, n)
	for i := range refSize {
		refSize[i] = 1
	}
	// Weight from each node to the rest of its (unrefined) community, and
	// each community's total degree.
	commTot := make([]float64, n)
	for v := 0; v < n; v++ {
		commTot[part[v]] += g.degree[v]
	}
	toComm := make([]float64, n) // E(v, S - v)
	for v := 0; v < n; v++ {
		for p := g.off[v]; p < g.off[v+1]; p++ {
			if part[g.col[p]] == part[v] {
				toComm[v] += g.w[p]
			}
		}
	}
	// refExt[c] = E(C, S - C) for refined community c, kept as nodes merge.
	refExt := append([]float64(nil), toComm...)
	order := singletons(n)
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	wTo := make([]float64, n)
	var touched []int32
	for i, v := range order {
		if i%cancelEvery == 0 && ctx.Err() != nil {
			return ref // partial; the caller checks ctx and drops it
		}
		S := part[v]
		kv := g.degree[v]
		// Only well-connected nodes that are still singletons move.
		if refSize[ref[v]] != 1 || toComm[v] < gamma*kv*(commTot[S]-kv)/g.total-1e-12 {
			continue
		}
		touched = touched[:0]
		for p := g.off[v]; p < g.off[v+1]; p++ {
			u := g.col[p]
			if part[u] != S {
				continue
			}
			c := ref[u]
			if wTo[c] == 0 {
				touched = append(touched, c)
			}
			wTo[c] += g.w[p]
		}
		own := ref[v]
		best, bestGain := own, math.Inf(-1)
		for _, c := range touched {
			if c == own {
				continue
			}
			// Target sub-communities must be well connected to S themselves.
			if refExt[c] < gamma*refTot[c]*(commTot[S]-refTot[c])/g.total-1e-12 {
				continue
			}
			gain := wTo[c] - gamma*kv*refTot[c]/g.total
			if gain > bestGain+1e-12 || math.Abs(gain-bestGain) <= 1e-12 && c < best {
				best, bestGain = c, gain
			}
		}
		if best != own && bestGain >= -1e-12 {
			// E(C', S-C') after v joins: v's links into C' become internal.
			refExt[best] += toComm[v] - 2*wTo[best]
			refTot[best] += kv
			refSize[best]++
			refSize[own]--
			refTot[own] -= kv
			ref[v] = best
		}
		for _, c := range touched {
			wTo[c] = 0
		}
	}
	return ref
}

// aggregate collapses each refined community to one node; the aggregate's
// starting partition puts it in the unrefined community that contains it.
func aggregate(g *Graph, ref []int32, nr int, part []int32) (*Graph, []int32) {
	aggPart := make([]int32, nr)
	type key struct{ a, b int32 }
	sum := map[key]float64{}
	self := make([]float64, nr)
	for v := 0; v < g.n; v++ {
		a := ref[v]
		aggPart[a] = part[v]
		self[a] += g.self[v]
		for p := g.off[v]; p < g.off[v+1]; p++ {
			b := ref[g.col[p]]
			if a == b {
				self[a] += g.w[p] / 2 // each internal edge is seen from both ends
				continue
			}
			if a < b {
				sum[key{a, b}] += g.w[p]
			}
		}
	}
	edges := make([]Edge, 0, len(sum)+nr)
	for k, w := range sum {
		edges = append(edges, Edge{k.a, k.b, w})
	}
	// Map iteration order is random: sort so CSR order, and with it the
	// result, depends only on the seed.
	sortEdges(edges)
	for v, w := range self {
		if w > 0 {
			edges = append(edges, Edge{int32(v), int32(v), w})
		}
	}
	agg, _ := NewGraph(nr, edges)
	// Community ids of the aggregate must be < nr.
	renumber(aggPart)
	return agg, aggPart
}

func sortEdges(es []Edge) {
	slices.SortFunc(es, func(x, y Edge) int {
		if c := cmp.Compare(x.A, y.A); c != 0 {
			return c
		}
		return cmp.Compare(x.B, y.B)
	})
}
