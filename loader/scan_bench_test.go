package loader

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkEachEntryKey scans the id and leaf columns of a generated
// store's entries, the one pass over every row replay's provenance pass
// makes: MEMSCOPE_BENCH_STORE names a scenario directory (for example made
// by memscope demo --scenario clean --entries 1000000).
func BenchmarkEachEntryKey(b *testing.B) {
	snap := benchSnapshot(b)
	for b.Loop() {
		n := 0
		if err := snap.EachEntryKey(context.Background(), func(k EntryKey) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "rows")
	}
}

// benchSnapshot opens the store MEMSCOPE_BENCH_STORE names, closed at the
// end of the benchmark.
func benchSnapshot(b *testing.B) *Snapshot {
	dir := os.Getenv("MEMSCOPE_BENCH_STORE")
	if dir == "" {
		b.Skip("set MEMSCOPE_BENCH_STORE to a generated scenario directory")
	}
	snap, err := Open(filepath.Join(dir, "snapshot.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { snap.Close() })
	return snap
}

// BenchmarkEachEntryKeyRange is the same scan through EachEntryKeyRange,
// in two halves on two goroutines, as replay's provenance pass reads it.
func BenchmarkEachEntryKeyRange(b *testing.B) {
	snap := benchSnapshot(b)
	ctx := context.Background()
	lo, hi, _, err := snap.SeqBounds(ctx, "entries")
	if err != nil {
		b.Fatal(err)
	}
	for _, parts := range []int64{1, 2} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			for b.Loop() {
				var n atomic.Int64
				var wg sync.WaitGroup
				step := (hi - lo + parts) / parts
				for p := int64(0); p < parts; p++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						a := lo + p*step
						if err := snap.EachEntryKeyRange(ctx, a, min(hi, a+step-1), func(k EntryKey) error { n.Add(1); return nil }); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(n.Load()), "rows")
			}
		})
	}
}
