package replay

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/memscope/memscope/internal/par"
)

// solveTwo solves two reset vectors on one view in one pass over the CSR
// per sweep (the two scores of a node side by side, as solvePair keeps G
// and G_auth), each stopping at its own convergence. Each result is what
// solve(r, v) gives it, bit for bit: the same operations in the same order
// on its own lane, which is left alone once it has converged while the
// other goes on. errs[j] says why lane j did not converge; a cancelled ctx
// is the error of both.
func (g *Graph) solveTwo(ctx context.Context, rs [2][]float64, opt SolveOptions, v *view) (out [2][]float64, errs [2]error, err error) {
	opt, err = opt.normalised()
	if err != nil {
		return out, errs, err
	}
	n, d := len(g.nodes), opt.Damping
	x := make([][2]float64, n)
	y := make([][2]float64, n)
	for u := range x {
		x[u] = [2]float64{rs[0][u], rs[1][u]}
		y[u] = [2]float64{rs[0][u] * v.invS[u], rs[1][u] * v.invS[u]}
	}
	maxIter := 1
	if d > 0 {
		maxIter = int(math.Ceil(math.Log(opt.Tolerance/4)/math.Log(d))) + 100
	}
	live := [2]bool{true, true}
	for iter := 0; live[0] || live[1]; iter++ {
		if iter >= maxIter {
			for j := range live {
				if live[j] {
					errs[j] = fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
				}
			}
			break
		}
		if err := ctx.Err(); err != nil {
			return out, errs, err
		}
		var c [2]float64
		for j := range live {
			var dm float64
			for _, u := range v.dangl {
				dm += x[u][j]
			}
			c[j] = d*dm + (1 - d)
		}
		delta := g.sweep2(x, y, rs, d, c, [2]*view{v, v}, live, sorOmega)
		for j := range live {
			if live[j] && delta[j] < opt.Tolerance {
				live[j] = false
				out[j] = laneScores(x, j)
			}
		}
	}
	return out, errs, nil
}

// laneScores takes lane j's scores out of a two-lane iterate (scoresOf).
func laneScores(x [][2]float64, j int) []float64 {
	return scoresOf(len(x), func(u int) float64 { return x[u][j] })
}

// replayPairsOnG is ReplayAll on workers goroutines when G_auth is G:
// each takes two queries and solves them in one pass (solveTwo).
func (r *Replayer) replayPairsOnG(ctx context.Context, qs []Query, workers int, rows []Row, errs []error) {
	par.Each((len(qs)+1)/2, workers, func(p int) {
		if ctx.Err() != nil {
			return
		}
		var idx []int
		var ks []int
		var resets [][]float64
		for i := 2 * p; i < min(2*p+2, len(qs)); i++ {
			k, reset, err := r.queryStart(qs[i])
			if err != nil {
				errs[i] = err
				continue
			}
			idx, ks, resets = append(idx, i), append(ks, k), append(resets, reset)
		}
		if len(idx) < 2 {
			for _, i := range idx { // one query: the ordinary replay
				rows[i], errs[i] = r.replay(ctx, qs[i], true)
			}
			return
		}
		scores, failed, err := r.g.solveTwo(ctx, [2][]float64{resets[0], resets[1]}, r.cfg.Solve, r.full)
		for j, i := range idx {
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("query %q: %w", qs[i].ID, err)
			case failed[j] != nil:
				errs[i] = fmt.Errorf("query %q: %w", qs[i].ID, failed[j])
			default:
				rows[i], errs[i] = r.replayFrom(ctx, qs[i], ks[j], resets[j], scores[j], slices.Clone(scores[j]))
			}
			scores[j] = nil
		}
	})
}
