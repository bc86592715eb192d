package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkIdleRound is one round that finds nothing new: the checkpoint
// read and checked, the state read and written back (docs/PERFORMANCE.md;
// with MEMSCOPE_WATCH_BENCH=D, the 1M-leaf log scripts/watchbench wrote in
// D, else a small one).
func BenchmarkIdleRound(b *testing.B) {
	dir, vkey := benchLog(b)
	state := filepath.Join(b.TempDir(), "state.json")
	tg := Target{Log: filepath.Join(dir, "log"), LogKey: vkey}
	ctx := context.Background()
	if _, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil }); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		evs, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
		if err != nil || len(evs) != 0 {
			b.Fatalf("idle round: %v %v", evs, err)
		}
	}
}

func benchLog(b *testing.B) (dir, vkey string) {
	if d := os.Getenv("MEMSCOPE_WATCH_BENCH"); d != "" {
		k, err := os.ReadFile(filepath.Join(d, "log.vkey"))
		if err != nil {
			b.Fatal(err)
		}
		return d, string(k[:len(k)-1])
	}
	dir = b.TempDir()
	k := newLogKey(&testing.T{}, "example.com/bench")
	writeLogB(b, filepath.Join(dir, "log"), k, recordLeaves(1, 1000))
	return dir, k.vkey
}
