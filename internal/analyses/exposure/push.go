package exposure

import (
	"cmp"
	"math"
	"slices"
)

// extra is one attacker edge added to a view (node indices).
type extra struct {
	a, b int32
	w    float64
}

type nbr struct {
	u int32
	w float64
}

// extList is one endpoint's added edges and their summed weight.
type extList struct {
	nb   []nbr
	addW float64
}

// pstate is one node's push state. s is the node's strength on the view
// plus the added edges (str + addW), kept for every node so that no push
// re-adds it.
type pstate struct {
	res, dx, s float64
	mark, inQ  bool
}

// pusher re-solves PPR after a few edges are added to a view, warm-started
// from the view's converged scores x0. Adding edges changes the transition
// matrix only in the columns of their endpoints, so the residual of x0 under
// the new graph sits next to those endpoints; local pushes (Andersen, Chung
// and Lang's forward push, signed) drain it. The L1 error of the scores is
// at most the remaining residual mass / (1 - d), so the top-k is decided
// exactly once the k-th / (k+1)-th gap exceeds twice that bound; the
// threshold is lowered until it does (or the gap is a genuine tie).
//
// One pusher per goroutine: it owns scratch arrays of the graph's size.
type pusher struct {
	a     *adj
	d     float64
	r     []float64 // normalised reset vector
	rsup  []int32   // nodes with r > 0
	x0    []float64 // converged scores on the view
	isP   []bool    // passage nodes
	order []int32   // passages by x0, best first (ties by node order)
	k     int
	maxP  int32 // a passage of largest strength (bounds unmoved passages' error)

	// st holds the per-node push state side by side, so that a push
	// touches one cache line per neighbour instead of five arrays.
	st      []pstate
	touched []int32
	queue   []int32
	// extAt[v] is 1 + the index in ext of v's added edges (0: none): a
	// flat table, so a push needs no map lookup and a reset no map clear.
	extAt      []int32
	ext        []extList
	ends       []int32   // endpoints of the added edges, first seen first
	x, y       []float64 // sweep scratch
	best, cand []int32   // topKFull and topK scratch
	work       int       // adjacency entries pushed through in this solve
	// cold solves every draw with sweeps from the reset vector instead of
	// the view's scores: the baseline the warm start is measured against.
	cold bool
}

func newPusher(a *adj, d float64, r, x0 []float64, isP []bool, passages []int32, k int) *pusher {
	p := &pusher{a: a, d: d, r: r, x0: x0, isP: isP, k: k,
		st: make([]pstate, a.n), extAt: make([]int32, a.n)}
	for v := range p.st {
		p.st[v].s = a.str[v]
	}
	for v, m := range r {
		if m > 0 {
			p.rsup = append(p.rsup, int32(v))
		}
	}
	for _, v := range passages {
		if a.str[v] > a.str[p.maxP] || !isP[p.maxP] {
			p.maxP = v
		}
	}
	p.order = append([]int32(nil), passages...)
	slices.SortFunc(p.order, func(x, y int32) int {
		if c := cmp.Compare(x0[y], x0[x]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	return p
}

func (p *pusher) touch(v int32) {
	if st := &p.st[v]; !st.mark {
		st.mark = true
		p.touched = append(p.touched, v)
	}
}

// over says whether v's residual is above theta times its strength (the
// degree-normalised threshold of forward push).
func (st *pstate) over(theta float64) bool {
	return math.Abs(st.res) > theta*st.s
}

func (p *pusher) addRes(v int32, m float64, theta float64) {
	st := &p.st[v]
	if !st.mark {
		st.mark = true
		p.touched = append(p.touched, v)
	}
	st.res += m
	if !st.inQ && st.over(theta) {
		st.inQ = true
		p.queue = append(p.queue, v)
	}
}

// base returns the top-k of the view itself (shared: not to be modified).
func (p *pusher) base() []int32 {
	return p.order[:min(p.k, len(p.order))]
}

// pushBudget is how many whole-graph passes' worth of pushes a solve may
// spend before it finishes with sweeps instead. Heavy writes at hub seeds
// move mass across most of the graph, but pushing it is still far cheaper
// than sweeping: on the 50k benchmark graph such a draw settled in about a
// quarter of one pass, where the sweeps it used to fall back to (once a
// quarter of the nodes was touched) took ten passes.
const pushBudget = 2

// solve returns the top-k passages of the view plus es, best first, and
// whether the cut-off stayed a tie at the precision floor. It stops as soon
// as the question "did the selected set change?" is decided, so when the
// set changed, members other than the one that decided it are the
// estimate's.
func (p *pusher) solve(es []extra) (top []int32, uncertain bool) {
	defer p.reset()
	d := p.d
	ends := p.ends[:0]
	for _, e := range es {
		if e.a == e.b || !(e.w > 0) {
			continue
		}
		for _, s := range [2][2]int32{{e.a, e.b}, {e.b, e.a}} {
			if p.extAt[s[0]] == 0 {
				ends = append(ends, s[0])
				if len(p.ext) < cap(p.ext) {
					p.ext = p.ext[:len(p.ext)+1]
					l := &p.ext[len(p.ext)-1]
					l.nb, l.addW = l.nb[:0], 0
				} else {
					p.ext = append(p.ext, extList{})
				}
				p.extAt[s[0]] = int32(len(p.ext))
			}
			l := &p.ext[p.extAt[s[0]]-1]
			l.nb = append(l.nb, nbr{s[1], e.w})
			l.addW += e.w
			p.touch(s[0])
		}
	}
	p.ends = ends
	for _, u := range ends {
		p.st[u].s = p.a.str[u] + p.ext[p.extAt[u]-1].addW
	}
	if p.cold {
		return p.sweeps()
	}
	theta := 1e-8
	// Residual of x0 under the new graph: the columns of the endpoints.
	for _, u := range ends {
		s0 := p.a.str[u]
		s1 := p.st[u].s
		xu := p.x0[u]
		if s0 > 0 {
			f := d * xu * (1/s1 - 1/s0)
			for q := p.a.off[u]; q < p.a.off[u+1]; q++ {
				p.addRes(p.a.col[q], f*p.a.w[q], theta)
			}
		} else {
			// u was dangling: its mass restarted by r, now it walks.
			for _, v := range p.rsup {
				p.addRes(v, -d*xu*p.r[v], theta)
			}
		}
		for _, e := range p.extOf(u) {
			p.addRes(e.u, d*xu*e.w/s1, theta)
		}
	}
	for {
		p.drain(theta)
		// Undirected walks are reversible (s_u pi_u(v) = s_v pi_v(u)), so
		// with every |res_u| <= eps s_u the error at v is at most
		// eps s_v / (1 - d): tight for low-degree passages. A residual on
		// a node with no edges would break that; then use the L1 bound.
		var resid, eps float64
		local := true
		for _, v := range p.touched {
			r := math.Abs(p.st[v].res)
			resid += r
			if s := p.st[v].s; s > 0 {
				eps = max(eps, r/s)
			} else if r > 0 {
				local = false
			}
		}
		errOf := func(v int32) float64 { return eps * p.st[v].s / (1 - d) }
		if !local {
			errOf = func(int32) float64 { return resid / (1 - d) }
		}
		top, decided := p.topK(errOf)
		if decided || resid == 0 {
			return top, false
		}
		if theta < 1e-13 || p.work > pushBudget*len(p.a.col) {
			// The correction is no longer local: whole-graph sweeps from
			// the pushed estimate are cheaper than more pushes.
			return p.sweeps()
		}
		theta /= 8
		for _, v := range p.touched {
			if st := &p.st[v]; !st.inQ && st.over(theta) {
				st.inQ = true
				p.queue = append(p.queue, v)
			}
		}
	}
}

// sweeps finishes the solve with Gauss-Seidel sweeps over the augmented
// graph, warm-started from x0 + dx, until the top-k question is decided
// (error bound: the last sweep's L1 change / (1 - d)) or the change falls
// below 1e-14 (a tie at the cut-off: uncertain).
func (p *pusher) sweeps() ([]int32, bool) {
	n, d := p.a.n, p.d
	if p.x == nil {
		p.x, p.y = make([]float64, n), make([]float64, n)
	}
	x, y := p.x, p.y
	inv := func(v int) float64 {
		s := p.st[v].s
		if s == 0 {
			return 0
		}
		return 1 / s
	}
	for v := 0; v < n; v++ {
		x[v] = p.x0[v] + p.st[v].dx
		if p.cold {
			x[v] = p.r[v]
		}
		y[v] = x[v] * inv(v)
	}
	var dangling []int32
	for v := 0; v < n; v++ {
		if p.st[v].s == 0 {
			dangling = append(dangling, int32(v))
		}
	}
	for iter := 0; iter < 200; iter++ {
		var dm, delta float64
		for _, v := range dangling {
			dm += x[v]
		}
		c := d*dm + (1 - d)
		for v := 0; v < n; v++ {
			var acc float64
			for q := p.a.off[v]; q < p.a.off[v+1]; q++ {
				acc += p.a.w[q] * y[p.a.col[q]]
			}
			if p.extAt[v] != 0 {
				for _, e := range p.extOf(int32(v)) {
					acc += e.w * y[e.u]
				}
			}
			nx := d*acc + c*p.r[v]
			delta += math.Abs(nx - x[v])
			x[v] = nx
			y[v] = nx * inv(v)
		}
		bound := delta / (1 - d)
		top, decided := p.topKFull(2 * bound)
		if decided {
			return top, false
		}
		if delta < 1e-14 {
			return top, true
		}
	}
	top, _ := p.topKFull(0)
	return top, true
}

// drain pushes every queued residual above theta.
func (p *pusher) drain(theta float64) {
	d := p.d
	a := p.a
	for h := 0; h < len(p.queue); h++ {
		u := p.queue[h]
		su := &p.st[u]
		su.inQ = false
		rho := su.res
		s := su.s
		if !su.over(theta) && !(rho != 0 && s == 0) {
			continue
		}
		su.res = 0
		su.dx += rho
		if s == 0 {
			for _, v := range p.rsup {
				p.addRes(v, d*rho*p.r[v], theta)
			}
			continue
		}
		f := d * rho / s
		lo, hi := a.off[u], a.off[u+1]
		p.work += int(hi - lo)
		for q, v := range a.col[lo:hi] {
			// addRes, inlined: this loop is the estimate's inner loop.
			st := &p.st[v]
			if !st.mark {
				st.mark = true
				p.touched = append(p.touched, v)
			}
			st.res += f * a.w[int(lo)+q]
			if !st.inQ && math.Abs(st.res) > theta*st.s {
				st.inQ = true
				p.queue = append(p.queue, v)
			}
		}
		if p.extAt[u] != 0 {
			for _, e := range p.extOf(u) {
				p.addRes(e.u, f*e.w, theta)
			}
		}
	}
	p.queue = p.queue[:0]
}

// topK ranks the passages whose score moved together with enough of the
// unmoved ones (in base order) to fill k+1 places, and says whether the
// answer to "did the selected set change?" is decided when every score may
// be off by slack/2 (slack = twice the L1 error bound): unchanged needs the
// base set on top with a k-th/(k+1)-th gap above slack; changed needs one
// base member that at least k others certainly beat, or one outsider that
// at most k-1 others can reach.
func (p *pusher) topK(errOf func(int32) float64) ([]int32, bool) {
	cand := p.cand[:0]
	moved := 0
	for _, v := range p.touched {
		if p.isP[v] && p.st[v].dx != 0 {
			cand = append(cand, v)
			moved++
		}
	}
	need := p.k + 1 + moved
	// tail bounds every unmoved passage left out of cand: the best of them
	// in base order, plus the largest error any passage can carry.
	tail := math.Inf(-1)
	for _, v := range p.order {
		if p.isP[v] && p.st[v].dx != 0 {
			continue
		}
		if need == 0 {
			tail = p.x0[v] + errOf(p.maxP)
			break
		}
		cand = append(cand, v)
		need--
	}
	p.cand = cand
	return p.decide(cand, func(v int32) float64 { return p.x0[v] + p.st[v].dx }, errOf, tail)
}

// topKFull is topK over every passage with the sweep's scores. It is
// linear in the passages: one pass keeps the best k+1 (by score, then node
// order: decide's order), and when their spread is within slack nothing
// can be decided yet, which is most early sweeps.
func (p *pusher) topKFull(slack float64) ([]int32, bool) {
	x := p.x
	better := func(a, b int32) bool { return x[a] > x[b] || x[a] == x[b] && a < b }
	best := p.best[:0]
	for _, v := range p.order {
		if len(best) == p.k+1 && !better(v, best[p.k]) {
			continue
		}
		// Insert v in the sorted best list (k+1 is small).
		i := len(best)
		if i < p.k+1 {
			best = append(best, v)
		} else {
			i = p.k
		}
		for ; i > 0 && better(v, best[i-1]); i-- {
			best[i] = best[i-1]
		}
		best[i] = v
	}
	p.best = best
	if len(best) <= p.k {
		return append([]int32(nil), best...), true
	}
	if x[best[0]]-x[best[p.k]] <= slack {
		// decide needs a gap above slack somewhere in the top k+1.
		return append([]int32(nil), best[:p.k]...), false
	}
	cand := append(p.cand[:0], best...)
	floor := x[best[p.k]] - slack
	for _, v := range p.order {
		if x[v] >= floor && !better(v, best[p.k]) && v != best[p.k] {
			cand = append(cand, v)
		}
	}
	p.cand = cand
	return p.decide(cand, func(v int32) float64 { return x[v] }, func(int32) float64 { return slack / 2 }, math.Inf(-1))
}

// decide sorts the candidates by score and answers topK's question when
// each score v may be off by errOf(v) and no passage outside cand can
// score above tail.
func (p *pusher) decide(cand []int32, score, errOf func(int32) float64, tail float64) ([]int32, bool) {
	slices.SortFunc(cand, func(x, y int32) int {
		if c := cmp.Compare(score(y), score(x)); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	k := min(p.k, len(cand))
	top := append([]int32(nil), cand[:k]...)
	if len(cand) <= k || k == 0 {
		return top, true
	}
	lo := func(v int32) float64 { return score(v) - errOf(v) }
	hi := func(v int32) float64 { return score(v) + errOf(v) }
	base := p.order[:min(p.k, len(p.order))]
	if sameSet(top, base) {
		worst := math.Inf(1)
		for _, v := range top {
			worst = min(worst, lo(v))
		}
		best := tail
		for _, v := range cand[k:] {
			best = max(best, hi(v))
		}
		return top, worst > best
	}
	for i, v := range cand {
		inBase := slices.Contains(base, v)
		if !inBase && i < k && tail < lo(v) {
			// v is certainly in when at most k-1 others can reach it.
			reach := 0
			for j, w := range cand {
				if j != i && hi(w) >= lo(v) {
					reach++
				}
			}
			if reach <= k-1 {
				return top, true
			}
		}
		if inBase && i >= k {
			// u is certainly out when k others certainly beat it.
			beat := 0
			for j, w := range cand {
				if j != i && lo(w) > hi(v) {
					beat++
				}
			}
			if beat >= k {
				return top, true
			}
		}
	}
	return top, false
}

func (p *pusher) reset() {
	for _, v := range p.touched {
		p.st[v] = pstate{s: p.a.str[v]}
	}
	p.touched = p.touched[:0]
	p.queue = p.queue[:0]
	p.work = 0
	for _, u := range p.ends {
		p.extAt[u] = 0
	}
	p.ext = p.ext[:0]
}

// extOf returns v's added edges.
func (p *pusher) extOf(v int32) []nbr {
	if i := p.extAt[v]; i > 0 {
		return p.ext[i-1].nb
	}
	return nil
}
