package replay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/ctxtest"
)

// Both search modes find the two attack writes of attackGraph, and say the
// set is 1-minimal.
func TestCulpritModesAgreeOnAttack(t *testing.T) {
	t.Parallel()
	g, _ := attackGraph(t)
	q := Query{ID: "q1", Reset: map[string]float64{"q": 3}}
	for _, mode := range []CulpritMode{CulpritsFast, CulpritsMinimal} {
		r, err := NewReplayer(g, Config{K: 2, Culprits: true, CulpritMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.Replay(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		c := row.Culprits
		if c == nil || c.Mode != mode {
			t.Fatalf("%s: culprits %+v", mode, c)
		}
		var ids []string
		for _, x := range c.Set {
			ids = append(ids, x.EdgeID)
		}
		if !slices.Equal(ids, []string{"atk-p3", "atk-p4"}) || !c.Minimal || !c.Restores {
			t.Errorf("%s: culprits %v minimal %v restores %v, want [atk-p3 atk-p4] minimal restoring", mode, ids, c.Minimal, c.Restores)
		}
		// The two base residuals are two passes; the tests' own pushes
		// or sweeps come on top.
		if c.Solves <= 0 || c.Sweeps == 0 && c.PushWork <= 2*int64(len(g.cols)) {
			t.Errorf("%s: %d solves, %d sweeps, %d entries pushed counted", mode, c.Solves, c.Sweeps, c.PushWork)
		}
	}
}

func TestCulpritModeNoneSkipsSearch(t *testing.T) {
	t.Parallel()
	g, _ := attackGraph(t)
	r, err := NewReplayer(g, Config{K: 2, Culprits: true, CulpritMode: CulpritsNone})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Replay(context.Background(), Query{ID: "q1", Reset: map[string]float64{"q": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if row.Class != diff.Diverge || row.Culprits != nil {
		t.Errorf("class %s culprits %+v, want DIVERGE and no search", row.Class, row.Culprits)
	}
	if _, err := ParseCulpritMode("exhaustive"); err == nil {
		t.Error("an unknown culprit mode was accepted")
	}
	if _, err := NewReplayer(g, Config{CulpritMode: "exhaustive"}); err == nil {
		t.Error("NewReplayer accepted an unknown culprit mode")
	}
}

// A search out of time returns a restoring set marked not minimal.
func TestCulpritTimeBudget(t *testing.T) {
	t.Parallel()
	g, _ := attackGraph(t)
	r, err := NewReplayer(g, Config{K: 2, Culprits: true, CulpritMode: CulpritsMinimal, CulpritTime: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Replay(context.Background(), Query{ID: "q1", Reset: map[string]float64{"q": 3}})
	if err != nil {
		t.Fatal(err)
	}
	c := row.Culprits
	if c == nil || c.Minimal || !c.OutOfTime {
		t.Fatalf("culprits %+v, want out of time and not minimal", c)
	}
}

// selectFrom stops early only when the ranking is certain: on random graphs,
// from cold and warm starts, its top-k equals the full solve's.
func TestSelectFromEqualsFullSolve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 200; trial++ {
		g, q := randomCulpritGraph(t, rng)
		rv, _ := g.ResetVector(q.Reset)
		var without []int32
		for e := range g.ends {
			if rng.IntN(6) == 0 {
				without = append(without, int32(e))
			}
		}
		v := g.newView(without)
		full, err := g.solve(context.Background(), rv, SolveOptions{}, []*view{v})
		if err != nil {
			t.Fatal(err)
		}
		onG, _ := g.solve(context.Background(), rv, SolveOptions{}, []*view{g.newView(nil)})
		k := q.K
		want := g.selectPassages(full[0], k).IDs()
		for _, start := range [][]float64{nil, onG[0]} {
			sel, _, err := g.selectFrom(context.Background(), rv, SolveOptions{}, v, start, k)
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.IDs(); !slices.Equal(got, want) {
				t.Fatalf("trial %d k %d warm %v: early-stopped %v, full solve %v", trial, k, start != nil, got, want)
			}
		}
	}
}

// On the benchmark graph, a warm start from G's scores takes fewer sweeps
// to certify a selection than a cold one: the point of warm starting.
func TestWarmStartSavesSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 50k-node benchmark graph")
	}
	t.Parallel()
	g, qs := benchGraph(2000, 8000, 70_000, 60)
	rv, _ := g.ResetVector(qs[0].Reset)
	onG, err := g.solve(context.Background(), rv, SolveOptions{}, []*view{g.newView(nil)})
	if err != nil {
		t.Fatal(err)
	}
	// Remove the three heaviest unauthenticated writes.
	var without []int32
	for i, e := range g.Edges() {
		if e.Weight >= 60 && len(without) < 3 {
			without = append(without, int32(i))
		}
	}
	v := g.newView(without)
	_, cold, err := g.selectFrom(context.Background(), rv, SolveOptions{}, v, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	_, warm, err := g.selectFrom(context.Background(), rv, SolveOptions{}, v, onG[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	if warm >= cold {
		t.Errorf("warm start took %d sweeps, cold %d", warm, cold)
	}
}

// randomCulpritGraph is a small random graph with no-source writes, some
// of them heavy: views removing subsets of them leave nodes isolated,
// reorder the top-k, and tie at the cut-off now and then. Self-loops occur
// and count twice in a third of the graphs (igraph's way), otherwise not.
func randomCulpritGraph(t *testing.T, rng *rand.Rand) (*Graph, Query) {
	t.Helper()
	n := 8 + rng.IntN(60)
	nodes := make([]Node, n)
	for i := range nodes {
		kind := KindEntity
		if i%2 == 0 {
			kind = KindPassage
		}
		nodes[i] = Node{ID: fmt.Sprintf("n%d", i), Kind: kind}
	}
	var edges []Edge
	for e := 0; e < 3*n; e++ {
		w := []float64{0.5, 1, 1, 2, 4, 60}[rng.IntN(6)]
		prov := signed
		if rng.IntN(4) == 0 {
			prov = noSource
		}
		edges = append(edges, Edge{ID: fmt.Sprintf("e%d", e), Src: nodes[rng.IntN(n)].ID, Dst: nodes[rng.IntN(n)].ID, Weight: w, Prov: prov})
	}
	loops := DropSelfLoops
	if rng.IntN(3) == 0 {
		loops = SelfLoopsTwice
	}
	g, err := NewGraph(nodes, edges, loops)
	if err != nil {
		t.Fatal(err)
	}
	reset := map[string]float64{nodes[1].ID: 1}
	for i := range nodes {
		if rng.IntN(4) == 0 {
			reset[nodes[i].ID] += rng.Float64()
		}
	}
	return g, Query{ID: "q", Reset: reset, K: 1 + rng.IntN(5)}
}

// A pushed culprit test answers as a full solve of the tested view does,
// from either base, and a pushed selection ranks as the full solve.
func TestPushedTestsEqualFullSolve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	ctx := context.Background()
	checked, pushed, restoring := 0, 0, 0
	for trial := 0; trial < 300; trial++ {
		g, q := randomCulpritGraph(t, rng)
		r, err := NewReplayer(g, Config{})
		if err != nil {
			t.Fatal(err)
		}
		rv, _ := g.ResetVector(q.Reset)
		on, err := g.solve(ctx, rv, r.cfg.Solve, []*view{r.full, r.auth})
		if err != nil {
			t.Fatal(err)
		}
		want := g.selectPassages(on[1], q.K)
		var wantIdx []int32
		for _, id := range want.IDs() {
			wantIdx = append(wantIdx, g.nodeIndex[id])
		}
		baseG, baseA := r.pushBases(rv, on[0], on[1])
		cands := r.reachableUnauth(rv)
		p := r.pusher(rv)
		for s := 0; s < 6; s++ {
			var without []int32
			for _, e := range cands {
				if rng.IntN(3) > 0 {
					without = append(without, e)
				}
			}
			full, err := g.solve(ctx, rv, r.cfg.Solve, []*view{g.newView(without)})
			if err != nil {
				t.Fatal(err)
			}
			sel := g.selectPassages(full[0], q.K)
			exp := slices.Equal(sel.IDs(), want.IDs())
			for _, base := range []*pushBase{baseG, baseA} {
				ok, sweeps, _, err := p.restores(ctx, base, without, cands, wantIdx, q.K, r.cfg.Solve)
				if err != nil {
					t.Fatal(err)
				}
				if ok != exp {
					t.Fatalf("trial %d: pushed test says %v, full solve %v (%v against %v)", trial, ok, exp, sel.IDs(), want.IDs())
				}
				checked++
				if sweeps == 0 {
					pushed++
				}
				if ok {
					restoring++
				}
			}
			got, _, _, err := p.selectWithout(ctx, baseG, without, cands, q.K, r.cfg.Solve)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.IDs(), sel.IDs()) {
				t.Fatalf("trial %d: pushed selection %v, full solve %v", trial, got.IDs(), sel.IDs())
			}
		}
	}
	// The comparison means something only if the push decided most tests
	// itself and both answers occurred.
	if pushed < checked*3/4 || restoring == 0 || restoring == checked {
		t.Fatalf("%d tests: %d decided by pushing, %d restoring", checked, pushed, restoring)
	}
	t.Logf("%d tests, %d decided by pushing, %d restoring", checked, pushed, restoring)
}

// The minimal search finds the same set as the old ddmin (cold full solves,
// one test at a time): the push and the two-at-a-time tests change how a
// test is answered, never its answer or the order of the tests.
func TestMinimalEqualsOldDdmin(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 4))
	compared := 0
	for trial := 0; trial < 200; trial++ {
		g, q := randomCulpritGraph(t, rng)
		compared += compareWithOld(t, g, []Query{q})
	}
	if compared < 20 {
		t.Fatalf("only %d diverging rows compared", compared)
	}
	if testing.Short() {
		return
	}
	// The benchmark's shape at a fifth of its size.
	g, qs := benchGraph(2000, 8000, 70_000, 60)
	n := compareWithOld(t, g, qs)
	if n == 0 {
		t.Fatal("no benchmark query diverges")
	}
	t.Logf("%d random rows and %d benchmark-shaped rows compared", compared, n)
}

func compareWithOld(t *testing.T, g *Graph, qs []Query) (compared int) {
	t.Helper()
	ctx := context.Background()
	plain, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(g, Config{Culprits: true, CulpritMode: CulpritsMinimal, CulpritTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		old, oldMinimal, _, _, err := oldCulprits(ctx, plain, q)
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.Replay(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if row.Culprits == nil {
			if old != nil {
				t.Fatalf("query %s: no search, old found %v", q.ID, old)
			}
			continue
		}
		var got []string
		for _, c := range row.Culprits.Set {
			got = append(got, c.EdgeID)
		}
		if !slices.Equal(got, old) || row.Culprits.Minimal != oldMinimal {
			t.Fatalf("query %s: minimal search %v (minimal %v), old ddmin %v (minimal %v)", q.ID, got, row.Culprits.Minimal, old, oldMinimal)
		}
		if len(old) > 0 {
			compared++
		}
	}
	return compared
}

// A minimal culprit search stops at a cancellation inside its pushes:
// ctx's error, a check or two per goroutine after the trip, and at most a
// sweep's worth of pushing each after it (drain checks every eighth of
// one). The row is solved first without the tripwire, so every check
// counted is the search's own.
func TestCulpritPushStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(500, 2000, 16_000, 60)
	r, err := NewReplayer(g, Config{Culprits: true, CulpritMode: CulpritsMinimal, CulpritTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	searched := 0
	for _, q := range qs {
		k, _ := r.queryK(q)
		reset, _ := g.ResetVector(q.Reset)
		scores, err := g.solve(context.Background(), reset, r.cfg.Solve, []*view{r.full, r.auth})
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.baseRow(q, k, scores[0], scores[1])
		if err != nil {
			t.Fatal(err)
		}
		if row.Class == diff.Same {
			continue
		}
		full := ctxtest.New(-1)
		before := r.prep.pushed.Load()
		c, err := r.culprits(full, reset, k, scores[0], scores[1], row)
		if err != nil {
			t.Fatal(err)
		}
		total := full.Calls()
		if total < int64(c.Solves) || r.prep.pushed.Load() == before {
			t.Fatalf("query %s: %d checks for %d solves, %d entries pushed: the pushes do not check their context", q.ID, total, c.Solves, r.prep.pushed.Load()-before)
		}
		searched++
		for _, frac := range []float64{0, 0.3, 0.6, 0.9} {
			tw := ctxtest.New(int64(frac * float64(total)))
			var atTrip int64
			tw.OnTrip = func() { atTrip = r.prep.pushed.Load() }
			if _, err := r.culprits(tw, reset, k, scores[0], scores[1], row); !errors.Is(err, context.Canceled) {
				t.Fatalf("query %s, cancelled at %.0f%%: error %v, want context.Canceled", q.ID, 100*frac, err)
			}
			if n := tw.AfterTrip(); n > 2 {
				t.Errorf("query %s, cancelled at %.0f%%: %d checks after the cancellation, want at most 2", q.ID, 100*frac, n)
			}
			// Work is counted when a test returns: what a goroutine had
			// pushed before the trip lands after it.
			if n, limit := r.prep.pushed.Load()-atTrip, 2*2*int64(len(g.cols)); n > limit {
				t.Errorf("query %s, cancelled at %.0f%%: %d entries pushed after the cancellation, want at most %d", q.ID, 100*frac, n, limit)
			}
		}
	}
	if searched == 0 {
		t.Fatal("no query diverges")
	}
}
