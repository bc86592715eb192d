package replay

import (
	"context"
	"math"
	"testing"
)

// TestSolveTwoIsSolveBitForBit: two reset vectors solved in one pass get
// exactly what each gets solved alone, when they converge after different
// numbers of sweeps (the lane that converges first is left alone) and on a
// view with removed edges (corrections) as on G.
func TestSolveTwoIsSolveBitForBit(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(300, 1200, 9000, 80)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	resets := [][]float64{}
	for _, q := range qs[:3] {
		_, reset, err := r.queryStart(q)
		if err != nil {
			t.Fatal(err)
		}
		resets = append(resets, reset)
	}
	// All of a reset on one node: the benchmark graph's entity 100 takes a
	// sweep more than the queries, and its last entity (no edges) one.
	for _, node := range []int{400, len(g.nodes) - 1} {
		one := make([]float64, len(g.nodes))
		one[node] = 1
		resets = append(resets, one)
	}
	sweeps := map[int64]bool{}
	for _, v := range []*view{r.full, r.auth} {
		for _, pair := range [][2]int{{0, 1}, {3, 0}, {1, 4}, {4, 3}} {
			got, failed, err := g.solveTwo(ctx, [2][]float64{resets[pair[0]], resets[pair[1]]}, r.cfg.Solve, v)
			if err != nil || failed[0] != nil || failed[1] != nil {
				t.Fatal(err, failed)
			}
			for j, qi := range pair {
				before := g.Sweeps()
				want, err := g.solve(ctx, resets[qi], r.cfg.Solve, []*view{v})
				if err != nil {
					t.Fatal(err)
				}
				sweeps[g.Sweeps()-before] = true
				for u := range want[0] {
					if math.Float64bits(got[j][u]) != math.Float64bits(want[0][u]) {
						t.Fatalf("reset %d in lane %d, node %d: %v, solved alone %v", qi, j, u, got[j][u], want[0][u])
					}
				}
			}
		}
	}
	if len(sweeps) < 2 {
		t.Errorf("every solve took the same number of sweeps %v: the lanes never stopped apart", sweeps)
	}
}

// TestReplayAllPairsQueriesOnG: when G_auth is G, ReplayAll on two workers
// (two queries per pass) gives every row the per-query replay gives, an
// odd query out and an unreplayable one included.
func TestReplayAllPairsQueriesOnG(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(300, 1200, 9000, 0)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.authIsG {
		t.Fatal("G_auth is not G: the test would not pair queries")
	}
	qs = append(qs[:6:6], Query{ID: "broken", Reset: map[string]float64{"p1": -1}}, qs[6])
	rows, err := r.ReplayAll(context.Background(), qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		want, err := r.replay(context.Background(), q, true)
		if q.ID == "broken" {
			if err == nil || rows[i].Err == nil || rows[i].Err.Error() != err.Error() {
				t.Errorf("broken query: paired error %v, per-query error %v", rows[i].Err, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if rowText(rows[i]) != rowText(want) {
			t.Errorf("query %s: paired row\n%s\nper-query row\n%s", q.ID, rowText(rows[i]), rowText(want))
		}
	}
}
