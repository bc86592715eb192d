package replay

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/memscope/memscope/internal/par"
)

// lanes is how many reset vectors solveLanes solves in one pass over the
// CSR. Each lane's sum over a node's neighbours is a chain of dependent
// additions; four independent chains fill more of an addition's latency
// than two, so one four-lane pass costs about 0.85 of two two-lane passes
// (BenchmarkLanesOnG: 2.65 against 3.11 CPU-s; the 1M-node LightRAG
// replay: 2.74 CPU-s a group of four against 1.63 a pair). The iterate
// takes 32 MB per million nodes instead of 16.
const lanes = 4

// laneSet is one node's scores in every lane of a pass: two lanes for one
// or two reset vectors (sweep2), four for three or four (sweepLanes).
type laneSet interface{ [2]float64 | [lanes]float64 }

// laneSweep is one sweep over the CSR of every lane of x and y.
type laneSweep[L laneSet] func(x, y []L, r [lanes][]float64, d float64, c [lanes]float64, v *view, live [lanes]bool) [lanes]float64

// solveLanes solves up to four reset vectors on one view in one pass over
// the CSR per sweep (the scores of a node side by side, as solvePair keeps
// G and G_auth), each stopping at its own convergence. Each result is what
// solve(r, v) gives it, bit for bit: the same operations in the same order
// on its own lane, which is left alone once it has converged while the
// others go on. errs[j] says why lane j did not converge; a cancelled ctx
// is the error of all.
func (g *Graph) solveLanes(ctx context.Context, rs [][]float64, opt SolveOptions, v *view) (out [][]float64, errs []error, err error) {
	if len(rs) == 0 || len(rs) > lanes {
		return nil, nil, fmt.Errorf("replay: %d reset vectors for %d lanes", len(rs), lanes)
	}
	if len(rs) <= 2 {
		return solveIn(g, ctx, rs, opt, v, func(x, y [][2]float64, r [lanes][]float64, d float64, c [lanes]float64, v *view, live [lanes]bool) [lanes]float64 {
			r1 := r[1]
			if r1 == nil {
				r1 = r[0] // read, never used: lane 1 is not live
			}
			dl := g.sweep2(x, y, [2][]float64{r[0], r1}, d, [2]float64{c[0], c[1]}, [2]*view{v, v}, [2]bool{live[0], live[1]}, sorOmega)
			return [lanes]float64{dl[0], dl[1]}
		})
	}
	return solveIn(g, ctx, rs, opt, v, func(x, y [][lanes]float64, r [lanes][]float64, d float64, c [lanes]float64, v *view, live [lanes]bool) [lanes]float64 {
		return g.sweepLanes(x, y, r, d, c, v, live, sorOmega)
	})
}

// solveIn is solveLanes in lanes of L, swept by sweep.
func solveIn[L laneSet](g *Graph, ctx context.Context, rs [][]float64, opt SolveOptions, v *view, sweep laneSweep[L]) (out [][]float64, errs []error, err error) {
	opt, err = opt.normalised()
	if err != nil {
		return nil, nil, err
	}
	n, d := len(g.nodes), opt.Damping
	out, errs = make([][]float64, len(rs)), make([]error, len(rs))
	// Lanes without a reset vector stay at 0 and are never live (nor is
	// their r read).
	var live [lanes]bool
	var r [lanes][]float64
	x := make([]L, n)
	y := make([]L, n)
	for j := range rs {
		r[j], live[j] = rs[j][:n], true
		for u, m := range r[j] {
			x[u][j] = m
			y[u][j] = m * v.invS[u]
		}
	}
	maxIter := maxSweeps(opt)
	for iter := 0; slices.Contains(live[:], true); iter++ {
		if iter >= maxIter {
			for j := range rs {
				if live[j] {
					errs[j] = fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
				}
			}
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var c [lanes]float64
		var width L
		for j := range len(width) {
			var dm float64
			for _, u := range v.dangl {
				dm += x[u][j]
			}
			c[j] = d*dm + (1 - d)
		}
		delta := sweep(x, y, r, d, c, v, live)
		for j := range rs {
			if live[j] && delta[j] < opt.Tolerance {
				live[j] = false
				out[j] = scoresOf(n, func(u int) float64 { return x[u][j] })
			}
		}
	}
	return out, errs, nil
}

// sweepLanes is sweep2 for the lanes of solveLanes, all on one view. A
// lane not live is read but neither updated nor counted.
func (g *Graph) sweepLanes(x, y [][lanes]float64, r [lanes][]float64, d float64, c [lanes]float64, vw *view, live [lanes]bool, omega float64) (delta [lanes]float64) {
	g.sweeps.Add(1)
	off, cols, w := g.offsets, g.cols, g.weights
	inv, corr := vw.invS, vw.corr
	k := 0
	for v := range inv {
		cs := cols[off[v]:off[v+1]]
		ws := w[off[v]:off[v+1]]
		ws = ws[:len(cs)]
		// One variable per lane keeps the four sums in registers.
		var a0, a1, a2, a3 float64
		for i, u := range cs {
			wi := ws[i]
			yy := &y[u]
			a0 += wi * yy[0]
			a1 += wi * yy[1]
			a2 += wi * yy[2]
			a3 += wi * yy[3]
		}
		for ; k < len(corr) && int(corr[k].v) == v; k++ {
			cw, yy := corr[k].w, &y[corr[k].u]
			a0 -= cw * yy[0]
			a1 -= cw * yy[1]
			a2 -= cw * yy[2]
			a3 -= cw * yy[3]
		}
		a := [lanes]float64{a0, a1, a2, a3}
		xv, yv := &x[v], &y[v]
		for j := range lanes {
			if !live[j] {
				continue
			}
			nx := d*a[j] + c[j]*r[j][v]
			if omega != 1 {
				nx = xv[j] + omega*(nx-xv[j])
			}
			delta[j] += math.Abs(nx - xv[j])
			xv[j], yv[j] = nx, nx*inv[v]
		}
	}
	return delta
}

// laneScores takes lane j's scores out of a two-lane iterate (scoresOf).
func laneScores(x [][2]float64, j int) []float64 {
	return scoresOf(len(x), func(u int) float64 { return x[u][j] })
}

// replayLanesOnG is ReplayAll on workers goroutines when G_auth is G:
// each takes up to four queries and solves them in one pass (solveLanes).
// Groups are made smaller when there are too few queries to give every
// worker a full one.
func (r *Replayer) replayLanesOnG(ctx context.Context, qs []Query, workers int, rows []Row, errs []error) {
	size := min(lanes, max(2, (len(qs)+workers-1)/workers))
	par.Each((len(qs)+size-1)/size, workers, func(p int) {
		if ctx.Err() != nil {
			return
		}
		var idx []int
		var ks []int
		var resets [][]float64
		for i := size * p; i < min(size*p+size, len(qs)); i++ {
			k, reset, err := r.queryStart(qs[i])
			if err != nil {
				errs[i] = err
				continue
			}
			idx, ks, resets = append(idx, i), append(ks, k), append(resets, reset)
		}
		if len(idx) < 2 {
			for j, i := range idx { // one query: the ordinary replay
				rows[i], errs[i] = r.replayStarted(ctx, qs[i], ks[j], resets[j], true)
			}
			return
		}
		scores, failed, err := r.g.solveLanes(ctx, resets, r.cfg.Solve, r.full)
		for j, i := range idx {
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("query \"%s\": %w", qs[i].ID, err)
			case failed[j] != nil:
				errs[i] = fmt.Errorf("query \"%s\": %w", qs[i].ID, failed[j])
			default:
				rows[i], errs[i] = r.replayFrom(ctx, qs[i], ks[j], resets[j], scores[j], slices.Clone(scores[j]))
			}
			if scores != nil {
				scores[j] = nil
			}
			resets[j] = nil
		}
	})
}
