package tlog

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/tlog/appender"
)

const benchLeaves = 1 << 20

// The 1M-leaf log is built once per test binary, under $TMPDIR (set
// TMPDIR=/dev/shm to take the disk's fsync cost out of the write).
var bench1M struct {
	once  sync.Once
	dir   string
	root  []byte
	write time.Duration
	err   error
}

func benchLog(b *testing.B) (string, []byte) {
	bench1M.once.Do(func() {
		base, err := os.MkdirTemp("", "tlogbench")
		if err != nil {
			bench1M.err = err
			return
		}
		benchCleanup = append(benchCleanup, base)
		signer, _ := testKey(b, testOrigin, 1)
		dir := filepath.Join(base, "log")
		ctx := context.Background()
		start := time.Now()
		w, err := appender.Create(ctx, dir, signer)
		if err != nil {
			bench1M.err = err
			return
		}
		batch := make([][]byte, 0, 4096)
		for i := uint64(0); i < benchLeaves; i++ {
			batch = append(batch, testLeaf(i))
			if len(batch) == cap(batch) {
				if _, err := w.AppendAll(ctx, batch); err != nil {
					bench1M.err = err
					return
				}
				batch = batch[:0]
			}
		}
		cpRaw, err := w.Close(ctx)
		if err != nil {
			bench1M.err = err
			return
		}
		bench1M.write = time.Since(start)
		cp, err := ParseCheckpoint(cpRaw)
		if err != nil {
			bench1M.err = err
			return
		}
		bench1M.dir, bench1M.root = dir, cp.Root
	})
	if bench1M.err != nil {
		b.Fatal(bench1M.err)
	}
	b.Logf("1M-leaf log written in %v (%s)", bench1M.write, bench1M.dir)
	return bench1M.dir, bench1M.root
}

var benchCleanup []string

func BenchmarkInclusionProof1M(b *testing.B) {
	dir, root := benchLog(b)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	const index = 777_777
	leaf := testLeaf(index)
	if _, err := r.InclusionProof(ctx, index, benchLeaves); err != nil { // warm the tile cache
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		p, err := r.InclusionProof(ctx, index, benchLeaves)
		if err != nil {
			b.Fatal(err)
		}
		if err := VerifyInclusion(leaf, index, benchLeaves, p, root); err != nil {
			b.Fatal(err)
		}
	}
}

// Proofs of leaves spread over the whole log: most hit an uncached
// level-0 tile (read plus expansion).
func BenchmarkInclusionProof1MSpread(b *testing.B) {
	dir, root := benchLog(b)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	i := uint64(0)
	for b.Loop() {
		i = (i + 104_729) % benchLeaves
		p, err := r.InclusionProof(ctx, i, benchLeaves)
		if err != nil {
			b.Fatal(err)
		}
		if err := VerifyInclusion(testLeaf(i), i, benchLeaves, p, root); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStreamLeaves(b *testing.B) {
	dir, _ := benchLog(b)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		n := uint64(0)
		for l, err := range r.Leaves(ctx, 0, benchLeaves) {
			if err != nil {
				b.Fatal(err)
			}
			n += uint64(len(l.Data))
		}
		b.SetBytes(int64(n))
	}
	b.ReportMetric(float64(benchLeaves)*float64(b.N)/b.Elapsed().Seconds(), "leaves/s")
}

func BenchmarkCheck(b *testing.B) {
	dir, root := benchLog(b)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		probs, err := r.Check(ctx, benchLeaves, root)
		if err != nil || len(probs) != 0 {
			b.Fatal(probs, err)
		}
	}
	b.ReportMetric(float64(benchLeaves)*float64(b.N)/b.Elapsed().Seconds(), "leaves/s")
}

// BenchmarkWrite100k writes a fresh 100k-leaf log per iteration.
func BenchmarkWrite100k(b *testing.B) {
	signer, _ := testKey(b, testOrigin, 1)
	leaves := testLeaves(100_000)
	ctx := context.Background()
	for b.Loop() {
		dir := filepath.Join(b.TempDir(), "log")
		w, err := appender.Create(ctx, dir, signer)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.AppendAll(ctx, leaves); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100_000*float64(b.N)/b.Elapsed().Seconds(), "leaves/s")
}
