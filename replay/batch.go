package replay

import (
	"context"
	"fmt"
	"math"

	"github.com/memscope/memscope/internal/par"
)

// batchQueries is how many queries one batched solve carries: each node's
// scores on G and G_auth for all of them fill one 64-byte cache line
// (batchWidth float64s), so the random read of a neighbour's scores, which
// is what a sweep of a large graph waits on, serves eight vectors instead
// of two, and the CSR streams once for four queries.
const (
	batchQueries = 4
	batchWidth   = 2 * batchQueries
)

// solvePairs solves G (v0) and G_auth (v1) for up to batchQueries reset
// vectors at once. Each query's pair gets exactly what solvePair(r, v0,
// v1, r, r) gives it, bit for bit: the same operations in the same order on
// its own slots of the batch, and it stops at the sweep where its own pair
// has converged (its slots are then left alone while the others go on).
// errs[q] is set for a query whose pair did not converge; a cancelled ctx
// is returned as the error of the whole batch.
func (g *Graph) solvePairs(ctx context.Context, rs [][]float64, opt SolveOptions, v0, v1 *view) (out [][2][]float64, errs []error, err error) {
	if len(rs) > batchQueries {
		return nil, nil, fmt.Errorf("replay: %d queries in a batch of at most %d", len(rs), batchQueries)
	}
	opt, err = opt.normalised()
	if err != nil {
		return nil, nil, err
	}
	n, d := len(g.nodes), opt.Damping
	x := make([]float64, n*batchWidth)
	y := make([]float64, n*batchWidth)
	var live [batchQueries]bool
	var batch [batchQueries][]float64
	for q, r := range rs {
		live[q], batch[q] = true, r
		for u := 0; u < n; u++ {
			x[u*batchWidth+2*q], x[u*batchWidth+2*q+1] = r[u], r[u]
			y[u*batchWidth+2*q], y[u*batchWidth+2*q+1] = r[u]*v0.invS[u], r[u]*v1.invS[u]
		}
	}
	out = make([][2][]float64, len(rs))
	errs = make([]error, len(rs))
	maxIter := 1
	if d > 0 {
		maxIter = int(math.Ceil(math.Log(opt.Tolerance/4)/math.Log(d))) + 100
	}
	left := len(rs)
	for iter := 0; left > 0; iter++ {
		if iter >= maxIter {
			for q := range rs {
				if live[q] {
					errs[q] = fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
				}
			}
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var c, delta [batchWidth]float64
		for q := range rs {
			if !live[q] {
				continue
			}
			var dm0, dm1 float64
			for _, u := range v0.dangl {
				dm0 += x[int(u)*batchWidth+2*q]
			}
			for _, u := range v1.dangl {
				dm1 += x[int(u)*batchWidth+2*q+1]
			}
			c[2*q], c[2*q+1] = d*dm0+(1-d), d*dm1+(1-d)
		}
		g.sweepBatch(x, y, &batch, d, &c, &delta, v0, v1, &live, sorOmega)
		for q := range rs {
			if live[q] && delta[2*q] < opt.Tolerance && delta[2*q+1] < opt.Tolerance {
				live[q] = false
				left--
				out[q] = pairScores(x, q)
			}
		}
	}
	return out, errs, nil
}

// pairScores takes query q's G and G_auth scores out of the batch as
// solvePair does: negative residue clamped to 0, then scaled to sum 1.
func pairScores(x []float64, q int) [2][]float64 {
	n := len(x) / batchWidth
	out := [2][]float64{make([]float64, n), make([]float64, n)}
	var sum [2]float64
	for u := 0; u < n; u++ {
		for j := 0; j < 2; j++ {
			v := max(x[u*batchWidth+2*q+j], 0)
			out[j][u] = v
			sum[j] += v
		}
	}
	for j := range out {
		for u := range out[j] {
			out[j][u] /= sum[j]
		}
	}
	return out
}

// sweepBatch is sweep2 for every live query of a batch: slot 2q is query
// q on v0, slot 2q+1 on v1. Slots of queries not live are read (they share
// the cache line) but neither updated nor counted.
func (g *Graph) sweepBatch(x, y []float64, rs *[batchQueries][]float64, d float64, c, delta *[batchWidth]float64, v0, v1 *view, live *[batchQueries]bool, omega float64) {
	g.sweeps.Add(1)
	off, cols, w := g.offsets, g.cols, g.weights
	inv0, inv1 := v0.invS, v1.invS
	corr0, corr1 := v0.corr, v1.corr
	k0, k1 := 0, 0
	for v := range g.nodes {
		cs := cols[off[v]:off[v+1]]
		ws := w[off[v]:off[v+1]]
		ws = ws[:len(cs)]
		var a [batchWidth]float64
		for i, u := range cs {
			wi := ws[i]
			yy := (*[batchWidth]float64)(y[int(u)*batchWidth:])
			a[0] += wi * yy[0]
			a[1] += wi * yy[1]
			a[2] += wi * yy[2]
			a[3] += wi * yy[3]
			a[4] += wi * yy[4]
			a[5] += wi * yy[5]
			a[6] += wi * yy[6]
			a[7] += wi * yy[7]
		}
		for ; k0 < len(corr0) && int(corr0[k0].v) == v; k0++ {
			cw, yy := corr0[k0].w, (*[batchWidth]float64)(y[int(corr0[k0].u)*batchWidth:])
			a[0] -= cw * yy[0]
			a[2] -= cw * yy[2]
			a[4] -= cw * yy[4]
			a[6] -= cw * yy[6]
		}
		for ; k1 < len(corr1) && int(corr1[k1].v) == v; k1++ {
			cw, yy := corr1[k1].w, (*[batchWidth]float64)(y[int(corr1[k1].u)*batchWidth:])
			a[1] -= cw * yy[1]
			a[3] -= cw * yy[3]
			a[5] -= cw * yy[5]
			a[7] -= cw * yy[7]
		}
		xv := (*[batchWidth]float64)(x[v*batchWidth:])
		yv := (*[batchWidth]float64)(y[v*batchWidth:])
		for q := range batchQueries {
			if !live[q] {
				continue
			}
			j := 2 * q
			rv := rs[q][v]
			n0, n1 := d*a[j]+c[j]*rv, d*a[j+1]+c[j+1]*rv
			if omega != 1 {
				n0, n1 = xv[j]+omega*(n0-xv[j]), xv[j+1]+omega*(n1-xv[j+1])
			}
			delta[j] += math.Abs(n0 - xv[j])
			delta[j+1] += math.Abs(n1 - xv[j+1])
			xv[j], xv[j+1] = n0, n1
			yv[j], yv[j+1] = n0*inv0[v], n1*inv1[v]
		}
	}
}

// replayBatches is ReplayAll on workers goroutines: each takes a batch of
// up to batchQueries queries, solves their pairs together (solvePairs)
// and finishes their rows one by one. Batches are made smaller when there
// are too few queries to give every worker one.
func (r *Replayer) replayBatches(ctx context.Context, qs []Query, workers int, rows []Row, errs []error) {
	size := min(batchQueries, max(1, (len(qs)+workers-1)/workers))
	batches := (len(qs) + size - 1) / size
	par.Each(batches, workers, func(b int) {
		if ctx.Err() != nil {
			return
		}
		lo, hi := b*size, min((b+1)*size, len(qs))
		var idx []int
		var ks []int
		var resets [][]float64
		for i := lo; i < hi; i++ {
			k, reset, err := r.queryStart(qs[i])
			if err != nil {
				errs[i] = err
				continue
			}
			idx, ks, resets = append(idx, i), append(ks, k), append(resets, reset)
		}
		if len(idx) == 0 {
			return
		}
		scores, failed, err := r.g.solvePairs(ctx, resets, r.cfg.Solve, r.full, r.auth)
		if err != nil {
			for _, i := range idx {
				errs[i] = fmt.Errorf("query %q: %w", qs[i].ID, err)
			}
			return
		}
		for j, i := range idx {
			if failed[j] != nil {
				errs[i] = fmt.Errorf("query %q: %w", qs[i].ID, failed[j])
				continue
			}
			rows[i], errs[i] = r.replayFrom(ctx, qs[i], ks[j], resets[j], scores[j][0], scores[j][1])
			scores[j] = [2][]float64{} // the row keeps what it needs
		}
	})
}
