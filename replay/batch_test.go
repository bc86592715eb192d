package replay

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"testing"
)

// TestSolvePairsIsSolvePairBitForBit: a batched solve gives every query
// exactly the scores of its own fused pair solve, whatever the batch's
// other queries are and however many sweeps they need (the queries below
// converge after different numbers of sweeps, and G_auth removes edges, so
// the corrections are exercised), and a dangling-heavy graph too.
func TestSolvePairsIsSolvePairBitForBit(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(300, 1200, 9000, 80)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var resets [][]float64
	for _, q := range qs {
		_, reset, err := r.queryStart(q)
		if err != nil {
			t.Fatal(err)
		}
		resets = append(resets, reset)
	}
	ctx := context.Background()
	sweeps := map[int64]bool{}
	for _, batch := range [][]int{{0}, {1, 2}, {3, 4, 5}, {6, 7, 8, 9}, {9, 3, 0, 12}} {
		var rs [][]float64
		for _, i := range batch {
			rs = append(rs, resets[i])
		}
		got, failed, err := g.solvePairs(ctx, rs, r.cfg.Solve, r.full, r.auth)
		if err != nil {
			t.Fatal(err)
		}
		for j, i := range batch {
			if failed[j] != nil {
				t.Fatalf("query %d: %v", i, failed[j])
			}
			before := g.Sweeps()
			want, err := g.solvePair(ctx, resets[i], r.cfg.Solve, r.full, r.auth, resets[i], resets[i])
			if err != nil {
				t.Fatal(err)
			}
			sweeps[g.Sweeps()-before] = true
			for side := 0; side < 2; side++ {
				for u := range want[side] {
					if math.Float64bits(got[j][side][u]) != math.Float64bits(want[side][u]) {
						t.Fatalf("batch %v, query %d, view %d, node %d: %v, pair solve %v", batch, i, side, u, got[j][side][u], want[side][u])
					}
				}
			}
		}
	}
	if len(sweeps) < 2 {
		t.Errorf("every query took the same number of sweeps %v: the test does not show queries stopping apart", sweeps)
	}
}

// TestReplayAllBatchedRowsEqualPerQueryRows: ReplayAll on two workers
// (batched solves) gives the rows the per-query fused solve gives, culprit
// searches included.
func TestReplayAllBatchedRowsEqualPerQueryRows(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(300, 1200, 9000, 80)
	r, err := NewReplayer(g, Config{Culprits: true, CulpritMode: CulpritsFast, CulpritBudget: 50})
	if err != nil {
		t.Fatal(err)
	}
	qs = append(qs[:7:7], Query{ID: "broken", Reset: map[string]float64{"p1": -1}})
	rows, err := r.ReplayAll(context.Background(), qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		want, err := r.replay(context.Background(), q, true)
		if q.ID == "broken" {
			if err == nil || rows[i].Err == nil || rows[i].Err.Error() != err.Error() {
				t.Errorf("broken query: batched error %v, per-query error %v", rows[i].Err, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// %v spells NaN margins and the culprit set out, which DeepEqual
		// (NaN != NaN, pointers) would not compare.
		if rowText(rows[i]) != rowText(want) {
			t.Errorf("query %s: batched row differs from the per-query row\n got %s\nwant %s", q.ID, rowText(rows[i]), rowText(want))
		}
	}
}

func rowText(r Row) string {
	s := fmt.Sprintf("%+v", r)
	for _, p := range []any{r.G.Next, r.GAuth.Next, r.Culprits, r.Recorded} {
		s += fmt.Sprintf(" %+v", p)
	}
	for _, t := range r.Targets {
		s += fmt.Sprintf(" %+v", t.Eviction)
	}
	// Pointers print as addresses, which differ between two equal rows.
	return regexp.MustCompile(`0x[0-9a-f]+`).ReplaceAllString(s, "ptr")
}
