package exposure

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memscope/memscope/replay"
)

// benchStore builds a deterministic HippoRAG-like graph of about 50k nodes
// (10k passages, 40k entities, 350k edges, as replay's benchmark): passages
// mention entities (weight 1), entity facts (weights 1..4, median 1),
// synonyms (0.8..1), 300 no-source writes; 16 queries with five seed
// entities each, every passage at 0.05 x a dense score, and passage text
// for BM25.
func benchStore() (*replay.Replayer, []replay.Query) {
	const passages, entities, edges, unauth = 10_000, 40_000, 350_000, 300
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
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(context.Background(), rp, qs, Options{Seed: 1, Draws: benchDraws, CurveDraws: -1, Selectors: []string{PPR}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExposureAll50k: every selector, 16 queries x 100 draws per
// budget, the 16-point curve at 5 sequences per query.
func BenchmarkExposureAll50k(b *testing.B) {
	rp, qs := benchStore()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Analyze(context.Background(), rp, qs, Options{Seed: 1, Draws: 100, CurveDraws: 5}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchDraws is the draws per query and budget of BenchmarkExposurePPR50k.
const benchDraws = 100
