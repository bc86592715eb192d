package replay

import (
	"context"
	"math"
	"testing"
)

// TestSolveLanesIsSolveBitForBit: two to four reset vectors solved in one
// pass get exactly what each gets solved alone, when they converge after
// different numbers of sweeps (a lane that converges first is left alone)
// and on a view with removed edges (corrections) as on G.
func TestSolveLanesIsSolveBitForBit(t *testing.T) {
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
		for _, group := range [][]int{{0, 1}, {3, 0}, {1, 4}, {4, 3}, {2}, {2, 4, 0}, {3, 1, 4, 2}} {
			var rs [][]float64
			for _, qi := range group {
				rs = append(rs, resets[qi])
			}
			got, failed, err := g.solveLanes(ctx, rs, r.cfg.Solve, v)
			if err != nil || len(got) != len(group) || len(failed) != len(group) {
				t.Fatal(err, len(got), len(failed))
			}
			for j, qi := range group {
				if failed[j] != nil {
					t.Fatal(failed[j])
				}
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

// TestReplayAllGroupsQueriesOnG: when G_auth is G, ReplayAll on two
// workers (four queries per pass) gives every row the per-query replay
// gives, a query left alone and an unreplayable one included.
func TestReplayAllGroupsQueriesOnG(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(300, 1200, 9000, 0)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.authIsG {
		t.Fatal("G_auth is not G: the test would not pair queries")
	}
	// Nine queries: groups of four, four (one unreplayable) and one.
	qs = append(qs[:6:6], Query{ID: "broken", Reset: map[string]float64{"p1": -1}}, qs[6], qs[7])
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
