package replay

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// A culprit test asks one question of G minus a set S of candidate writes:
// is the top-k exactly the G_auth selection? The views tested differ from
// a solved view (G itself, or G_auth) by a few edges, and a removed or
// restored edge changes the walk only in the columns of its endpoints. So
// the residual of the solved scores under the tested view sits next to
// those endpoints, and local pushes (Andersen, Chung and Lang's forward
// push, signed) drain it without sweeping the graph. Because the walk is
// undirected it is reversible (s_u pi_u(v) = s_v pi_v(u)), so when every
// residual is at most eps times its node's strength the error of the score
// at v is at most eps s_v / (1 - d): tight for the low-strength passages
// the question is about. The push stops as soon as the answer is certain
// either way; a tie it cannot decide finishes with the sweeps of
// selectFrom, warm-started from the pushed scores.

// pushBase is a solved view a culprit test starts from, with its exact
// residual (computed once per row, so the bound covers the solve's own
// error too).
type pushBase struct {
	gone  []uint64  // edges the view removes (nil: none)
	x     []float64 // the view's normalised scores
	res   []float64 // residual of x on the view
	str   []float64 // strength per node on the view
	eps0  float64   // max |res|/strength over nodes with strength
	dang0 float64   // summed |res| of nodes without strength
	maxPS float64   // largest passage strength on the view
	order []int32   // passages by x, best first (ties by node order)
}

// newPushBases builds the bases of two views of G (vs[j] with the edges in
// gone[j] removed, nil: none; strengths str[j]; solved scores x[j]). The
// residuals cost one pass over the graph for both, like a fused sweep
// that does not move the scores.
func (g *Graph) newPushBases(r []float64, d float64, x [2][]float64, vs [2]*view, gone [2][]uint64, str [2][]float64) [2]*pushBase {
	var bs [2]*pushBase
	var c [2]float64
	y := make([][2]float64, len(r))
	for j := range bs {
		bs[j] = &pushBase{gone: gone[j], x: x[j], str: str[j], res: make([]float64, len(r))}
		var dm float64
		for _, u := range vs[j].dangl {
			dm += x[j][u]
		}
		c[j] = d*dm + (1 - d)
		for u := range y {
			y[u][j] = x[j][u] * vs[j].invS[u]
		}
	}
	off, cols, w := g.offsets, g.cols, g.weights
	corr0, corr1 := vs[0].corr, vs[1].corr
	k0, k1 := 0, 0
	b0, b1 := bs[0], bs[1]
	for u := range r {
		cs := cols[off[u]:off[u+1]]
		ws := w[off[u]:off[u+1]]
		ws = ws[:len(cs)]
		var a0, a1 float64
		for i, t := range cs {
			yy := &y[t]
			a0 += ws[i] * yy[0]
			a1 += ws[i] * yy[1]
		}
		for ; k0 < len(corr0) && int(corr0[k0].v) == u; k0++ {
			a0 -= corr0[k0].w * y[corr0[k0].u][0]
		}
		for ; k1 < len(corr1) && int(corr1[k1].v) == u; k1++ {
			a1 -= corr1[k1].w * y[corr1[k1].u][1]
		}
		b0.setRes(u, d*a0+c[0]*r[u]-b0.x[u])
		b1.setRes(u, d*a1+c[1]*r[u]-b1.x[u])
	}
	for _, b := range bs {
		b.order = append([]int32(nil), g.passages...)
		slices.SortFunc(b.order, func(a, c int32) int {
			if o := cmp.Compare(b.x[c], b.x[a]); o != 0 {
				return o
			}
			return cmp.Compare(a, c)
		})
		for _, v := range g.passages {
			b.maxPS = max(b.maxPS, b.str[v])
		}
	}
	return bs
}

func (b *pushBase) setRes(u int, res float64) {
	b.res[u] = res
	if s := b.str[u]; s > 0 {
		b.eps0 = max(b.eps0, math.Abs(res)/s)
	} else {
		b.dang0 += math.Abs(res)
	}
}

// strengthWithout is every node's strength on G without the edges in gone,
// recomputed exactly at their endpoints (a node that lost every edge is
// exactly 0).
func (g *Graph) strengthWithout(gone []uint64, edges []int32) []float64 {
	s := append([]float64(nil), g.strength...)
	for _, e := range edges {
		for _, u := range g.ends[e] {
			s[u] = g.strengthOf(u, gone)
		}
	}
	return s
}

// strengthOf sums u's walk weight without the edges in gone.
func (g *Graph) strengthOf(u int32, gone []uint64) float64 {
	var s float64
	for p := g.offsets[u]; p < g.offsets[u+1]; p++ {
		if !isSet(gone, g.edgeOf[p]) {
			s += g.weights[p]
		}
	}
	return s
}

func isSet(bits []uint64, e int32) bool { return bits[e/64]&(1<<(e%64)) != 0 }

func edgeBits(g *Graph, edges []int32) []uint64 {
	bits := make([]uint64, (len(g.ends)+63)/64)
	for _, e := range edges {
		bits[e/64] |= 1 << (e % 64)
	}
	return bits
}

// cstate is the part of one node's push state a push reads and writes at
// every neighbour, 16 bytes so that a cache line holds four nodes (the
// pushes' cost is these random accesses): the residual, the strength
// rounded to float32 for the queueing test only (a push divides by the
// exact strength, and the error bound uses it), and the flags. The score
// correction dx and the exact strength s sit in arrays of their own.
type cstate struct {
	res       float64
	lim       float32
	mark, inQ bool
}

// lim32 rounds a strength for the queueing test, keeping a positive
// strength positive and a huge one finite.
func lim32(s float64) float32 {
	switch {
	case s == 0:
		return 0
	case s > math.MaxFloat32:
		return math.MaxFloat32
	case s < math.SmallestNonzeroFloat32:
		return math.SmallestNonzeroFloat32
	}
	return float32(s)
}

// over says whether a residual is to be pushed at threshold theta.
func (st *cstate) over(theta float64) bool {
	return math.Abs(st.res) > theta*float64(st.lim) || st.lim == 0 && st.res != 0
}

// culpritPusher answers culprit tests by pushing; one per goroutine (it
// owns scratch arrays of the graph's size).
type culpritPusher struct {
	g     *Graph
	d     float64
	r     []float64
	rsup  []int32 // nodes with reset mass
	isP   []bool
	base  *pushBase
	st    []cstate
	dx, s []float64 // valid where st is marked
	gone  []uint64  // S, the edges the tested view removes
	cut   []bool    // nodes with an edge in S
	cuts  []int32
	chg   []int32 // nodes whose column differs from the base's
	touch []int32
	queue []int32
	cand  []int32
	work  int64 // adjacency entries pushed through
	check int64 // work at which drain next checks its context
}

func newCulpritPusher(g *Graph, d float64, isP []bool) *culpritPusher {
	n := len(g.nodes)
	return &culpritPusher{g: g, d: d, isP: isP,
		st: make([]cstate, n), cut: make([]bool, n),
		dx: make([]float64, n), s: make([]float64, n),
		gone: make([]uint64, (len(g.ends)+63)/64)}
}

// setReset points the pusher at a row's normalised reset vector.
func (p *culpritPusher) setReset(r []float64) {
	p.r = r
	p.rsup = p.rsup[:0]
	for v, m := range r {
		if m > 0 {
			p.rsup = append(p.rsup, int32(v))
		}
	}
}

// Push limits: the threshold starts at pushTheta0 (times a node's
// strength) and drops 8-fold per round until the question is decided; past
// pushBudget passes' worth of pushes, or once the threshold is below the
// base's own residual, the test finishes with sweeps instead.
const (
	pushTheta0  = 1e-4
	pushBudget  = 2
	pushMinStep = 1e-15
)

func (p *culpritPusher) mark(v int32) *cstate {
	st := &p.st[v]
	if !st.mark {
		p.init(st, v)
	}
	return st
}

func (p *culpritPusher) init(st *cstate, v int32) {
	s := p.base.str[v]
	*st = cstate{res: p.base.res[v], lim: lim32(s), mark: true}
	p.s[v] = s
	p.touch = append(p.touch, v)
}

// setStrength sets a marked node's strength on the tested view.
func (p *culpritPusher) setStrength(v int32, s float64) {
	p.s[v] = s
	p.st[v].lim = lim32(s)
}

func (p *culpritPusher) addRes(v int32, m, theta float64) {
	st := p.mark(v)
	st.res += m
	if !st.inQ && st.over(theta) {
		st.inQ = true
		p.queue = append(p.queue, v)
	}
}

// column adds f times u's walk column on a view (u's neighbours weighted
// by w/s; the reset vector when u has no strength there).
func (p *culpritPusher) column(u int32, s, f float64, gone []uint64, theta float64) {
	g := p.g
	if s == 0 {
		for _, v := range p.rsup {
			p.addRes(v, f*p.r[v], theta)
		}
		return
	}
	f /= s
	for q := g.offsets[u]; q < g.offsets[u+1]; q++ {
		if gone != nil && isSet(gone, g.edgeOf[q]) {
			continue
		}
		p.addRes(g.cols[q], f*g.weights[q], theta)
	}
}

// load sets up the view G minus without, from base: the residual of the
// base scores under the tested view. The base's view is G itself (gone
// nil), where the edges that differ are without, or G minus every
// unauthenticated write, where they are the candidates not in without (the
// other unauthenticated writes carry no walk mass in either view).
func (p *culpritPusher) load(base *pushBase, without, cands []int32, theta float64) {
	g := p.g
	p.base = base
	for _, e := range without {
		p.gone[e/64] |= 1 << (e % 64)
		for _, u := range g.ends[e] {
			if !p.cut[u] {
				p.cut[u] = true
				p.cuts = append(p.cuts, u)
			}
		}
	}
	chg := p.chg[:0]
	for _, e := range cands {
		if base.gone == nil && !isSet(p.gone, e) || base.gone != nil && isSet(p.gone, e) {
			continue
		}
		for _, u := range g.ends[e] {
			if st := &p.st[u]; !st.mark {
				p.mark(u)
				chg = append(chg, u)
				if p.cut[u] {
					p.setStrength(u, g.strengthOf(u, p.gone))
				} else {
					p.setStrength(u, g.strength[u])
				}
			}
		}
	}
	p.chg = chg
	for _, u := range chg {
		xu := base.x[u]
		if xu == 0 {
			continue
		}
		p.column(u, base.str[u], -p.d*xu, base.gone, theta)
		p.column(u, p.s[u], p.d*xu, p.gone, theta)
	}
}

// drain pushes every queued residual above theta.
func (p *culpritPusher) drain(ctx context.Context, theta float64) error {
	g, d := p.g, p.d
	off, cols, w := g.offsets, g.cols, g.weights
	for h := 0; h < len(p.queue); h++ {
		// A context check per eighth of a sweep's worth of pushing: Ctrl-C
		// is seen as soon as in a sweep.
		if p.work >= p.check {
			if err := ctx.Err(); err != nil {
				return err
			}
			p.check = p.work + int64(len(g.cols)/8) + 1
		}
		u := p.queue[h]
		su := &p.st[u]
		su.inQ = false
		rho, s := su.res, p.s[u]
		if !(math.Abs(rho) > theta*s) && !(s == 0 && rho != 0) {
			continue
		}
		su.res = 0
		p.dx[u] += rho
		if s == 0 {
			p.work += int64(len(p.rsup))
			for _, v := range p.rsup {
				p.addRes(v, d*rho*p.r[v], theta)
			}
			continue
		}
		f := d * rho / s
		lo, hi := off[u], off[u+1]
		p.work += int64(hi - lo)
		cut := p.cut[u]
		for q := lo; q < hi; q++ {
			if cut && isSet(p.gone, g.edgeOf[q]) {
				continue
			}
			v := cols[q]
			// addRes, inlined: the push's inner loop.
			st := &p.st[v]
			if !st.mark {
				p.init(st, v)
			}
			st.res += f * w[q]
			if !st.inQ && st.over(theta) {
				st.inQ = true
				p.queue = append(p.queue, v)
			}
		}
	}
	p.queue = p.queue[:0]
	return nil
}

// bounds returns the error bound of the pushed scores: err(v) = (eps s_v
// + dang) / (1 - d).
func (p *culpritPusher) bounds() (eps, dang float64) {
	eps, dang = p.base.eps0, p.base.dang0
	for _, v := range p.touch {
		if s, res := p.s[v], math.Abs(p.st[v].res); s > 0 {
			eps = max(eps, res/s)
		} else {
			dang += res
		}
	}
	return eps, dang
}

func (p *culpritPusher) score(v int32) float64 {
	if p.st[v].mark {
		return p.base.x[v] + p.dx[v]
	}
	return p.base.x[v]
}

func (p *culpritPusher) strength(v int32) float64 {
	if p.st[v].mark {
		return p.s[v]
	}
	return p.base.str[v]
}

// equals decides, when it can, whether the tested view's top-k is want
// (node indices, in rank order): every score v is within err(v) of the
// exact one, and two scores within TieTolerance are ordered by node
// index, which no bound decides, so such gaps stay undecided.
func (p *culpritPusher) equals(want []int32, eps, dang float64) (equal, decided bool) {
	d := p.d
	errOf := func(v int32) float64 { return (eps*p.strength(v) + dang) / (1 - d) }
	lo := func(v int32) float64 { return p.score(v) - errOf(v) }
	hi := func(v int32) float64 { return p.score(v) + errOf(v) }
	in := func(v int32) bool { return slices.Contains(want, v) }
	sure := true // want's own order is certain
	minHi := math.Inf(1)
	for i, a := range want {
		minHi = min(minHi, hi(a))
		for _, b := range want[i+1:] {
			if lo(b)-hi(a) > TieTolerance {
				return false, true // b certainly ranks above a
			}
		}
		if i+1 < len(want) && !(lo(a)-hi(want[i+1]) > TieTolerance) {
			sure = false
		}
	}
	floor := math.Inf(-1) // no outsider may reach above this
	if len(want) > 0 {
		floor = lo(want[len(want)-1]) - TieTolerance
	}
	// Outsiders: the passages the push moved, then the unmoved ones in the
	// base's order, until even the largest error cannot lift them.
	maxHi := math.Inf(-1)
	for _, v := range p.touch {
		if p.isP[v] && !in(v) {
			if lo(v)-minHi > TieTolerance {
				return false, true // v certainly beats a member of want
			}
			maxHi = max(maxHi, hi(v))
		}
	}
	errMax := (eps*p.base.maxPS + dang) / (1 - d)
	first := true
	for _, v := range p.base.order {
		if p.st[v].mark || in(v) {
			continue
		}
		x := p.base.x[v]
		if x+errMax <= maxHi || x+errMax < floor {
			break
		}
		if first && lo(v)-minHi > TieTolerance {
			return false, true
		}
		first = false
		maxHi = max(maxHi, hi(v))
	}
	if sure && maxHi < floor {
		return true, true
	}
	return false, false
}

// reset clears the touched state for the next test.
func (p *culpritPusher) reset() {
	for _, v := range p.touch {
		p.st[v] = cstate{}
		p.dx[v] = 0
	}
	p.touch = p.touch[:0]
	p.queue = p.queue[:0]
	for _, u := range p.cuts {
		p.cut[u] = false
	}
	p.cuts = p.cuts[:0]
	clear(p.gone)
	p.work, p.check = 0, 0
}

// push loads the view G minus without and pushes until done says the
// question is settled under the error bound; false when it is not within
// the limits (the caller then finishes with sweeps from start()).
func (p *culpritPusher) push(ctx context.Context, base *pushBase, without, cands []int32, done func(eps, dang float64) bool) (bool, error) {
	theta := pushTheta0
	p.load(base, without, cands, theta)
	budget := int64(pushBudget) * int64(len(p.g.cols))
	for {
		if err := p.drain(ctx, theta); err != nil {
			return false, err
		}
		if done(p.bounds()) {
			return true, nil
		}
		if theta < pushMinStep || theta < base.eps0 || p.work > budget {
			return false, nil
		}
		theta /= 8
		for _, v := range p.touch {
			if st := &p.st[v]; !st.inQ && st.over(theta) {
				st.inQ = true
				p.queue = append(p.queue, v)
			}
		}
	}
}

// start is the pushed scores as a dense vector.
func (p *culpritPusher) start() []float64 {
	x := append([]float64(nil), p.base.x...)
	for _, v := range p.touch {
		x[v] += p.dx[v]
	}
	return x
}

// restores answers one culprit test: is the top-k of G minus without
// exactly want? The push settles it when the bound allows; otherwise
// (a tie, or a correction that spreads over the whole graph) sweeps
// from the pushed scores do, as a cold test would.
func (p *culpritPusher) restores(ctx context.Context, base *pushBase, without, cands, want []int32, k int, opt SolveOptions) (ok bool, sweeps int, work int64, err error) {
	defer func() { work = p.work; p.reset() }()
	settled, err := p.push(ctx, base, without, cands, func(eps, dang float64) bool {
		var decided bool
		ok, decided = p.equals(want, eps, dang)
		return decided
	})
	if settled || err != nil {
		return ok, 0, 0, err
	}
	sel, n, err := p.g.selectFrom(ctx, p.r, opt, p.g.newView(without), p.start(), k)
	if err != nil {
		return false, n, 0, err
	}
	got := sel.IDs()
	if len(got) != len(want) {
		return false, n, 0, nil
	}
	for i, id := range got {
		if p.g.nodeIndex[id] != want[i] {
			return false, n, 0, nil
		}
	}
	return true, n, 0, nil
}

// selectWithout is selectFrom for G minus without, pushed from base: the
// top-k with its ranking exact (every gap that decides it, the cut-off
// included, wider than the error bounds and the tie tolerance) and its
// scores within the bound; sweeps finish it when the push cannot.
func (p *culpritPusher) selectWithout(ctx context.Context, base *pushBase, without, cands []int32, k int, opt SolveOptions) (sel Selection, sweeps int, work int64, err error) {
	defer func() { work = p.work; p.reset() }()
	settled, err := p.push(ctx, base, without, cands, func(eps, dang float64) bool {
		var decided bool
		sel, decided = p.selection(k, eps, dang)
		return decided
	})
	if settled || err != nil {
		return sel, 0, 0, err
	}
	sel, sweeps, err = p.g.selectFrom(ctx, p.r, opt, p.g.newView(without), p.start(), k)
	return sel, sweeps, 0, err
}

// selection ranks the pushed scores and says whether the ranking is
// certain: consecutive selected items, and the last of them against every
// passage outside, further apart than their error bounds plus the tie
// tolerance.
func (p *culpritPusher) selection(k int, eps, dang float64) (Selection, bool) {
	d := p.d
	errOf := func(v int32) float64 { return (eps*p.strength(v) + dang) / (1 - d) }
	cand := p.cand[:0]
	for _, v := range p.touch {
		if p.isP[v] {
			cand = append(cand, v)
		}
	}
	extra := 0
	for _, v := range p.base.order {
		if extra > k {
			break
		}
		if !p.st[v].mark {
			cand = append(cand, v)
			extra++
		}
	}
	p.cand = cand
	sel := p.g.topK(p.score, cand, k)
	top := make([]int32, len(sel.Items))
	for i, it := range sel.Items {
		top[i] = p.g.nodeIndex[it.NodeID]
	}
	for i := 1; i < len(top); i++ {
		a, b := top[i-1], top[i]
		if !(p.score(a)-errOf(a)-(p.score(b)+errOf(b)) > TieTolerance) {
			return sel, false
		}
	}
	if len(top) == 0 {
		return sel, true
	}
	last := top[len(top)-1]
	floor := p.score(last) - errOf(last) - TieTolerance
	in := func(v int32) bool { return slices.Contains(top, v) }
	for _, v := range p.touch {
		if p.isP[v] && !in(v) && !(p.score(v)+errOf(v) < floor) {
			return sel, false
		}
	}
	errMax := (eps*p.base.maxPS + dang) / (1 - d)
	for _, v := range p.base.order {
		if p.base.x[v]+errMax < floor {
			break
		}
		if !p.st[v].mark && !in(v) && !(p.base.x[v]+errOf(v) < floor) {
			return sel, false
		}
	}
	return sel, true
}
