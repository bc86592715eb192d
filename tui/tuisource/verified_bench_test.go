package tuisource

import (
	"context"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/cputime"
	"github.com/memscope/memscope/verify"
)

// BenchmarkTimeToVerified is what the inspector does from opening a store
// to "verified" (New, the first frame's Shown, Verify up to its Verified
// message), without the interface, against verify.Run (memscope verify)
// on the same store in the same iteration; it reports both in wall and
// CPU seconds and their ratios, and logs when each stage began. Whole
// program: scripts/inspect-verify-ratio.sh.
//
//	MEMSCOPE_BENCH_STORE=/tmp/big/clean go test ./tui/tuisource -run '^$' -bench TimeToVerified -benchtime 1x
func BenchmarkTimeToVerified(b *testing.B) {
	opts := benchOptions(b)
	var inspWall, inspCPU, cliWall, cliCPU time.Duration
	for range b.N {
		runtime.GC()
		t0, c0 := time.Now(), cputime.Process()
		// The labels, which goroutines inherit, tell the two apart in a
		// CPU profile (-cpuprofile; pprof -tagfocus run=inspector).
		pprof.Do(context.Background(), pprof.Labels("run", "verify"), func(ctx context.Context) {
			if _, err := verify.Run(ctx, verify.Options{Snapshot: opts.Snapshot, Log: opts.Log, LogKey: opts.LogKey, TrustRoots: opts.TrustRoots}); err != nil {
				b.Fatal(err)
			}
		})
		cliWall += time.Since(t0)
		cliCPU += cputime.Process() - c0
		runtime.GC()

		t0, c0 = time.Now(), cputime.Process()
		mark := func(what string) {
			b.Logf("%8.2f s wall %8.2f s CPU  %s", time.Since(t0).Seconds(), (cputime.Process() - c0).Seconds(), what)
		}
		var src *Source
		var cancel context.CancelFunc
		pprof.Do(context.Background(), pprof.Labels("run", "inspector"), func(ctx context.Context) {
			var err error
			src, err = New(ctx, opts, false)
			if err != nil {
				b.Fatal(err)
			}
			mark("opened")
			// As the interface does: verification is asked for before the
			// first frame, whose Shown starts the load (which then rides on
			// verification).
			ctx, cancel = context.WithCancel(ctx)
			progress := src.Verify(ctx)
			src.Shown()
			stage := ""
			for p := range progress {
				if p.Err != nil {
					b.Fatal(p.Err)
				}
				if p.Stage != stage {
					stage = p.Stage
					mark("stage " + stage)
				}
				if p.Verified {
					break
				}
			}
			mark("verified")
		})
		inspWall += time.Since(t0)
		inspCPU += cputime.Process() - c0
		cancel() // the MWP audit that follows is not timed
		src.Close()
	}
	n := float64(b.N)
	b.ReportMetric(inspWall.Seconds()/n, "inspector-s")
	b.ReportMetric(inspCPU.Seconds()/n, "inspector-cpu-s")
	b.ReportMetric(cliWall.Seconds()/n, "verify-s")
	b.ReportMetric(cliCPU.Seconds()/n, "verify-cpu-s")
	b.ReportMetric(inspWall.Seconds()/cliWall.Seconds(), "wall-ratio")
	b.ReportMetric(inspCPU.Seconds()/cliCPU.Seconds(), "cpu-ratio")
}
