// Package equimem scores structural writes with EquiMem's provenance-free
// detection signal for graph memory ("EquiMem: Calibrating Shared Memory in
// Multi-Agent Debate via Game-Theoretic Equilibrium", arXiv:2605.09278,
// section 4 and appendix C.6): for a new edge e = (u, r, v),
//
//	s_local(e) = share of u's existing out-edges whose relation is compatible with r
//	s_path(e)  = share of the existing u..v paths (bidirectional BFS up to
//	             depth max(2, ceil(ln |V|))) whose relations are all compatible with r
//	rho(e)     = alpha s_local + (1 - alpha) s_path
//
// with alpha the share of the round's edges that have at least one path
// (0.5 on an empty memory, the paper's cold start). Where the paper scores
// a round's delta against the memory before the round, this scores each
// write against every write before it, so a store ingested as one long
// round is not scored against an empty memory throughout. compat(r) holds the
// relations whose co-occurrence score with r (PMI-normalised counts of
// nodes having out-edges of both types) reaches the median score.
//
// The score is a triage signal only: AuthSelect (arXiv:2606.12290) shows
// that write provenance, not structure or weight, separates attack writes
// from clean ones, so a low score is a lead and a high score clears
// nothing. It is pure analysis: no terminal code.
package equimem

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"
)

// Write is one structural write in store order.
type Write struct {
	ID       string
	Src, Dst string
	Rel      string
	Writer   string
}

// Score is one write's signal.
type Score struct {
	ID     string
	SLocal float64
	SPath  float64
	Alpha  float64 // of the write's round
	Rho    float64
	Paths  int // u..v paths found (capped at MaxPaths)
	Depth  int // the BFS depth bound used
	// Truncated: the BFS hit its node budget, so paths may be missing.
	Truncated bool
	Round     int // index of the round (consecutive writes of one writer)
}

// Options bound the work. Zero values take the defaults.
type Options struct {
	MaxPaths  int // paths enumerated per edge (default 64)
	MaxVisits int // nodes one BFS may visit (default 20000)
	// Nodes is |V| for the depth bound; 0 counts the nodes the writes name.
	Nodes int
}

const eps = 1e-9

type half struct {
	to  int32
	rel int32
}

// graph is the memory M_t as writes accumulate.
type graph struct {
	ids  map[string]int32
	adj  [][]half         // undirected, for paths
	out  [][]int32        // relation of each out-edge, per node
	has  []map[int32]bool // relations a node has out-edges of
	c    map[[2]int32]int // c(r, r'): nodes with out-edges of both
	rels map[string]int32 //
	name []string         // relation names
	bfs  [2]bfsSide       // paths' scratch, reused across calls
}

// pathPred is one BFS predecessor: the node reached from and the relation.
type pathPred struct {
	from int32
	rel  int32
}

// bfsSide is one direction of paths' bidirectional BFS. Nodes are marked
// seen by stamping the call's epoch, so a call costs what it visits, not
// what earlier calls allocated (per-call maps dominated the profile on a
// 5,160-write real store).
type bfsSide struct {
	stamp []uint32
	dist  []int32
	preds [][]pathPred
	epoch uint32
}

func (b *bfsSide) reset(n int) {
	if len(b.stamp) < n {
		b.stamp = append(b.stamp, make([]uint32, n-len(b.stamp))...)
		b.dist = append(b.dist, make([]int32, n-len(b.dist))...)
		b.preds = append(b.preds, make([][]pathPred, n-len(b.preds))...)
	}
	b.epoch++
	if b.epoch == 0 { // wrapped: clear the stamps once
		clear(b.stamp)
		b.epoch = 1
	}
}

func (b *bfsSide) get(x int32) (int, bool) {
	if b.stamp[x] != b.epoch {
		return 0, false
	}
	return int(b.dist[x]), true
}

func (b *bfsSide) set(x int32, d int) {
	b.stamp[x], b.dist[x], b.preds[x] = b.epoch, int32(d), b.preds[x][:0]
}

func (b *bfsSide) predsOf(x int32) []pathPred {
	if b.stamp[x] != b.epoch {
		return nil
	}
	return b.preds[x]
}

func (g *graph) node(id string) int32 {
	if v, ok := g.ids[id]; ok {
		return v
	}
	v := int32(len(g.adj))
	g.ids[id] = v
	g.adj = append(g.adj, nil)
	g.out = append(g.out, nil)
	g.has = append(g.has, nil)
	return v
}

func (g *graph) rel(name string) int32 {
	if r, ok := g.rels[name]; ok {
		return r
	}
	r := int32(len(g.name))
	g.rels[name] = r
	g.name = append(g.name, name)
	return r
}

func (g *graph) add(u, v, r int32) {
	g.adj[u] = append(g.adj[u], half{v, r})
	if u != v {
		g.adj[v] = append(g.adj[v], half{u, r})
	}
	g.out[u] = append(g.out[u], r)
	if g.has[u] == nil {
		g.has[u] = map[int32]bool{}
	}
	if !g.has[u][r] {
		g.has[u][r] = true
		for r2 := range g.has[u] {
			g.c[[2]int32{r, r2}]++
			if r2 != r {
				g.c[[2]int32{r2, r}]++
			}
		}
	}
}

// compat returns compat(r) over the relations seen so far; nil means every
// relation (cold start, or r never seen).
func (g *graph) compat(r int32, nodes int) map[int32]bool {
	R := int32(len(g.name))
	marg := make([]float64, R)
	for k, n := range g.c {
		marg[k[0]] += float64(n)
	}
	if len(g.c) == 0 || marg[r] == 0 {
		return nil
	}
	cooc := func(a, b int32) float64 {
		if marg[a] == 0 || marg[b] == 0 {
			return 0
		}
		return float64(g.c[[2]int32{a, b}]) / (marg[a] * marg[b] / float64(nodes))
	}
	var all []float64
	for a := int32(0); a < R; a++ {
		for b := int32(0); b < R; b++ {
			if marg[a] > 0 && marg[b] > 0 {
				all = append(all, cooc(a, b))
			}
		}
	}
	sort.Float64s(all)
	tau := median(all)
	out := map[int32]bool{}
	for b := int32(0); b < R; b++ {
		if marg[b] > 0 && cooc(r, b) >= tau {
			out[b] = true
		}
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// Depth is the BFS depth bound max(2, ceil(ln |V|)).
func Depth(nodes int) int {
	if nodes < 2 {
		return 2
	}
	return max(2, int(math.Ceil(math.Log(float64(nodes)))))
}

// Analyze scores every write against the memory formed by every write
// before it; alpha is shared by the write's round, a run of consecutive
// writes by one writer (0.5 when the whole round met an empty memory).
// A cancelled ctx ends it with ctx's error (checked every few hundred
// writes: each write costs at most MaxVisits path steps).
func Analyze(ctx context.Context, writes []Write, opt Options) ([]Score, error) {
	if opt.MaxPaths == 0 {
		opt.MaxPaths = 64
	}
	if opt.MaxVisits == 0 {
		opt.MaxVisits = 20000
	}
	nodes := opt.Nodes
	if nodes == 0 {
		seen := map[string]bool{}
		for _, w := range writes {
			seen[w.Src], seen[w.Dst] = true, true
		}
		nodes = len(seen)
	}
	depth := Depth(nodes)
	g := &graph{ids: map[string]int32{}, c: map[[2]int32]int{}, rels: map[string]int32{}}
	out := make([]Score, len(writes))
	round := 0
	for start := 0; start < len(writes); round++ {
		end := start + 1
		for end < len(writes) && writes[end].Writer == writes[start].Writer {
			end++
		}
		withPath := 0
		cold := true
		for i := start; i < end; i++ {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			w := writes[i]
			u, v, r := g.node(w.Src), g.node(w.Dst), g.rel(w.Rel)
			comp := g.compat(r, nodes)
			ok := func(x int32) bool { return comp == nil || comp[x] }
			sc := Score{ID: w.ID, Depth: depth, Round: round}
			if n := len(g.out[u]); n > 0 {
				good := 0
				for _, x := range g.out[u] {
					if ok(x) {
						good++
					}
				}
				sc.SLocal = float64(good) / (float64(n) + eps)
			}
			paths, trunc := g.paths(u, v, depth, opt.MaxPaths, opt.MaxVisits)
			sc.Paths, sc.Truncated = len(paths), trunc
			if len(paths) > 0 {
				withPath++
				good := 0
				for _, p := range paths {
					all := true
					for _, x := range p {
						all = all && ok(x)
					}
					if all {
						good++
					}
				}
				sc.SPath = float64(good) / float64(len(paths))
			}
			out[i] = sc
			cold = cold && len(g.c) == 0
			// Later writes of the round meet this one: a forensic store is
			// one long ingestion, and scoring it all against an empty
			// memory would make every early write look alike.
			g.add(u, v, r)
		}
		alpha := float64(withPath) / float64(end-start)
		if cold {
			alpha = 0.5
		}
		for i := start; i < end; i++ {
			out[i].Alpha = alpha
			out[i].Rho = alpha*out[i].SLocal + (1-alpha)*out[i].SPath
		}
		start = end
	}
	return out, nil
}

// paths returns the relation sequences of the shortest u..v paths of
// length <= depth (at most maxPaths), found by bidirectional BFS: the two
// frontiers grow alternately, smaller first, until they meet.
func (g *graph) paths(u, v int32, depth, maxPaths, maxVisits int) ([][]int32, bool) {
	if u == v {
		return nil, false
	}
	side := &g.bfs
	for s, start := range [2]int32{u, v} {
		side[s].reset(len(g.adj))
		side[s].set(start, 0)
	}
	front := [2][]int32{{u}, {v}}
	level := [2]int{}
	visits := 2
	var meet []int32
	for level[0]+level[1] < depth && len(meet) == 0 {
		s := 0
		if len(front[1]) < len(front[0]) {
			s = 1
		}
		if len(front[s]) == 0 {
			s = 1 - s
			if len(front[s]) == 0 {
				break
			}
		}
		var next []int32
		for _, x := range front[s] {
			for _, h := range g.adj[x] {
				d, seen := side[s].get(h.to)
				if !seen {
					if visits >= maxVisits {
						return nil, true
					}
					visits++
					side[s].set(h.to, level[s]+1)
					next = append(next, h.to)
					d = level[s] + 1
				}
				if d == level[s]+1 {
					side[s].preds[h.to] = append(side[s].preds[h.to], pathPred{x, h.rel})
				}
			}
		}
		level[s]++
		front[s] = next
		for _, x := range next {
			if _, ok := side[1-s].get(x); ok {
				meet = append(meet, x)
			}
		}
	}
	// Keep the meeting nodes on shortest paths only.
	best := math.MaxInt
	distSum := func(m int32) int {
		a, _ := side[0].get(m)
		b, _ := side[1].get(m)
		return a + b
	}
	for _, m := range meet {
		best = min(best, distSum(m))
	}
	meet = slices.DeleteFunc(meet, func(m int32) bool { return distSum(m) != best })
	slices.Sort(meet)
	// Enumerate: u ~> m forwards, m ~> v backwards, relation sequences.
	var out [][]int32
	var walk func(side int, x int32, acc []int32, emit func([]int32))
	walk = func(side int, x int32, acc []int32, emit func([]int32)) {
		if len(out) >= maxPaths {
			return
		}
		ps := g.bfs[side].predsOf(x)
		if len(ps) == 0 {
			emit(acc)
			return
		}
		for _, p := range ps {
			walk(side, p.from, append(acc, p.rel), emit)
		}
	}
	for _, m := range meet {
		var left [][]int32
		walk(0, m, nil, func(a []int32) {
			if len(left) < maxPaths {
				left = append(left, slices.Clone(a))
			}
		})
		walk(1, m, nil, func(b []int32) {
			for _, a := range left {
				if len(out) >= maxPaths {
					return
				}
				p := slices.Clone(a)
				slices.Reverse(p)
				out = append(out, append(p, b...))
			}
		})
	}
	return out, false
}

// Triage ranks writes most suspicious first (lowest rho, ties by store
// order) and counts how many of the culprits land in the top decile
// (ceil(n/10) writes).
type Triage struct {
	Order      []string // write ids, lowest rho first
	TopDecile  int      // size of the top decile
	Culprits   int      // culprits among the scored writes
	InDecile   int      // culprits ranked in the top decile
	DecileHits []string // those culprits
}

// Rank builds the triage of scores against a culprit set.
func Rank(scores []Score, culprits map[string]bool) Triage {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[a].Rho, scores[b].Rho) })
	t := Triage{TopDecile: (len(scores) + 9) / 10}
	for rank, i := range idx {
		id := scores[i].ID
		t.Order = append(t.Order, id)
		if culprits[id] {
			t.Culprits++
			if rank < t.TopDecile {
				t.InDecile++
				t.DecileHits = append(t.DecileHits, id)
			}
		}
	}
	return t
}
