package verify

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/record"
	"github.com/memscope/memscope/scenario"
)

// generated holds one scaled clean scenario, built once per process
// (generation signs every record, so it is not part of any timing).
type generated struct {
	once sync.Once
	root string // the temporary directory to remove
	dir  string
	m    *scenario.Manifest
	err  error
}

var (
	benchMu     sync.Mutex
	benchStores = map[int]*generated{}
)

// RemoveBenchStores deletes the generated stores (called from TestMain).
func RemoveBenchStores() {
	benchMu.Lock()
	defer benchMu.Unlock()
	for _, g := range benchStores {
		if g.root != "" {
			os.RemoveAll(g.root)
		}
	}
}

func benchStore(b *testing.B, n int) (Options, *scenario.Manifest) {
	b.Helper()
	benchMu.Lock()
	g, ok := benchStores[n]
	if !ok {
		g = &generated{}
		benchStores[n] = g
	}
	benchMu.Unlock()
	g.once.Do(func() {
		dir, err := os.MkdirTemp("", "memscope-bench-")
		if err != nil {
			g.err = err
			return
		}
		spec, _ := scenario.Lookup("clean")
		g.root = dir
		g.m, g.err = scenario.Generate(context.Background(), dir, spec, scenario.Options{Seed: 7, Entries: n})
		g.dir = filepath.Join(dir, "clean")
	})
	if g.err != nil {
		b.Fatal(g.err)
	}
	var roots []ed25519.PublicKey
	for _, h := range g.m.Anchors.Trust {
		k, err := hex.DecodeString(h)
		if err != nil {
			b.Fatal(err)
		}
		roots = append(roots, k)
	}
	return Options{Snapshot: filepath.Join(g.dir, g.m.Snapshot), Log: filepath.Join(g.dir, g.m.Log), LogKey: g.m.Anchors.LogKey, TrustRoots: roots}, g.m
}

// signedEntries collects what a bare verifier needs: each entry's writer
// key, signing bytes and signature.
func signedEntries(b *testing.B, opts Options) (pubs []ed25519.PublicKey, msgs, sigs [][]byte) {
	b.Helper()
	snap, err := loader.Open(opts.Snapshot)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	keys := map[string]ed25519.PublicKey{}
	err = snap.EachPrincipal(context.Background(), func(r *loader.PrincipalRow) error {
		if r.Event != nil {
			keys[r.Event.Principal] = ed25519.PublicKey(append([]byte{}, r.Event.PublicKey[:]...))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	err = snap.EachEntry(context.Background(), func(r *loader.EntryRow) error {
		msg, err := record.SigningBytes(r.Entry)
		if err != nil {
			return err
		}
		pubs, msgs, sigs = append(pubs, keys[r.Entry.Writer]), append(msgs, msg), append(sigs, r.Entry.Sig)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return pubs, msgs, sigs
}

// BenchmarkVerify100k times memscope's whole verification of the
// 100k-entry clean store against bare crypto/ed25519.Verify of the same
// signatures, in the same run, and reports the ratio (target <= 1.3).
func BenchmarkVerify100k(b *testing.B) { benchVerifyRatio(b, 100000) }

func benchVerifyRatio(b *testing.B, n int) {
	opts, _ := benchStore(b, n)
	pubs, msgs, sigs := signedEntries(b, opts)
	var bare, full time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for j := range sigs {
			if !ed25519.Verify(pubs[j], msgs[j], sigs[j]) {
				b.Fatalf("entry %d does not verify", j)
			}
		}
		t1 := time.Now()
		rep, err := Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK || rep.Entries < n {
			b.Fatalf("clean store did not verify: %d entries, %d findings", rep.Entries, len(rep.Findings))
		}
		full += time.Since(t1)
		bare += t1.Sub(t0)
	}
	b.ReportMetric(float64(full.Milliseconds())/float64(b.N), "verify-ms")
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "bare-ed25519-ms")
	b.ReportMetric(float64(full)/float64(bare), "ratio")
}

// BenchmarkVerify100kOneWorker is the same with signature checking on one
// core, to measure what the second core gives.
func BenchmarkVerify100kOneWorker(b *testing.B) {
	opts, _ := benchStore(b, 100000)
	opts.Workers = 1
	pubs, msgs, sigs := signedEntries(b, opts)
	var bare, full time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for j := range sigs {
			ed25519.Verify(pubs[j], msgs[j], sigs[j])
		}
		t1 := time.Now()
		if _, err := Run(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
		full += time.Since(t1)
		bare += t1.Sub(t0)
	}
	b.ReportMetric(float64(full)/float64(bare), "ratio")
}
