package replay

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/cputime"
)

// BenchmarkLanesOnG solves four queries on G one after the other (solve),
// two to a pass (two lanes, sweep2) and four to a pass (four lanes,
// sweepLanes), on one core: the ratios are what solving queries together
// saves.
func BenchmarkLanesOnG(b *testing.B) {
	g, qs := benchGraph(100_000, 1_000_000, 6_000_000, 0)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		b.Fatal(err)
	}
	rs := make([][]float64, 4)
	for j := range rs {
		if _, rs[j], err = r.queryStart(qs[j]); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	// The graph's heap is large: a collection inside one variant's loop
	// and not another's would be most of their difference.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	b.Run("one-by-one", func(b *testing.B) {
		defer reportCPU(b, cputime.Process())
		for b.Loop() {
			for _, reset := range rs {
				if _, err := g.solve(ctx, reset, r.cfg.Solve, []*view{r.full}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, per := range []int{2, 4} {
		b.Run(map[int]string{2: "two-per-pass", 4: "four-per-pass"}[per], func(b *testing.B) {
			defer reportCPU(b, cputime.Process())
			for b.Loop() {
				for lo := 0; lo < len(rs); lo += per {
					if _, _, err := g.solveLanes(ctx, rs[lo:lo+per], r.cfg.Solve, r.full); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// reportCPU reports the process's CPU time per op since start: on a shared
// machine it moves less with the load than the wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cputime.Process()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
