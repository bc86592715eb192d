package verify

import (
	"context"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/cputime"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/loader"
)

// generated holds one scaled clean scenario, built once per process
// (generation signs every record, so it is not part of any timing).
type generated struct {
	once sync.Once
	root string // the temporary directory to remove
	dir  string
	m    *evidence.Manifest
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

func benchStore(b *testing.B, n int) (Options, *evidence.Manifest) {
	b.Helper()
	benchMu.Lock()
	g, ok := benchStores[n]
	if !ok {
		g = &generated{}
		benchStores[n] = g
	}
	benchMu.Unlock()
	g.once.Do(func() {
		// MEMSCOPE_BENCH_STORE names an already generated clean store of
		// n entries (the directory holding scenario.json), which saves
		// generating one per run on a busy machine.
		if dir := os.Getenv("MEMSCOPE_BENCH_STORE"); dir != "" {
			g.dir = dir
			g.m, g.err = evidence.ReadManifest(dir)
			return
		}
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
	roots := evidencetest.Roots(b, g.m)
	return Options{Snapshot: filepath.Join(g.dir, g.m.Snapshot), Log: filepath.Join(g.dir, g.m.Log), LogKey: g.m.Anchors.LogKey, TrustRoots: roots}, g.m
}

// signedRecords collects what a bare verifier needs for every record
// signature verify checks: each signer's key, the signing bytes and the
// signature, of the registry events (under their root), entries, writes,
// tombstones and signed event rows (queries, actions, gate events, node
// declarations). Only the checkpoint notes' few signatures are left out.
func signedRecords(b *testing.B, opts Options) (pubs []ed25519.PublicKey, msgs, sigs [][]byte) {
	b.Helper()
	ctx := context.Background()
	snap, err := loader.Open(opts.Snapshot)
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	keys := map[string]ed25519.PublicKey{}
	add := func(pub ed25519.PublicKey, raw, sig []byte) error {
		msg, err := record.SigningBytesOf(raw, sig)
		if err != nil {
			return err
		}
		if pub == nil {
			b.Fatal("a record's signer has no registered key")
		}
		pubs, msgs, sigs = append(pubs, pub), append(msgs, msg), append(sigs, sig)
		return nil
	}
	err = snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		if r.Event == nil {
			return nil
		}
		keys[r.Event.Principal] = ed25519.PublicKey(append([]byte{}, r.Event.PublicKey[:]...))
		return add(ed25519.PublicKey(r.Event.Root[:]), r.Raw, r.Event.Sig)
	})
	if err != nil {
		b.Fatal(err)
	}
	err = snap.EachEntry(ctx, func(r *loader.EntryRow) error { return add(keys[r.Entry.Writer], r.Raw, r.Entry.Sig) })
	if err == nil {
		err = snap.EachWrite(ctx, func(r *loader.WriteRow) error { return add(keys[r.Write.Writer], r.Raw, r.Write.Sig) })
	}
	if err == nil {
		err = snap.EachTombstone(ctx, func(r *loader.TombstoneRow) error { return add(keys[r.Tombstone.Writer], r.Raw, r.Tombstone.Sig) })
	}
	if err != nil {
		b.Fatal(err)
	}
	var events []*loader.RowRecord
	nodes, err := snap.Nodes(ctx)
	for i := range nodes {
		events = append(events, nodes[i].Record)
	}
	queries, err2 := snap.Queries(ctx)
	for i := range queries {
		events = append(events, queries[i].Record)
	}
	actions, err3 := snap.Actions(ctx)
	for i := range actions {
		events = append(events, actions[i].Record)
	}
	gates, err4 := snap.GateEvents(ctx)
	for i := range gates {
		events = append(events, gates[i].Record)
	}
	if err := errors.Join(err, err2, err3, err4); err != nil {
		b.Fatal(err)
	}
	for _, rr := range events {
		if rr.Signed() {
			if err := add(keys[rr.Writer], rr.Raw, rr.Sig); err != nil {
				b.Fatal(err)
			}
		}
	}
	return pubs, msgs, sigs
}

// BenchmarkVerify100k times memscope's whole verification of the
// 100k-entry clean store against bare crypto/ed25519.Verify of the same
// signatures (every record's, on one goroutine), in the same run, and
// reports the ratio (target <= 1.0 with two cores).
func BenchmarkVerify100k(b *testing.B) { benchVerifyRatio(b, 100000, 0) }

// BenchmarkVerify100kOneWorker is the same with one signature worker (the
// reading goroutine, which also decodes, keeps the other core).
func BenchmarkVerify100kOneWorker(b *testing.B) { benchVerifyRatio(b, 100000, 1) }

func benchVerifyRatio(b *testing.B, n, workers int) {
	opts, _ := benchStore(b, n)
	opts.Workers = workers
	pubs, msgs, sigs := signedRecords(b, opts)
	var bare, full, bareCPU, fullCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// The garbage of earlier phases is collected outside both timings.
		runtime.GC()
		c0, t0 := cputime.Process(), time.Now()
		for j := range sigs {
			if !ed25519.Verify(pubs[j], msgs[j], sigs[j]) {
				b.Fatalf("signature %d does not verify", j)
			}
		}
		c1, t1 := cputime.Process(), time.Now()
		rep, err := Run(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		if !rep.OK || rep.Entries < n {
			b.Fatalf("clean store did not verify: %d entries, %d findings", rep.Entries, len(rep.Findings))
		}
		full += time.Since(t1)
		bare += t1.Sub(t0)
		fullCPU += cputime.Process() - c1
		bareCPU += c1 - c0
	}
	b.ReportMetric(float64(full.Milliseconds())/float64(b.N), "verify-ms")
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "bare-ed25519-ms")
	b.ReportMetric(float64(len(sigs)), "signatures")
	b.ReportMetric(float64(full)/float64(bare), "ratio")
	// With GOMAXPROCS=1 the CPU times are the wall times of a quiet
	// machine, and their ratio holds under load; with more cores verify's
	// CPU time includes the work its second core does in parallel.
	if bareCPU > 0 {
		b.ReportMetric(float64(fullCPU)/float64(bareCPU), "cpu-ratio")
	}
}
