package exposure

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/memscope/memscope/internal/analyses/leiden"
	"github.com/memscope/memscope/replay"
)

// maxSeeds caps the seed entities an attacker draws from: HippoRAG2 seeds
// from the top facts, so a handful carry nearly all the reset mass.
const maxSeeds = 8

// qstate is one query's base selections and what the draws need.
type qstate struct {
	e      *env
	k      int
	r      []float64
	rsup   []int32
	seeds  []int32
	pool   []int32 // passages with a stored dense score
	dense  []float64
	hasD   bool
	dTop   []int32 // dense top-k
	rrfTop []int32 // RRF top-k: node-distance's content-fixed pool
	center int32

	ppr *pusher // warm-started PPR on G_auth

	// node-distance: hop distances on G_auth from the center, each pool
	// member and each seed.
	distC  []int32
	distP  map[int32][]int32
	distS  map[int32][]int32
	ndBase []int32

	// Leiden
	comPass map[int32][]int32 // community -> its passages by content score, on G_auth
	ldBase  []int32
}

func (e *env) query(ctx context.Context, qi int, q replay.Query) ([]QueryResult, [][]float64, error) {
	k := q.K
	if k <= 0 {
		k = replay.DefaultK
	}
	r, err := e.g.ResetVector(q.Reset)
	if err != nil {
		return nil, nil, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	s, err := e.newQState(q, k, r)
	if err != nil {
		return nil, nil, err
	}

	out := make([]QueryResult, len(e.opt.Selectors))
	curves := make([][]float64, len(e.opt.Selectors))
	idx := map[string]int{}
	for i, n := range e.opt.Selectors {
		idx[n] = i
		out[i].Query = q.ID
	}
	// Base selections on G and G_auth.
	var pprG, pprA []int32
	if e.wants(PPR) || e.wants(Leiden) && !s.hasD {
		scores, err := e.g.PPR(ctx, r, replay.SolveOptions{Damping: e.opt.Damping}, nil, e.unauth)
		if err != nil {
			return nil, nil, fmt.Errorf("query \"%s\": %w", q.ID, err)
		}
		s.ppr = newPusher(e.adjA, e.opt.Damping, r, scores[1], e.isP, e.passages, k)
		pprA = s.ppr.base()
		pprG = rankBy(e.passages, func(v int32) float64 { return scores[0][v] }, k)
	}
	if i, ok := idx[PPR]; ok {
		out[i].TopKG, out[i].TopKAuth = e.ids(pprG), e.ids(pprA)
		out[i].Class = e.class(pprA, pprG)
		out[i].Baseline = e.ids(s.dTop)
		if s.hasD {
			out[i].SDom = 1 - jaccard(pprA, s.dTop)
		} else {
			out[i].SDomNotCheckable = noDenseScores
		}
	}
	if i, ok := idx[Leiden]; ok {
		onG := s.leidenSelect(e.memG)
		s.comPass = s.communityPassages(e.memA)
		s.ldBase = s.leidenSelect(e.memA)
		out[i].TopKG, out[i].TopKAuth = e.ids(onG), e.ids(s.ldBase)
		out[i].Class = e.class(s.ldBase, onG)
		out[i].Baseline = e.ids(s.dTop)
		if s.hasD {
			out[i].SDom = 1 - jaccard(s.ldBase, s.dTop)
		} else {
			out[i].SDomNotCheckable = noDenseScores
		}
	}
	if i, ok := idx[NodeDistance]; ok {
		dG := e.adjG.bfs(s.center)
		s.distC = e.adjA.bfs(s.center)
		onG := rerankByDistance(s.rrfTop, func(v int32) int32 { return dG[v] })
		s.ndBase = rerankByDistance(s.rrfTop, func(v int32) int32 { return s.distC[v] })
		s.distP, s.distS = map[int32][]int32{}, map[int32][]int32{}
		for _, p := range s.rrfTop {
			s.distP[p] = e.adjA.bfs(p)
		}
		for _, sd := range s.seeds {
			s.distS[sd] = e.adjA.bfs(sd)
		}
		out[i].TopKG, out[i].TopKAuth = e.ids(onG), e.ids(s.ndBase)
		out[i].Class = e.class(s.ndBase, onG)
		out[i].Baseline = e.ids(s.rrfTop)
		out[i].SDom = 1 - jaccard(s.ndBase, s.rrfTop)
	}
	if i, ok := idx[RRF]; ok {
		out[i].TopKG, out[i].TopKAuth = e.ids(s.rrfTop), e.ids(s.rrfTop)
		out[i].Class = e.class(s.rrfTop, s.rrfTop)
	}
	if i, ok := idx[Dense]; ok {
		out[i].TopKG, out[i].TopKAuth = e.ids(s.dTop), e.ids(s.dTop)
		out[i].Class = e.class(s.dTop, s.dTop)
	}
	if !s.hasD {
		for _, n := range []string{Leiden, NodeDistance, RRF, Dense} {
			if i, ok := idx[n]; ok {
				out[i].NotCheckable = noDenseScores
				out[i].SDomNotCheckable = noDenseScores
			}
		}
	}
	if err := s.monteCarlo(ctx, qi, out, idx); err != nil {
		return nil, nil, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	for i, n := range e.opt.Selectors {
		if out[i].NotCheckable == "" {
			if curves[i], out[i].FirstFlip, out[i].Flipped, err = s.curve(ctx, qi, n); err != nil {
				return nil, nil, fmt.Errorf("query \"%s\": %w", q.ID, err)
			}
		}
	}
	return out, curves, nil
}

// newQState prepares a query's selections that do not depend on the
// graph: its reset support and seeds, dense and BM25 rankings, their
// reciprocal-rank fusion and the query's centre node.
func (e *env) newQState(q replay.Query, k int, r []float64) (*qstate, error) {
	s := &qstate{e: e, k: k, r: r}
	nodes := e.g.Nodes()
	for v, m := range r {
		if m > 0 {
			s.rsup = append(s.rsup, int32(v))
		}
	}
	s.seeds = seedsOf(s.rsup, r, func(v int32) bool { return !e.isP[v] })
	if len(s.seeds) == 0 {
		s.seeds = seedsOf(s.rsup, r, func(int32) bool { return true })
	}
	s.dense = make([]float64, len(nodes))
	for id, sc := range q.DenseScores {
		v, ok := e.g.NodeIndex(id)
		if ok && nodes[v].Unread {
			continue // its row was not read: warned about by the loader
		}
		if !ok || !e.isP[v] || math.IsNaN(sc) || math.IsInf(sc, 0) {
			return nil, fmt.Errorf("query \"%s\": dense score for \"%s\", which is not a passage node or not finite", q.ID, id)
		}
		s.dense[v] = sc
		s.pool = append(s.pool, int32(v))
	}
	slices.Sort(s.pool)
	s.hasD = len(s.pool) > 0
	s.dTop = rankBy(s.pool, func(v int32) float64 { return s.dense[v] }, k)
	bmScores := e.bm.scores(q.Text)
	var bmList []int32
	for v := range bmScores {
		bmList = append(bmList, v)
	}
	slices.Sort(bmList)
	denseRank := rankBy(s.pool, func(v int32) float64 { return s.dense[v] }, len(s.pool))
	bmRank := rankBy(bmList, func(v int32) float64 { return bmScores[v] }, len(bmList))
	fused := fuse(denseRank, bmRank)
	var fusedC []int32
	for v := range fused {
		fusedC = append(fusedC, v)
	}
	slices.Sort(fusedC)
	s.rrfTop = rankBy(fusedC, func(v int32) float64 { return fused[v] }, k)
	s.center = centerOf(e.g, q, r)
	return s, nil
}

// seedsOf returns up to maxSeeds reset-support nodes passing keep, by
// reset mass (ties by node order).
func seedsOf(rsup []int32, r []float64, keep func(int32) bool) []int32 {
	var c []int32
	for _, v := range rsup {
		if keep(v) {
			c = append(c, v)
		}
	}
	return rankBy(c, func(v int32) float64 { return r[v] }, maxSeeds)
}

// centerOf is replay's node-distance center: the stored one, else the
// node with the largest reset mass.
func centerOf(g *replay.Graph, q replay.Query, r []float64) int32 {
	if q.Center != "" {
		if i, ok := g.NodeIndex(q.Center); ok {
			return int32(i)
		}
	}
	best := int32(0)
	for v, m := range r {
		if m > r[best] {
			best = int32(v)
		}
	}
	return best
}

// content is the within-community passage order: dense score, then reset
// mass.
func (s *qstate) contentLess(x, y int32) int {
	if s.dense[x] != s.dense[y] {
		if s.dense[x] > s.dense[y] {
			return -1
		}
		return 1
	}
	if s.r[x] != s.r[y] {
		if s.r[x] > s.r[y] {
			return -1
		}
		return 1
	}
	return int(x - y)
}

func (s *qstate) communityPassages(mem []int32) map[int32][]int32 {
	out := map[int32][]int32{}
	for _, v := range s.e.passages {
		out[mem[v]] = append(out[mem[v]], v)
	}
	for _, l := range out {
		slices.SortFunc(l, s.contentLess)
	}
	return out
}

// leidenSelect is community selection: communities ranked by the reset
// mass they hold (the query's seeds decide which communities answer),
// their passages by content score, the first k passages over communities
// that hold any mass.
func (s *qstate) leidenSelect(mem []int32) []int32 {
	return s.leidenSelectFrom(mem, s.communityPassages(mem))
}

func (s *qstate) leidenSelectFrom(mem []int32, comPass map[int32][]int32) []int32 {
	mass := map[int32]float64{}
	for _, v := range s.rsup {
		mass[mem[v]] += s.r[v]
	}
	coms := make([]int32, 0, len(mass))
	for c := range mass {
		coms = append(coms, c)
	}
	slices.Sort(coms)
	coms = rankBy(coms, func(c int32) float64 { return mass[c] }, len(coms))
	var out []int32
	for _, c := range coms {
		for _, v := range comPass[c] {
			if len(out) == s.k {
				return out
			}
			out = append(out, v)
		}
	}
	return out
}

// leidenAfter is the Leiden selection after es are added to G_auth. Full
// mode runs the whole Leiden algorithm (local moving over every node,
// refinement, aggregation, until stable) on G_auth plus es, warm-started
// from G_auth's partition with G_auth's seed: the pass Leiden itself would
// make next on the written graph. Incremental mode re-runs local moving
// from the writes' endpoints only (no refinement, no aggregation).
func (s *qstate) leidenAfter(ctx context.Context, es []extra, seed uint64, mem []int32) []int32 {
	e := s.e
	le := make([]leiden.Edge, len(es))
	var front []int32
	for i, x := range es {
		le[i] = leiden.Edge{A: x.a, B: x.b, Weight: x.w}
		front = append(front, x.a, x.b)
	}
	if e.opt.LeidenMode == LeidenFull {
		g2, err := e.lgA.With(le)
		if err != nil {
			return s.ldBase // draws carry finite positive weights: unreachable
		}
		full, err := leiden.RunFrom(ctx, g2, e.memA, leiden.Options{Seed: e.opt.Seed, Resolution: e.opt.Resolution})
		if err != nil {
			return s.ldBase // cancelled: the caller checks ctx before counting the draw
		}
		return s.leidenSelect(full)
	}
	copy(mem, e.memA)
	if !leiden.MoveFromWith(e.lgA, le, mem, front, e.opt.Resolution, seed) {
		return s.ldBase
	}
	// Rebuild the passage lists of communities that gained or lost nodes.
	comPass := s.comPass
	changed := map[int32]bool{}
	for _, v := range e.passages {
		if mem[v] != e.memA[v] {
			changed[mem[v]], changed[e.memA[v]] = true, true
		}
	}
	if len(changed) > 0 {
		comPass = make(map[int32][]int32, len(s.comPass)+len(changed))
		for c, l := range s.comPass {
			if !changed[c] {
				comPass[c] = l
			}
		}
		for _, v := range e.passages {
			if changed[mem[v]] {
				comPass[mem[v]] = append(comPass[mem[v]], v)
			}
		}
		for c := range changed {
			slices.SortFunc(comPass[c], s.contentLess)
		}
	}
	return s.leidenSelectFrom(mem, comPass)
}

// ndAfter is node-distance's selection after es (all sharing the target t)
// are added: the shortest path from the center to a pool member either
// avoids the new edges, uses one, or crosses t between two seeds.
func (s *qstate) ndAfter(es []extra, t int32) []int32 {
	const inf = math.MaxInt32 / 4
	d := func(dist []int32, v int32) int32 {
		if dist[v] < 0 {
			return inf
		}
		return dist[v]
	}
	used := map[int32]bool{}
	for _, x := range es {
		if x.a != t {
			used[x.a] = true
		}
	}
	dist := func(p int32) int32 {
		best := d(s.distC, p)
		dp := s.distP[p]
		for sd := range used {
			ds := s.distS[sd]
			best = min(best, d(s.distC, sd)+1+d(dp, t), d(s.distC, t)+1+d(ds, p))
			for sd2 := range used {
				best = min(best, d(s.distC, sd)+2+d(s.distS[sd2], p))
			}
		}
		if best >= inf {
			return -1
		}
		return best
	}
	return rerankByDistance(s.rrfTop, dist)
}

// draw makes one bounded write: edges from random seeds to target t.
func (s *qstate) draw(rng *rand.Rand, t int32, n int, w func() float64) []extra {
	es := make([]extra, 0, n)
	for i := 0; i < n; i++ {
		es = append(es, extra{s.seeds[rng.IntN(len(s.seeds))], t, w()})
	}
	return es
}

// wrongTarget picks a passage outside the G_auth PPR selection (or any
// passage when PPR is not run), -1 when there is none.
func (s *qstate) wrongTarget(rng *rand.Rand) int32 {
	ps := s.e.passages
	var base []int32
	if s.ppr != nil {
		base = s.ppr.base()
	}
	if len(ps) <= len(base) {
		return -1
	}
	for {
		t := ps[rng.IntN(len(ps))]
		if !slices.Contains(base, t) {
			return t
		}
	}
}

// evaluate runs every structural selector on G_auth + es; changed[i] and
// reordered[i] are per selector index.
type outcome struct {
	changed, reordered bool
	sel                []int32
	uncertain          bool
}

func (s *qstate) evaluate(ctx context.Context, name string, es []extra, t int32, seed uint64, mem []int32) outcome {
	s.e.evals.Add(1)
	switch name {
	case PPR:
		if s.ppr == nil {
			return outcome{}
		}
		top, unc := s.ppr.solve(es)
		base := s.ppr.base()
		return outcome{changed: !sameSet(top, base), reordered: sameSet(top, base) && !slices.Equal(top, base), sel: top, uncertain: unc}
	case Leiden:
		top := s.leidenAfter(ctx, es, seed, mem)
		return outcome{changed: !sameSet(top, s.ldBase), reordered: sameSet(top, s.ldBase) && !slices.Equal(top, s.ldBase), sel: top}
	case NodeDistance:
		top := s.ndAfter(es, t)
		return outcome{changed: !sameSet(top, s.ndBase), reordered: sameSet(top, s.ndBase) && !slices.Equal(top, s.ndBase), sel: top}
	}
	// RRF and dense read no structure: a structural write leaves them as
	// they are, which is the measurement.
	return outcome{}
}

func (s *qstate) monteCarlo(ctx context.Context, qi int, out []QueryResult, idx map[string]int) error {
	e := s.e
	o := e.opt
	mem := make([]int32, len(e.g.Nodes()))
	evicted := map[int32]int{}
	for bi, budget := range []string{BudgetClean, BudgetHeavy} {
		rng := rand.New(rand.NewPCG(o.Seed, uint64(qi)<<8|uint64(bi)))
		weight := func() float64 { return o.HeavyWeight }
		if budget == BudgetClean {
			weight = func() float64 { return 1 + rng.Float64()*(o.CleanWeight-1) }
		}
		changed := make([]int, len(o.Selectors))
		reordered := make([]int, len(o.Selectors))
		draws := 0
		for d := 0; d < o.Draws; d++ {
			// Every draw: one full Leiden run on a large graph takes
			// seconds, so checking every 64 draws was too coarse.
			if err := ctx.Err(); err != nil {
				return err
			}
			t := s.wrongTarget(rng)
			if t < 0 {
				break
			}
			es := s.draw(rng, t, o.Edges, weight)
			seed := rng.Uint64()
			draws++
			for i, name := range o.Selectors {
				if out[i].NotCheckable != "" {
					continue
				}
				oc := s.evaluate(ctx, name, es, t, seed, mem)
				if oc.changed {
					changed[i]++
				}
				if oc.reordered {
					reordered[i]++
				}
				if oc.uncertain {
					out[i].Uncertain++
				}
				if name == PPR && budget == BudgetHeavy && oc.changed {
					for _, v := range s.ppr.base() {
						if !slices.Contains(oc.sel, v) {
							evicted[v]++
						}
					}
				}
			}
		}
		for i := range o.Selectors {
			if draws == 0 {
				continue
			}
			share := float64(changed[i]) / float64(draws)
			if budget == BudgetHeavy {
				out[i].SAdv = share
				out[i].Reordered = float64(reordered[i]) / float64(draws)
			} else {
				out[i].SAdvClean = share
			}
		}
		if budget == BudgetHeavy && s.ppr != nil {
			if i, ok := idx[PPR]; ok {
				out[i].Targets = s.targets(evicted, draws)
			}
		}
	}
	// The targeted construction: every seed (cycled up to the edge
	// budget) to the best passage just outside the PPR selection.
	if t := s.targetedPassage(); t >= 0 {
		var es []extra
		for j := 0; j < o.Edges; j++ {
			es = append(es, extra{s.seeds[j%len(s.seeds)], t, o.HeavyWeight})
		}
		for i, name := range o.Selectors {
			if out[i].NotCheckable == "" {
				out[i].Targeted = s.evaluate(ctx, name, es, t, o.Seed, mem).changed
			}
		}
	}
	// A cancelled draw above counted nothing real.
	return ctx.Err()
}

// targetedPassage is the best-scoring passage outside the G_auth PPR
// top-k, else the best outside the dense top-k.
func (s *qstate) targetedPassage() int32 {
	if s.ppr != nil {
		if len(s.ppr.order) > s.k {
			return s.ppr.order[s.k]
		}
		return -1
	}
	for _, v := range rankBy(s.pool, func(v int32) float64 { return s.dense[v] }, len(s.pool)) {
		if !slices.Contains(s.dTop, v) {
			return v
		}
	}
	return -1
}

func (s *qstate) targets(evicted map[int32]int, draws int) []Target {
	d := s.e.opt.Damping
	// The same per-query bound replay's Lemma 1 rows use: one rule for
	// EVICTABLE there and anchored here.
	first, second := replay.TopSeeds(s.r)
	var out []Target
	for _, v := range s.ppr.base() {
		t := Target{Node: s.e.g.Nodes()[v].ID, ResetMass: s.r[v], Floor: replay.TeleportFloor(d, s.r[v])}
		bound, _ := replay.CaptureBoundFor(d, s.r, first, second, int(v))
		t.Anchored = !replay.Evictable(t.Floor, bound)
		if draws > 0 {
			t.Evicted = float64(evicted[v]) / float64(draws)
		}
		out = append(out, t)
	}
	slices.SortStableFunc(out, func(a, b Target) int {
		switch {
		case a.Evicted > b.Evicted:
			return -1
		case a.Evicted < b.Evicted:
			return 1
		}
		return 0
	})
	return out
}

// curve is the dose-response: CurveDraws sequences of accumulated
// clean-budget writes against one random wrong passage each; entry n-1 is
// the share of sequences whose selected set differs after n writes. It
// also returns the first flip: the lower median over sequences of the
// number of writes at which the set first changed (0 when fewer than half
// the sequences changed within CurveMax writes), and the share of
// sequences that changed at all within CurveMax.
func (s *qstate) curve(ctx context.Context, qi int, name string) (out []float64, firstFlip int, flipped float64, err error) {
	o := s.e.opt
	out = make([]float64, o.CurveMax)
	if o.CurveDraws == 0 || o.CurveMax == 0 {
		return out, 0, 0, nil
	}
	var firsts []int // per sequence; CurveMax+1: never
	rng := rand.New(rand.NewPCG(o.Seed^0xc0ffee, uint64(qi)))
	mem := make([]int32, len(s.e.g.Nodes()))
	n := 0
	for d := 0; d < o.CurveDraws; d++ {
		t := s.wrongTarget(rng)
		if t < 0 {
			break
		}
		n++
		var es []extra
		seed := rng.Uint64()
		first := o.CurveMax + 1
		for w := 0; w < o.CurveMax; w++ {
			if err := ctx.Err(); err != nil {
				return nil, 0, 0, err
			}
			es = append(es, extra{s.seeds[rng.IntN(len(s.seeds))], t, 1 + rng.Float64()*(o.CleanWeight-1)})
			if s.evaluate(ctx, name, es, t, seed, mem).changed {
				out[w]++
				first = min(first, w+1)
			}
		}
		firsts = append(firsts, first)
	}
	for i := range out {
		if n > 0 {
			out[i] /= float64(n)
		}
	}
	if n > 0 {
		slices.Sort(firsts)
		if med := firsts[(n-1)/2]; med <= o.CurveMax {
			firstFlip = med
		}
		flipped = float64(sort.SearchInts(firsts, o.CurveMax+1)) / float64(n)
	}
	return out, firstFlip, flipped, ctx.Err()
}

// noDenseScores is why a dense-based measure is not checkable on a query.
const noDenseScores = "the query stores no dense scores"
