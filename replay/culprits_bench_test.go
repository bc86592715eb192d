package replay

import (
	"context"
	"slices"
	"sort"
	"syscall"
	"testing"

	"github.com/memscope/memscope/diff"
)

// divergingQueries returns the benchmark queries whose G and G_auth
// selections differ: the rows a culprit search runs on.
func divergingQueries(b *testing.B, r *Replayer, qs []Query) []Query {
	var out []Query
	for _, q := range qs {
		row, err := r.Replay(context.Background(), q)
		if err != nil {
			b.Fatal(err)
		}
		if row.Class != diff.Same {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		b.Skip("no benchmark query diverges")
	}
	return out
}

// BenchmarkCulprits: one diverging row's culprit search on the 50k-node
// graph, per mode (the replay of the row itself included).
func BenchmarkCulprits(b *testing.B) {
	g, qs := bench(b)
	plain, _ := NewReplayer(g, Config{})
	div := divergingQueries(b, plain, qs)
	b.Logf("%d of %d queries diverge", len(div), len(qs))
	for _, mode := range []CulpritMode{CulpritsFast, CulpritsMinimal} {
		r, err := NewReplayer(g, Config{Culprits: true, CulpritMode: mode})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(mode), func(b *testing.B) {
			solves, sweeps, work := 0, 0, int64(0)
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				row, err := r.Replay(context.Background(), div[i%len(div)])
				if err != nil {
					b.Fatal(err)
				}
				solves += row.Culprits.Solves
				sweeps += row.Culprits.Sweeps
				work += row.Culprits.PushWork
			}
			b.ReportMetric(float64(solves)/float64(b.N), "solves/row")
			b.ReportMetric((cpuTime()-cpu0)*1000/float64(b.N), "cpu-ms/row")
			b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/row")
			b.ReportMetric(float64(work)/float64(len(g.cols))/float64(b.N), "push-passes/row")
		})
	}
	// The search as it was, on the same rows in the same run: the
	// yardstick of the speed-up (the row's own replay is today's in both).
	b.Run("old", func(b *testing.B) {
		solves, sweeps := 0, 0
		cpu0 := cpuTime()
		for i := 0; i < b.N; i++ {
			_, _, n, s, err := oldCulprits(context.Background(), plain, div[i%len(div)])
			if err != nil {
				b.Fatal(err)
			}
			solves += n
			sweeps += s
		}
		b.ReportMetric(float64(solves)/float64(b.N), "solves/row")
		b.ReportMetric((cpuTime()-cpu0)*1000/float64(b.N), "cpu-ms/row")
		b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/row")
	})
}

// cpuTime is the process's user+system CPU seconds: with other jobs on the
// machine, CPU time per row moves far less than wall time.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// oldCulprits is the culprit search as it was before warm starts and
// pushes (commit d489cb1): ddmin over the candidates ordered by the walk
// mass they carry on G, one test at a time, each a cold plain Gauss-Seidel
// solve to the full tolerance followed by the top-k, then one such solve
// per culprit for its effect alone. It is the yardstick the benchmark
// measures against in the same run, and the reference the tests hold the
// new search's answers to. It returns the set's edge ids in edge order and
// whether ddmin completed within r's CulpritBudget (counted as it was: the
// full set's test, then budget-1 for ddmin).
func oldCulprits(ctx context.Context, r *Replayer, q Query) (set []string, minimal bool, solves, sweeps int, err error) {
	g := r.g
	k, err := r.queryK(q)
	if err != nil {
		return nil, false, 0, 0, err
	}
	reset, err := g.ResetVector(q.Reset)
	if err != nil {
		return nil, false, 0, 0, err
	}
	// The row itself: G and G_auth with today's solver, as Replay does.
	scores, err := g.solve(ctx, reset, r.cfg.Solve, []*view{r.full, r.auth})
	if err != nil {
		return nil, false, 0, 0, err
	}
	row, err := r.baseRow(q, k, scores[0], scores[1])
	if err != nil || row.Class == diff.Same {
		return nil, false, 0, 0, err
	}
	onG := scores[0]
	solve := func(without []int32) ([]float64, error) {
		solves++
		x, n, err := oldSolve(ctx, g, reset, r.cfg.Solve, g.newView(without))
		sweeps += n
		return x, err
	}
	cands := r.reachableUnauth(reset)
	flow := func(e int32) float64 {
		a, b := g.ends[e][0], g.ends[e][1]
		var f float64
		if s := g.strength[a]; s > 0 {
			f += g.walkW[e] * onG[a] / s
		}
		if s := g.strength[b]; s > 0 {
			f += g.walkW[e] * onG[b] / s
		}
		return f
	}
	sort.SliceStable(cands, func(i, j int) bool { return flow(cands[i]) > flow(cands[j]) })
	want := row.GAuth.IDs()
	restores := func(without []int32) (bool, error) {
		x, err := solve(without)
		if err != nil {
			return false, err
		}
		return slices.Equal(g.selectPassages(x, k).IDs(), want), nil
	}
	if ok, err := restores(cands); err != nil || !ok {
		return nil, false, solves, sweeps, err
	}
	c := append([]int32(nil), cands...)
	n := 2
	minimal = true
	budget := r.cfg.CulpritBudget - 1
	spent := 0
	try := func(s []int32) (bool, error) {
		spent++
		return restores(s)
	}
ddmin:
	for len(c) >= 2 {
		n = min(n, len(c))
		parts := split(c, n)
		reduced := false
		for _, p := range parts {
			if spent >= budget {
				minimal = false
				break ddmin
			}
			ok, err := try(p)
			if err != nil {
				return nil, false, solves, sweeps, err
			}
			if ok {
				c, n, reduced = p, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range parts {
				if spent >= budget {
					minimal = false
					break ddmin
				}
				comp := complement(parts, i)
				ok, err := try(comp)
				if err != nil {
					return nil, false, solves, sweeps, err
				}
				if ok {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	slices.Sort(c)
	for _, e := range c {
		if _, err := solve([]int32{e}); err != nil {
			return nil, false, solves, sweeps, err
		}
		set = append(set, g.EdgeID(int(e)))
	}
	return set, minimal, solves, sweeps, nil
}

// oldSolve is the cold plain Gauss-Seidel solve of before: from the reset
// vector, omega 1, until a sweep moves the scores less than the tolerance.
func oldSolve(ctx context.Context, g *Graph, r []float64, opt SolveOptions, v *view) ([]float64, int, error) {
	d := opt.Damping
	x := append([]float64(nil), r...)
	y := make([]float64, len(r))
	for u := range x {
		y[u] = x[u] * v.invS[u]
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, n, err
		}
		var dm float64
		for _, u := range v.dangl {
			dm += x[u]
		}
		if g.sweep1(x, y, r, d, d*dm+(1-d), v, 1) < opt.Tolerance {
			normalise(x)
			return x, n, nil
		}
	}
}
