package replay

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// Defaults of the selector as HippoRAG2 runs it.
const (
	DefaultDamping   = 0.5
	DefaultTolerance = 1e-10
	DefaultK         = 5
)

// SolveOptions tunes the PPR solve. Zero values take the defaults.
type SolveOptions struct {
	Damping   float64 `json:"damping"`   // probability of following an edge; 1-Damping restarts by the reset vector
	Tolerance float64 `json:"tolerance"` // stop when an iteration moves the scores less than this in L1
}

func (o SolveOptions) normalised() (SolveOptions, error) {
	if o.Damping == 0 {
		o.Damping = DefaultDamping
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if math.IsNaN(o.Damping) || o.Damping < 0 || o.Damping >= 1 {
		return o, fmt.Errorf("replay: damping %v out of range [0, 1)", o.Damping)
	}
	if math.IsNaN(o.Tolerance) || o.Tolerance <= 0 {
		return o, fmt.Errorf("replay: tolerance %v must be positive", o.Tolerance)
	}
	return o, nil
}

// ResetVector validates a reset map (node id -> mass as stored) and returns it
// normalised to sum 1 in node order. Negative, NaN, infinite or all-zero
// masses and unknown node ids are errors.
func (g *Graph) ResetVector(reset map[string]float64) ([]float64, error) {
	r := make([]float64, len(g.nodes))
	// Iterate in a fixed order so the error named for bad input is stable.
	ids := make([]string, 0, len(reset))
	for id := range reset {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var largest float64
	for _, id := range ids {
		m := reset[id]
		i, ok := g.nodeIndex[id]
		if !ok {
			return nil, fmt.Errorf("reset vector names unknown node \"%s\"", id)
		}
		if math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
			return nil, fmt.Errorf("reset mass of node \"%s\" is %v, want a finite non-negative number", id, m)
		}
		r[i] = m
		largest = max(largest, m)
	}
	if !(largest > 0) {
		return nil, fmt.Errorf("reset vector has total mass 0, want a positive finite total")
	}
	// Normalising is scale-free: divide by the largest mass first, so that
	// the sum of finite masses (each at most 1 then) never overflows.
	var sum float64
	for i := range r {
		r[i] /= largest
		sum += r[i]
	}
	for i := range r {
		r[i] /= sum
	}
	return r, nil
}

// view is G minus a set of removed edges, expressed as corrections to G.
type view struct {
	removed []int32   // removed walk-carrying edges, deduplicated
	invS    []float64 // 1/strength per node, 0 for dangling nodes
	dangl   []int32   // nodes with no walk weight left
	// Corrections: the pull sum of node corr[i].v over G includes
	// corr[i].w * y[corr[i].u] for a removed edge; sorted by v so a sweep in
	// node order walks them with one cursor.
	corr []correction
}

// sameAsG says whether the view removes no walk-carrying edge, so that
// every solve on it is a solve on G.
func (v *view) sameAsG() bool { return len(v.removed) == 0 }

type correction struct {
	v, u int32
	w    float64
}

// newView builds the view of G without the given edges (indices into Edges).
func (g *Graph) newView(without []int32) *view {
	n := len(g.nodes)
	v := &view{invS: make([]float64, n)}
	var gone []uint64
	if len(without) > 0 {
		gone = make([]uint64, (len(g.ends)+63)/64)
	}
	// Endpoints come from the compiled index and touched nodes from a
	// bitmap: a view that removes half of a 350k-edge graph (a replay as of
	// an early moment) is built without a map operation per edge.
	touched := make([]bool, n)
	for _, e := range without {
		if gone[e/64]&(1<<(e%64)) != 0 {
			continue
		}
		gone[e/64] |= 1 << (e % 64)
		a, b := g.ends[e][0], g.ends[e][1]
		if !g.carriesWalk(int(e), a, b) {
			continue
		}
		v.removed = append(v.removed, e)
		touched[a], touched[b] = true, true
	}
	for _, e := range v.removed {
		w := g.walkW[e]
		a, b := g.ends[e][0], g.ends[e][1]
		if a == b {
			v.corr = append(v.corr, correction{a, a, 2 * w})
			continue
		}
		v.corr = append(v.corr, correction{a, b, w}, correction{b, a, w})
	}
	v.corr = sortByNode(v.corr, n)
	for u := 0; u < n; u++ {
		s := g.strength[u]
		if touched[u] {
			// Recompute exactly rather than subtract, so a node that lost all
			// its edges is exactly dangling.
			s = 0
			for p := g.offsets[u]; p < g.offsets[u+1]; p++ {
				e := g.edgeOf[p]
				if gone[e/64]&(1<<(e%64)) == 0 {
					s += g.weights[p]
				}
			}
		}
		if s > 0 {
			v.invS[u] = 1 / s
		} else {
			v.dangl = append(v.dangl, int32(u))
		}
	}
	return v
}

// sortByNode orders corrections by node with a counting sort (stable, and
// linear: a view may hold hundreds of thousands of corrections).
func sortByNode(c []correction, n int) []correction {
	if len(c) < 2 {
		return c
	}
	start := make([]int, n+1)
	for _, x := range c {
		start[x.v+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	out := make([]correction, len(c))
	for _, x := range c {
		out[start[x.v]] = x
		start[x.v]++
	}
	return out
}

// PPR solves Personalized PageRank on several views of G at once: views[j]
// lists edge indices removed from G (nil is G itself). It returns one score
// vector per view, in node order, each summing to 1.
func (g *Graph) PPR(ctx context.Context, reset []float64, opt SolveOptions, views ...[]int) ([][]float64, error) {
	if len(reset) != len(g.nodes) {
		return nil, fmt.Errorf("replay: reset vector has %d entries for %d nodes", len(reset), len(g.nodes))
	}
	vs := make([]*view, len(views))
	for j, w := range views {
		idx := make([]int32, len(w))
		for i, e := range w {
			if e < 0 || e >= len(g.ends) {
				return nil, fmt.Errorf("replay: view %d removes edge index %d, graph has %d edges", j, e, len(g.ends))
			}
			idx[i] = int32(e)
		}
		vs[j] = g.newView(idx)
	}
	return g.solve(ctx, reset, opt, vs)
}

// solve runs Gauss-Seidel sweeps for all views at once. Scores of the views
// are interleaved (x[u*m+j]) so one pass over the CSR serves every view;
// each view subtracts the few entries of its removed edges. Updating in
// place converges in roughly half the sweeps of Jacobi iteration at d = 0.5;
// the dangling mass is taken from the previous sweep, which leaves the fixed
// point (and so the scores) unchanged.
func (g *Graph) solve(ctx context.Context, r []float64, opt SolveOptions, vs []*view) ([][]float64, error) {
	return g.solveFrom(ctx, r, opt, vs, nil)
}

// solveFrom is solve started from start[j] for view j instead of from r
// (nil, or a nil start[j], starts from r). The fixed point and the stopping
// test are the same, so the result is as exact as a cold solve; a start near
// the answer (G's scores for a view that removes a few edges of G) only
// saves sweeps.
func (g *Graph) solveFrom(ctx context.Context, r []float64, opt SolveOptions, vs []*view, start [][]float64) ([][]float64, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	n, m := len(g.nodes), len(vs)
	if m == 0 {
		return nil, nil
	}
	d := opt.Damping
	if m == 2 {
		// Two cores solve G and G_auth side by side in about the time of
		// one (measured: BenchmarkReplayGAndGAuth); one core runs the fused
		// pair, which shares each neighbour load between the two views.
		if runtime.GOMAXPROCS(0) > 1 {
			return g.solveApart(ctx, r, opt, vs, start)
		}
		return g.solvePair(ctx, r, opt, vs[0], vs[1], startOf(start, 0, r), startOf(start, 1, r))
	}
	x := make([]float64, n*m)
	y := make([]float64, n*m)
	for j, v := range vs {
		s := startOf(start, j, r)
		for u := 0; u < n; u++ {
			x[u*m+j] = s[u]
			y[u*m+j] = s[u] * v.invS[u]
		}
	}
	maxIter := maxSweeps(opt)
	restart := make([]float64, m)
	delta := make([]float64, m)
	for iter := 0; ; iter++ {
		if iter >= maxIter {
			return nil, fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
		}
		// One check per sweep (one pass over the CSR): Ctrl-C is seen
		// within a sweep at no measurable cost.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for j, v := range vs {
			var dm float64
			for _, u := range v.dangl {
				dm += x[int(u)*m+j]
			}
			restart[j] = d*dm + (1 - d)
			delta[j] = 0
		}
		switch m {
		case 1:
			delta[0] = g.sweep1(x, y, r, d, restart[0], vs[0], sorOmega)
		default:
			g.sweepN(x, y, r, d, restart, delta, vs, sorOmega)
		}
		done := true
		for _, dl := range delta {
			if !(dl < opt.Tolerance) {
				done = false
			}
		}
		if done {
			break
		}
	}
	out := make([][]float64, m)
	for j := range out {
		out[j] = scoresOf(n, func(u int) float64 { return x[u*m+j] })
	}
	return out, nil
}

// maxSweeps bounds a full-tolerance solve: each sweep contracts the
// error by at least d in L1, so the bound is generous; hitting it means a
// bug, reported rather than looped on. opt is normalised.
func maxSweeps(opt SolveOptions) int {
	if d := opt.Damping; d > 0 {
		return int(math.Ceil(math.Log(opt.Tolerance/4)/math.Log(d))) + 100
	}
	return 1
}

// scoresOf takes one solve's scores out of its iterate (at(u) for node u
// of n): negative residue of removed edges' cancellation clamped to 0,
// then scaled to sum 1. Every solve ends with it.
func scoresOf(n int, at func(u int) float64) []float64 {
	s := make([]float64, n)
	var sum float64
	for u := range s {
		v := at(u)
		if v < 0 {
			v = 0
		}
		s[u] = v
		sum += v
	}
	for u := range s {
		s[u] /= sum
	}
	return s
}

// sorOmega over-relaxes the full-tolerance solves: each node moves this
// many times its Gauss-Seidel step. In y = x/strength the system is
// (D - dW) y = (1-d) r, symmetric and strictly diagonally dominant, so SOR
// converges for any omega in (0, 2) to the same fixed point; 1.1 took the
// benchmark graph's solves from 19 sweeps to 13 with a smaller final error
// (TestOverRelaxationSameScoresFewerSweeps). The certified early stop of selectFrom keeps plain
// sweeps (omega 1), whose contraction its error bound assumes.
const sorOmega = 1.1

func (g *Graph) sweep1(x, y, r []float64, d, c float64, v0 *view, omega float64) (delta float64) {
	g.sweeps.Add(1)
	off, cols, w := g.offsets, g.cols, g.weights
	inv, corr := v0.invS, v0.corr
	k := 0
	for v := range r {
		cs := cols[off[v]:off[v+1]]
		ws := w[off[v]:off[v+1]]
		ws = ws[:len(cs)]
		var acc float64
		for i, u := range cs {
			acc += ws[i] * y[u]
		}
		for ; k < len(corr) && int(corr[k].v) == v; k++ {
			acc -= corr[k].w * y[corr[k].u]
		}
		nx := d*acc + c*r[v]
		if omega != 1 {
			nx = x[v] + omega*(nx-x[v])
		}
		delta += math.Abs(nx - x[v])
		x[v] = nx
		y[v] = nx * inv[v]
	}
	return delta
}

// startOf is view j's starting vector: start[j] when given, else r.
func startOf(start [][]float64, j int, r []float64) []float64 {
	if j < len(start) && start[j] != nil {
		return start[j]
	}
	return r
}

// solveApart solves each view on its own goroutine.
func (g *Graph) solveApart(ctx context.Context, r []float64, opt SolveOptions, vs []*view, start [][]float64) ([][]float64, error) {
	out := make([][]float64, len(vs))
	errs := make([]error, len(vs))
	var wg sync.WaitGroup
	for j, v := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := g.solveFrom(ctx, r, opt, []*view{v}, [][]float64{startOf(start, j, r)})
			if err == nil {
				out[j] = res[0]
			}
			errs[j] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// solvePair is solve for two views (the G and G_auth case), with both
// views' scores in one [2]float64 per node so each neighbour costs one load.
func (g *Graph) solvePair(ctx context.Context, r []float64, opt SolveOptions, v0, v1 *view, s0, s1 []float64) ([][]float64, error) {
	n, d := len(g.nodes), opt.Damping
	x := make([][2]float64, n)
	y := make([][2]float64, n)
	for u := range x {
		x[u] = [2]float64{s0[u], s1[u]}
		y[u] = [2]float64{s0[u] * v0.invS[u], s1[u] * v1.invS[u]}
	}
	maxIter := maxSweeps(opt)
	for iter := 0; ; iter++ {
		if iter >= maxIter {
			return nil, fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var dm0, dm1 float64
		for _, u := range v0.dangl {
			dm0 += x[u][0]
		}
		for _, u := range v1.dangl {
			dm1 += x[u][1]
		}
		dl := g.sweep2(x, y, [2][]float64{r, r}, d, [2]float64{d*dm0 + (1 - d), d*dm1 + (1 - d)}, [2]*view{v0, v1}, [2]bool{true, true}, sorOmega)
		if dl[0] < opt.Tolerance && dl[1] < opt.Tolerance {
			break
		}
	}
	return [][]float64{laneScores(x, 0), laneScores(x, 1)}, nil
}

// sweep2 sweeps two lanes at once: lane j solves reset r[j] on view
// vs[j] (G and G_auth of one query in solvePair). A lane not live is read
// but neither updated nor counted.
func (g *Graph) sweep2(x, y [][2]float64, r [2][]float64, d float64, c [2]float64, vs [2]*view, live [2]bool, omega float64) (delta [2]float64) {
	g.sweeps.Add(1)
	off, cols, w := g.offsets, g.cols, g.weights
	inv := [2][]float64{vs[0].invS, vs[1].invS}
	corr0, corr1 := vs[0].corr, vs[1].corr
	r0, r1 := r[0], r[1][:len(r[0])]
	k0, k1 := 0, 0
	for v := range r0 {
		cs := cols[off[v]:off[v+1]]
		ws := w[off[v]:off[v+1]]
		ws = ws[:len(cs)]
		var a0, a1 float64
		for i, u := range cs {
			wi := ws[i]
			yy := &y[u]
			a0 += wi * yy[0]
			a1 += wi * yy[1]
		}
		for ; k0 < len(corr0) && int(corr0[k0].v) == v; k0++ {
			a0 -= corr0[k0].w * y[corr0[k0].u][0]
		}
		for ; k1 < len(corr1) && int(corr1[k1].v) == v; k1++ {
			a1 -= corr1[k1].w * y[corr1[k1].u][1]
		}
		a, rv := [2]float64{a0, a1}, [2]float64{r0[v], r1[v]}
		xv, yv := &x[v], &y[v]
		for j := range 2 {
			if !live[j] {
				continue
			}
			nx := d*a[j] + c[j]*rv[j]
			if omega != 1 {
				nx = xv[j] + omega*(nx-xv[j])
			}
			delta[j] += math.Abs(nx - xv[j])
			xv[j], yv[j] = nx, nx*inv[j][v]
		}
	}
	return delta
}

func (g *Graph) sweepN(x, y, r []float64, d float64, c, delta []float64, vs []*view, omega float64) {
	g.sweeps.Add(1)
	off, cols, w := g.offsets, g.cols, g.weights
	m := len(vs)
	acc := make([]float64, m)
	cursor := make([]int, m)
	for v := range r {
		for j := range acc {
			acc[j] = 0
		}
		for p := off[v]; p < off[v+1]; p++ {
			u := int(cols[p]) * m
			wp := w[p]
			for j := range acc {
				acc[j] += wp * y[u+j]
			}
		}
		for j, vw := range vs {
			k := cursor[j]
			for ; k < len(vw.corr) && int(vw.corr[k].v) == v; k++ {
				acc[j] -= vw.corr[k].w * y[int(vw.corr[k].u)*m+j]
			}
			cursor[j] = k
			nx := d*acc[j] + c[j]*r[v]
			if omega != 1 {
				nx = x[v*m+j] + omega*(nx-x[v*m+j])
			}
			delta[j] += math.Abs(nx - x[v*m+j])
			x[v*m+j] = nx
			y[v*m+j] = nx * vw.invS[v]
		}
	}
}

// certifySafety widens the error bound a selection must clear before a
// solve stops early: the L1 contraction argument behind the bound is made
// for Jacobi sweeps, and Gauss-Seidel takes the dangling mass from the
// previous sweep, so the stop is taken only with room to spare.
const certifySafety = 4

// selectFrom solves PPR on one view, started from start (nil: r), only as
// far as the top-k selection needs: it stops as soon as the error bound of
// the iterate (each sweep contracts the L1 error by d, so the remaining
// error is at most delta*d/(1-d)) is smaller than half of every gap that
// decides the ranking of the top k and the cut-off. Gaps within
// TieTolerance are ties decided by node order, which no error bound can
// certify; those solves run to the full tolerance. The selection is then
// the one a full solve gives; its scores are within the bound.
func (g *Graph) selectFrom(ctx context.Context, r []float64, opt SolveOptions, v *view, start []float64, k int) (Selection, int, error) {
	opt, err := opt.normalised()
	if err != nil {
		return Selection{}, 0, err
	}
	n, d := len(g.nodes), opt.Damping
	if start == nil {
		start = r
	}
	x := make([]float64, n)
	y := make([]float64, n)
	for u := range x {
		x[u] = start[u]
		y[u] = start[u] * v.invS[u]
	}
	maxIter := maxSweeps(opt)
	score := func(u int32) float64 { return x[u] }
	iter := 1
	for ; ; iter++ {
		if iter > maxIter {
			return Selection{}, iter, fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
		}
		if err := ctx.Err(); err != nil {
			return Selection{}, iter, err
		}
		var dm float64
		for _, u := range v.dangl {
			dm += x[u]
		}
		// Plain Gauss-Seidel here: the error bound below is argued for it.
		delta := g.sweep1(x, y, r, d, d*dm+(1-d), v, 1)
		if delta < opt.Tolerance {
			break
		}
		bound := certifySafety * delta * d / (1 - d)
		if sel := g.topK(score, g.passages, k); certified(sel, bound) {
			break
		}
	}
	normalise(x)
	return g.topK(score, g.passages, k), iter, nil
}

// normalise clamps the cancellation residue of removed edges (tiny
// negative scores) to 0 and scales the scores to sum 1.
func normalise(x []float64) {
	var sum float64
	for u := range x {
		x[u] = max(x[u], 0)
		sum += x[u]
	}
	for u := range x {
		x[u] /= sum
	}
}

// certified says whether every gap that decides the selection (between
// consecutive selected items and at the cut-off) is wider than twice the
// error bound, and wide enough not to be a tie.
func certified(sel Selection, bound float64) bool {
	items := sel.Items
	if sel.Next != nil {
		items = append(items[:len(items):len(items)], *sel.Next)
	}
	for i := 1; i < len(items); i++ {
		gap := items[i-1].Score - items[i].Score
		if gap <= TieTolerance+2*bound {
			return false
		}
	}
	return true
}
