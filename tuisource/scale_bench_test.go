package tuisource

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/inspect"
	"github.com/memscope/memscope/scenario"
)

// benchOptions are the options of the scenario directory MEMSCOPE_BENCH_STORE
// names (e.g. one made by `memscope demo --scenario clean --entries 1000000`).
func benchOptions(b *testing.B) inspect.Options {
	dir := os.Getenv("MEMSCOPE_BENCH_STORE")
	if dir == "" {
		b.Skip("set MEMSCOPE_BENCH_STORE to a generated scenario directory")
	}
	m, err := scenario.ReadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	var roots []ed25519.PublicKey
	for _, h := range m.Anchors.Trust {
		k, _ := hex.DecodeString(h)
		roots = append(roots, k)
	}
	return inspect.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, TrustRoots: roots}
}

// BenchmarkFirstFrameStore is what the inspector does before its first
// frame on a real store: New, the overview and a screenful of Entries rows
// (whatever has arrived by then). Whole program: scripts/inspect-timing.sh.
func BenchmarkFirstFrameStore(b *testing.B) {
	opts := benchOptions(b)
	b.ResetTimer()
	for range b.N {
		src, err := New(context.Background(), opts, false)
		if err != nil {
			b.Fatal(err)
		}
		_ = src.Overview()
		for i := range min(40, src.EntryCount()) {
			_ = src.Entry(i)
		}
		// Closing stops the background load: not part of the first frame.
		b.StopTimer()
		src.Close()
		b.StartTimer()
	}
}
