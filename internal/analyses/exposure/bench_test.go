package exposure

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memscope/memscope/internal/analyses/leiden"
	"github.com/memscope/memscope/internal/cputime"
	"github.com/memscope/memscope/replay"
)

// benchStore builds a deterministic HippoRAG-like graph of about 50k nodes
// (10k passages, 40k entities, 350k edges, as replay's benchmark): passages
// mention entities (weight 1), entity facts (weights 1..4, median 1),
// synonyms (0.8..1), 300 no-source writes; 16 queries with five seed
// entities each, every passage at 0.05 x a dense score, and passage text
// for BM25.
func benchStore() (*replay.Replayer, []replay.Query) {
	return genStore(10_000, 40_000, 350_000, 300)
}

func genStore(passages, entities, edges, unauth int) (*replay.Replayer, []replay.Query) {
	rng := rand.New(rand.NewPCG(2026, 15))
	signed := replay.Provenance{Writer: "agent:1", SignatureValid: true, WriterRegistered: true, Channel: replay.ChannelAuthenticated, Sources: []string{"doc"}}
	noSource := replay.Provenance{Writer: "agent:evil", SignatureValid: true, WriterRegistered: true, Channel: replay.ChannelAuthenticated}
	nodes := make([]replay.Node, 0, passages+entities)
	for i := 0; i < passages; i++ {
		nodes = append(nodes, replay.Node{ID: fmt.Sprintf("p%d", i), Kind: replay.KindPassage, Authenticated: true,
			Label: fmt.Sprintf("passage %d about topic %d and topic %d", i, rng.IntN(500), rng.IntN(500))})
	}
	for i := 0; i < entities; i++ {
		nodes = append(nodes, replay.Node{ID: fmt.Sprintf("e%d", i), Kind: replay.KindEntity, Authenticated: true})
	}
	entity := func() int { return passages + rng.IntN(rng.IntN(entities)+1) }
	es := make([]replay.Edge, 0, edges)
	add := func(a, b int, w float64, prov replay.Provenance) {
		es = append(es, replay.Edge{ID: fmt.Sprintf("x%d", len(es)), Src: nodes[a].ID, Dst: nodes[b].ID, Weight: w, Prov: prov})
	}
	mentions, synonyms := edges*23/100, edges*6/100
	for i := 0; i < mentions; i++ {
		add(i%passages, entity(), 1, signed)
	}
	fw := []float64{1, 1, 1, 1, 1, 1, 2, 2, 3, 4}
	for i := 0; i < edges-mentions-synonyms-unauth; i++ {
		add(entity(), entity(), fw[rng.IntN(len(fw))], signed)
	}
	for i := 0; i < synonyms; i++ {
		add(entity(), entity(), 0.8+0.2*rng.Float64(), signed)
	}
	for i := 0; i < unauth; i++ {
		add(entity(), rng.IntN(passages), []float64{1, 2, 60, 120}[i%4], noSource)
	}
	g, err := replay.NewGraph(nodes, es, replay.DropSelfLoops)
	if err != nil {
		panic(err)
	}
	rp, err := replay.NewReplayer(g, replay.Config{})
	if err != nil {
		panic(err)
	}
	var qs []replay.Query
	for qi := 0; qi < 16; qi++ {
		reset, dense := map[string]float64{}, map[string]float64{}
		for s := 0; s < 5; s++ {
			reset[nodes[entity()].ID] += 0.2 + rng.Float64()
		}
		for p := 0; p < passages; p++ {
			d := rng.Float64()
			dense[nodes[p].ID] = d
			reset[nodes[p].ID] += 0.05 * d
		}
		qs = append(qs, replay.Query{ID: fmt.Sprintf("q%d", qi), Text: fmt.Sprintf("topic %d", qi), Reset: reset, DenseScores: dense})
	}
	return rp, qs
}

// BenchmarkExposurePPR50k: 16 queries x 1,000 draws at each of the two
// budgets, PPR only (the warm-started push), all cores.
func BenchmarkExposurePPR50k(b *testing.B) {
	rp, qs := benchStore()
	b.ResetTimer()
	c0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(context.Background(), rp, qs, Options{Seed: 1, Draws: benchDraws, CurveDraws: -1, Selectors: []string{PPR}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkExposureAll50k: every selector, 16 queries x 100 draws per
// budget, the 16-point curve at 5 sequences per query.
func BenchmarkExposureAll50k(b *testing.B) {
	rp, qs := benchStore()
	b.ResetTimer()
	c0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(context.Background(), rp, qs, Options{Seed: 1, Draws: 100, CurveDraws: 5}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-c0).Seconds()/float64(b.N), "cpu-s/op")
}

// benchDraws is the draws per query and budget of BenchmarkExposurePPR50k.
const benchDraws = 1000

// benchDrawsOf runs the same 64 draws (half clean, half heavy) of query 0,
// warm-started or cold: the ratio of the two is the warm start's gain,
// measured inside one run.
func benchDrawsOf(b *testing.B, cold bool) {
	rp, qs := benchStore()
	p, draws := drawSet(b, rp, qs[0], 64)
	p.cold = cold
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.solve(draws[i%len(draws)])
	}
}

// drawSet prepares a pusher for q and n draws (half clean, half heavy).
func drawSet(tb testing.TB, rp *replay.Replayer, q replay.Query, n int) (*pusher, [][]extra) {
	e, err := newEnv(context.Background(), rp, Options{Selectors: []string{PPR}, Damping: 0.5})
	if err != nil {
		tb.Fatal(err)
	}
	g := rp.Graph()
	r, err := g.ResetVector(q.Reset)
	if err != nil {
		tb.Fatal(err)
	}
	sc, err := g.PPR(context.Background(), r, replay.SolveOptions{}, e.unauth)
	if err != nil {
		tb.Fatal(err)
	}
	p := newPusher(e.adjA, 0.5, r, sc[0], e.isP, e.passages, 5)
	var seeds []int32
	for v, m := range r {
		if m > 0 && !e.isP[v] {
			seeds = append(seeds, int32(v))
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	var draws [][]extra
	for i := 0; i < n; i++ {
		t := e.passages[rng.IntN(len(e.passages))]
		w := 1 + rng.Float64()
		if i%2 == 1 {
			w = 60
		}
		var es []extra
		for j := 0; j < 3; j++ {
			es = append(es, extra{seeds[rng.IntN(len(seeds))], t, w})
		}
		draws = append(draws, es)
	}
	return p, draws
}

func BenchmarkDrawWarm50k(b *testing.B) { benchDrawsOf(b, false) }
func BenchmarkDrawCold50k(b *testing.B) { benchDrawsOf(b, true) }

// BenchmarkLeidenRun50k: one full Leiden run (local moving, refinement,
// aggregation, rerun until stable) on the 50k graph's G_auth: the cost of
// one from-scratch recomputation per Monte Carlo draw.
func BenchmarkLeidenRun50k(b *testing.B) {
	rp, _ := benchStore()
	o, err := Options{Seed: 1, Selectors: []string{PPR}}.normalised()
	if err != nil {
		b.Fatal(err)
	}
	e, err := newEnv(context.Background(), rp, o)
	if err != nil {
		b.Fatal(err)
	}
	lg, err := leidenGraph(e.adjA)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		leiden.Run(context.Background(), lg, leiden.Options{Seed: 1})
	}
}
