package replay

import (
	"context"
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
			solves, sweeps := 0, 0
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				row, err := r.Replay(context.Background(), div[i%len(div)])
				if err != nil {
					b.Fatal(err)
				}
				solves += row.Culprits.Solves
				sweeps += row.Culprits.Sweeps
			}
			b.ReportMetric(float64(solves)/float64(b.N), "solves/row")
			b.ReportMetric((cpuTime()-cpu0)*1000/float64(b.N), "cpu-ms/row")
			b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/row")
		})
	}
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
