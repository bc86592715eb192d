package storereplay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/graphfile"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/stores/hipporag"
)

// benchStore is a HotpotQA-size HippoRAG 2 store written by
// stores/hipporag/testdata/make_bench.py (not committed: about 4 MB):
//
//	/usr/bin/python3 stores/hipporag/testdata/make_bench.py /tmp/hbench
//	MEMSCOPE_HIPPO_BENCH=/tmp/hbench go test ./stores/storereplay -run XXX -bench .
func benchStore(b *testing.B) string {
	dir := os.Getenv("MEMSCOPE_HIPPO_BENCH")
	if dir == "" {
		b.Skip("MEMSCOPE_HIPPO_BENCH is not set (see make_bench.py)")
	}
	return dir
}

// BenchmarkOpen: read graph.pickle and the OpenIE results, rebuild every
// edge's provenance (what python-igraph's Graph.Read_Pickle does, plus the
// provenance igraph does not have).
func BenchmarkOpen(b *testing.B) {
	dir := benchStore(b)
	for b.Loop() {
		if _, err := hipporag.Open(context.Background(), dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenAndReplay: open the store and replay one query on G and
// G_auth, as `memscope replay` does (without the culprit search).
func BenchmarkOpenAndReplay(b *testing.B) {
	dir := benchStore(b)
	qf := filepath.Join(dir, "queries.jsonl")
	for b.Loop() {
		st, err := hipporag.Open(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		g, pol, err := Graph(st)
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(qf)
		if err != nil {
			b.Fatal(err)
		}
		raw, err := graphfile.ReadQueries(qf, f, graphfile.JSONL)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		qs, err := Queries(g, qf, raw)
		if err != nil {
			b.Fatal(err)
		}
		rp, err := replay.NewReplayer(g, replay.Config{Policy: pol})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rp.Replay(qs[0]); err != nil {
			b.Fatal(err)
		}
	}
}
