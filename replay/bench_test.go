package replay

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// benchGraph builds a deterministic HippoRAG-like graph: passages linked to
// the entities they mention (weight 1), entity-entity fact edges (weights
// 1..4, median 1), synonymy edges (0.8..1), and a few hundred unauthenticated
// no-source writes, some at the paper's attack weights 60 and 120.
func benchGraph(passages, entities, edges, unauth int) (*Graph, []Query) {
	rng := rand.New(rand.NewPCG(2026, 6))
	nodes := make([]Node, 0, passages+entities)
	for i := 0; i < passages; i++ {
		nodes = append(nodes, Node{ID: fmt.Sprintf("p%d", i), Kind: KindPassage, Authenticated: true})
	}
	for i := 0; i < entities; i++ {
		nodes = append(nodes, Node{ID: fmt.Sprintf("e%d", i), Kind: KindEntity, Authenticated: true})
	}
	// Skewed entity choice: a few hub entities, a long tail.
	entity := func() int { return passages + rng.IntN(rng.IntN(entities)+1) }
	es := make([]Edge, 0, edges)
	add := func(a, b int, w float64, prov Provenance) {
		es = append(es, Edge{ID: fmt.Sprintf("x%d", len(es)), Src: nodes[a].ID, Dst: nodes[b].ID, Weight: w, Prov: prov})
	}
	mentions := edges * 23 / 100
	synonyms := edges * 6 / 100
	for i := 0; i < mentions; i++ {
		add(i%passages, entity(), 1, signed)
	}
	facts := edges - mentions - synonyms - unauth
	factWeights := []float64{1, 1, 1, 1, 1, 1, 2, 2, 3, 4}
	for i := 0; i < facts; i++ {
		add(entity(), entity(), factWeights[rng.IntN(len(factWeights))], signed)
	}
	for i := 0; i < synonyms; i++ {
		add(entity(), entity(), 0.8+0.2*rng.Float64(), signed)
	}
	for i := 0; i < unauth; i++ {
		w := factWeights[rng.IntN(len(factWeights))]
		if i%20 == 0 {
			w = []float64{60, 120}[i%40/20]
		}
		add(entity(), rng.IntN(passages), w, noSource)
	}
	g, err := NewGraph(nodes, es, DropSelfLoops)
	if err != nil {
		panic(err)
	}
	var qs []Query
	for qi := 0; qi < 16; qi++ {
		reset := map[string]float64{}
		for s := 0; s < 5; s++ {
			reset[nodes[entity()].ID] += 0.2 + rng.Float64()
		}
		// Every passage at 0.05 x a min-max normalised dense score.
		for p := 0; p < passages; p++ {
			reset[nodes[p].ID] += 0.05 * rng.Float64()
		}
		qs = append(qs, Query{ID: fmt.Sprintf("q%d", qi), Reset: reset})
	}
	return g, qs
}

const (
	benchPassages = 10_000
	benchEntities = 40_000
	benchEdges    = 350_000
	benchUnauth   = 300
)

var benchCache struct {
	g  *Graph
	qs []Query
}

func bench(b *testing.B) (*Graph, []Query) {
	if benchCache.g == nil {
		benchCache.g, benchCache.qs = benchGraph(benchPassages, benchEntities, benchEdges, benchUnauth)
	}
	return benchCache.g, benchCache.qs
}

// BenchmarkReplayGAndGAuth: one query on G and G_auth, solved together.
func BenchmarkReplayGAndGAuth(b *testing.B) {
	g, qs := bench(b)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Replay(context.Background(), qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayGAndGAuthOneQuery replays the query TestExportBenchGraph
// exports, the one igraph is timed on (scripts/replay-vs-igraph.sh).
func BenchmarkReplayGAndGAuthOneQuery(b *testing.B) {
	g, qs := bench(b)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Replay(context.Background(), qs[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPPRGOnly: one PPR solve on G alone, the unit igraph is timed on.
func BenchmarkPPRGOnly(b *testing.B) {
	g, qs := bench(b)
	r, _ := g.ResetVector(qs[0].Reset)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.PPR(context.Background(), r, SolveOptions{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplayAll replays 16 queries with 1 and 2 workers.
func BenchmarkReplayAll(b *testing.B) {
	g, qs := bench(b)
	r, _ := NewReplayer(g, Config{})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := r.ReplayAll(context.Background(), qs, workers); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0)*1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkNewGraph shows build memory growing linearly with edges.
func BenchmarkNewGraph(b *testing.B) {
	for _, scale := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("edges=%dk", 87*scale), func(b *testing.B) {
			g, _ := benchGraph(2500*scale, 10000*scale, 87_500*scale, 75*scale)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := NewGraph(g.nodes, g.Edges(), DropSelfLoops); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestExportBenchGraph writes the benchmark graph for
// replay/testdata/bench_igraph.py when MEMSCOPE_BENCH_EXPORT names a file:
//
//	MEMSCOPE_BENCH_EXPORT=/tmp/bench.txt go test ./replay -run TestExportBenchGraph
//	/usr/bin/python3 replay/testdata/bench_igraph.py /tmp/bench.txt
//
// Lines: "n N", "e SRC DST WEIGHT UNAUTH" (node indices), "r NODE MASS"
// (query q0's normalised reset), "top G|GAUTH ids..." (Go's top-5 for q0).
func TestExportBenchGraph(t *testing.T) {
	path := os.Getenv("MEMSCOPE_BENCH_EXPORT")
	if path == "" {
		t.Skip("set MEMSCOPE_BENCH_EXPORT to export the benchmark graph")
	}
	g, qs := benchGraph(benchPassages, benchEntities, benchEdges, benchUnauth)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Replay(context.Background(), qs[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "n %d\n", len(g.nodes))
	for i, e := range g.Edges() {
		u := 0
		if !r.Authenticated(i) {
			u = 1
		}
		fmt.Fprintf(w, "e %d %d %.17g %d\n", g.nodeIndex[e.Src], g.nodeIndex[e.Dst], e.Weight, u)
	}
	reset, _ := g.ResetVector(qs[0].Reset)
	for i, m := range reset {
		if m > 0 {
			fmt.Fprintf(w, "r %d %.17g\n", i, m)
		}
	}
	for _, side := range []struct {
		name string
		sel  Selection
	}{{"G", row.G}, {"GAUTH", row.GAuth}} {
		fmt.Fprint(w, "top ", side.name)
		for _, it := range side.sel.Items {
			fmt.Fprint(w, " ", g.nodeIndex[it.NodeID])
		}
		fmt.Fprintln(w)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: class %s", path, row.Class)
}
