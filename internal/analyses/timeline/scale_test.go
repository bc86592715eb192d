package timeline_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/replay"
)

// synthetic builds a store-sized graph in log order: nodes passages and
// entities, edges writes of which unauth are unauthenticated (spread evenly
// through the log, light and random), and one planted attack write among
// them (weight 120 from the query's seed entity to a passage far from it)
// at unauthenticated position plant. The other unauthenticated writes link
// entities of a part of the graph the query cannot reach, so the planted
// write is the only one that can flip it. The query seeds two entities.
func synthetic(t testing.TB, nodes, edges, unauth, plant int) (*timeline.Replay, replay.Query, string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	passages := nodes / 5
	ns := make([]replay.Node, nodes)
	for i := range ns {
		if i < passages {
			ns[i] = replay.Node{ID: fmt.Sprintf("p%d", i), Kind: replay.KindPassage, Authenticated: true}
		} else {
			ns[i] = replay.Node{ID: fmt.Sprintf("e%d", i), Kind: replay.KindEntity}
		}
	}
	isolated := (nodes - passages) / 10 // the last entities: only unauthenticated writes touch them
	entity := func() int { return passages + rng.IntN(nodes-passages-isolated) }
	far := func() int { return nodes - isolated + rng.IntN(isolated) }
	es := make([]replay.Edge, edges)
	every := edges / unauth
	u := 0
	var planted string
	for i := range es {
		e := replay.Edge{ID: fmt.Sprintf("w%d", i), Weight: 1}
		if i%every == every/2 && u < unauth {
			e.Prov.Writer = "peer"
			if u == plant {
				e.Src, e.Dst, e.Weight = ns[passages].ID, ns[passages-1].ID, 120
				planted = e.ID
			} else {
				e.Src, e.Dst = ns[far()].ID, ns[far()].ID
			}
			u++
		} else {
			e.Prov.Writer = "good"
			if rng.IntN(2) == 0 {
				e.Src, e.Dst = ns[entity()].ID, ns[rng.IntN(passages)].ID
			} else {
				e.Src, e.Dst, e.Weight = ns[entity()].ID, ns[entity()].ID, float64(1+rng.IntN(4))
			}
		}
		es[i] = e
	}
	g, err := replay.NewGraph(ns, es, replay.DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: byWriter{}})
	if err != nil {
		t.Fatal(err)
	}
	ev := make([]timeline.Event, len(es))
	for i, e := range es {
		a := e.Prov.Writer == "good"
		ev[i] = timeline.Event{Kind: timeline.KindWrite, ID: e.ID, Leaf: int64(i), TS: int64(i), Principal: e.Prov.Writer, Authenticated: &a}
	}
	tr, err := timeline.NewReplay(rp, timeline.Build(ev))
	if err != nil {
		t.Fatal(err)
	}
	q := replay.Query{ID: "q", Reset: map[string]float64{ns[passages].ID: 1, ns[passages+1].ID: 0.5}}
	return tr, q, planted
}

// TestFirstFlipIsABisection: over 1,000 unauthenticated writes the search
// finds the planted write with no more solves than the budget, about
// 2*log2(1000), where a scan would need 2,000.
func TestFirstFlipIsABisection(t *testing.T) {
	t.Parallel()
	tr, q, planted := synthetic(t, 5000, 35000, 1000, 637)
	now, err := tr.Replayer().ReplayPresent(context.Background(), q, func(int) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	start := tr.Replayer().Solves()
	f, err := tr.FirstFlip(context.Background(), q, timeline.FlipOptions{ScanLimit: -1, Now: &now})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Found || f.Write.ID != planted || !f.Confirmed {
		t.Fatalf("first flip %+v, planted %s", f.Write, planted)
	}
	budget := timeline.FlipBudget(1000, true)
	if f.Solves > int64(budget) || tr.Replayer().Solves()-start != f.Solves {
		t.Fatalf("%d solves (counter %d), budget %d", f.Solves, tr.Replayer().Solves()-start, budget)
	}
	t.Logf("%d unauthenticated writes: %d solves (budget %d)", f.Candidates, f.Solves, budget)
}

// BenchmarkFirstFlip50k is the scale: 50,000 nodes, 350,000
// writes, 1,000 of them unauthenticated. solves/op is the number of PPR
// views the bisection and confirmation solved.
func BenchmarkFirstFlip50k(b *testing.B) {
	tr, q, planted := synthetic(b, 50000, 350000, 1000, 637)
	now, err := tr.Replayer().ReplayPresent(context.Background(), q, func(int) bool { return true })
	if err != nil {
		b.Fatal(err)
	}
	var solves int64
	b.ResetTimer()
	for b.Loop() {
		f, err := tr.FirstFlip(context.Background(), q, timeline.FlipOptions{ScanLimit: -1, Now: &now})
		if err != nil {
			b.Fatal(err)
		}
		if f.Write.ID != planted || !f.Confirmed {
			b.Fatalf("first flip %+v, planted %s", f.Write, planted)
		}
		solves = f.Solves
	}
	b.ReportMetric(float64(solves), "solves/op")
	b.ReportMetric(float64(timeline.FlipBudget(1000, true)), "budget")
}

// BenchmarkOneSolve50k is one PPR view on the same graph, to compare.
func BenchmarkOneSolve50k(b *testing.B) {
	tr, q, _ := synthetic(b, 50000, 350000, 1000, 637)
	for b.Loop() {
		if _, err := tr.Replayer().SelectPresent(context.Background(), q, func(int) bool { return true }); err != nil {
			b.Fatal(err)
		}
	}
}
