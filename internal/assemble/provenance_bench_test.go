package assemble

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
)

// BenchmarkProvenanceReplayer times replay's labels by the provenance pass
// on a generated store: MEMSCOPE_BENCH_STORE names a scenario directory,
// e.g. one made by `memscope demo --scenario clean --entries 1000000`.
// Whole-program time and peak memory: scripts/replay-scale.sh.
func BenchmarkProvenanceReplayer(b *testing.B) {
	dir, m := benchStore(b)
	t := &testing.T{}
	for b.Loop() {
		s := openStore(t, dir, filepath.Join(dir, m.Snapshot), m, "")
		rp, err := s.Replayer(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if s.FellBack != "" {
			b.Fatalf("fell back: %s", s.FellBack)
		}
		if _, err := s.AsRanReplay(context.Background(), rp); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// benchSession keeps the last loaded session reachable, so that a heap
// profile taken at the end (-memprofile, inuse_space) shows what a loaded
// store holds.
var benchSession *Session

// BenchmarkLoadEntries loads every entry and builds the lineage graph, as
// the inspector and the lineage command do (MEMSCOPE_BENCH_STORE as above).
func BenchmarkLoadEntries(b *testing.B) {
	dir, m := benchStore(b)
	t := &testing.T{}
	for b.Loop() {
		if benchSession != nil {
			benchSession.Close()
		}
		s := openStore(t, dir, filepath.Join(dir, m.Snapshot), m, "")
		if err := s.Load(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		benchSession = s
	}
}

// benchStore is the scenario directory MEMSCOPE_BENCH_STORE names.
func benchStore(b *testing.B) (string, *evidence.Manifest) {
	dir := os.Getenv("MEMSCOPE_BENCH_STORE")
	if dir == "" {
		b.Skip("set MEMSCOPE_BENCH_STORE to a generated scenario directory")
	}
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	return dir, m
}
