package lineage

import (
	"strings"
	"testing"
)

// Expected cells transcribed from MemLineage, arXiv:2605.14421, Table 5 (Coarse) and Table 6
// (LmSelfEval, judge schedule w0 = 0.9, d = 0.7). Rows are tau in
// {0, 0.1, 0.3, 0.5, 0.9, 0.99, 1.0}; columns are K in {1, 2, 3, 5}.
var paperTables = map[Schedule][7][4]int{
	ScheduleCoarse: {
		{1, 1, 1, 1},
		{1, 1, 1, 1},
		{1, 1, 1, 1},
		{1, 1, 1, 1},
		{1, 1, 1, 1},
		{1, 1, 1, 1},
		{0, 0, 0, 0},
	},
	ScheduleJudge: {
		{1, 1, 1, 1},
		{1, 1, 1, 1},
		{1, 1, 1, 0},
		{1, 1, 0, 0},
		{0, 0, 0, 0},
		{0, 0, 0, 0},
		{0, 0, 0, 0},
	},
}

func TestPaperSweepMatchesTables5And6(t *testing.T) {
	rows, err := PaperSweep()
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(SweepTaus) * len(SweepKs); len(rows) != want {
		t.Fatalf("got %d rows, want %d", len(rows), want)
	}
	checked := 0
	for _, r := range rows {
		ti, ki := -1, -1
		for i, tau := range SweepTaus {
			if tau == r.Tau {
				ti = i
			}
		}
		for i, k := range SweepKs {
			if k == r.K {
				ki = i
			}
		}
		if ti < 0 || ki < 0 {
			t.Fatalf("row outside the grid: %+v", r)
		}
		want := paperTables[r.Schedule][ti][ki] == 1
		if r.Propagated != want {
			t.Errorf("%s tau=%.2f K=%d: propagated %v, paper says %v (tip %s label %s)", r.Schedule, r.Tau, r.K, r.Propagated, want, r.Tip, r.TipLabel)
		}
		checked++
	}
	if checked != 56 {
		t.Fatalf("checked %d cells, want 56", checked)
	}
}

func TestSweepBriefExample(t *testing.T) {
	// The brief's example: tau 0.3 loses the judge chain only at K = 5.
	rows, err := PaperSweep()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Schedule == ScheduleJudge && r.Tau == 0.3 {
			if r.Propagated != (r.K != 5) {
				t.Errorf("judge tau 0.3 K=%d propagated=%v", r.K, r.Propagated)
			}
		}
	}
}

func TestSweepTipLabelIsDerivedUntrusted(t *testing.T) {
	ch, err := SleeperChain(ScheduleCoarse, 3, "c")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Sweep([]Chain{ch}, []float64{0})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].TipLabel != DerivedUntrusted || rows[0].Tip != "c-e3" || rows[0].K != 3 {
		t.Fatalf("got %+v", rows[0])
	}
}

func TestSweepRejectsMalformedChains(t *testing.T) {
	good, _ := SleeperChain(ScheduleJudge, 2, "x")
	cases := map[string]func(c *Chain){
		"root not external": func(c *Chain) { c.Entries[0].Writer = "user" },
		"branch": func(c *Chain) {
			c.Entries = append(c.Entries, Entry{ID: "x-b", Writer: "agent:0", Parents: []string{"x-e0"}, Weights: []float64{1}})
		},
		"dangling": func(c *Chain) { c.Entries[2].Parents = []string{"nope"} },
		"two parents": func(c *Chain) {
			c.Entries[2].Parents = []string{"x-e1", "x-e0"}
			c.Entries[2].Weights = []float64{1, 1}
		},
		"only root": func(c *Chain) { c.Entries = c.Entries[:1] },
	}
	for name, mutate := range cases {
		c := Chain{Schedule: good.Schedule, Entries: append([]Entry(nil), good.Entries...)}
		mutate(&c)
		if _, err := Sweep([]Chain{c}, SweepTaus); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := SleeperChain("bogus", 2, "y"); err == nil {
		t.Error("unknown schedule accepted")
	}
}

func TestRenderSweep(t *testing.T) {
	rows, err := PaperSweep()
	if err != nil {
		t.Fatal(err)
	}
	out := RenderSweep(rows)
	// Derived from Table 6: the tau 0.30 judge row is 1 1 1 0.
	judge := out[strings.Index(out, "schedule judge"):]
	if !strings.Contains(judge, "0.30     1    1    1    0\n") {
		t.Errorf("judge table lacks the tau 0.30 row:\n%s", out)
	}
	if !strings.Contains(out, "1.00     0    0    0    0\n") {
		t.Errorf("missing inert tau 1.0 row:\n%s", out)
	}
}

func TestChainToFromStore(t *testing.T) {
	// A store holding two generated chains plus unrelated entries: cutting
	// each chain out by its tip and sweeping must give the paper's cells.
	var store []Entry
	store = append(store, Entry{ID: "noise", Writer: "user"})
	judge, _ := SleeperChain(ScheduleJudge, 5, "j")
	coarse, _ := SleeperChain(ScheduleCoarse, 2, "c")
	store = append(store, judge.Entries...)
	store = append(store, coarse.Entries...)
	cj, err := ChainTo(store, "j-e5", ScheduleJudge)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := ChainTo(store, "c-e2", ScheduleCoarse)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Sweep([]Chain{cj, cc}, []float64{0.1, 0.3})
	if err != nil {
		t.Fatal(err)
	}
	// Table 6, K = 5: 1 at tau 0.10, 0 at tau 0.30; Table 5, K = 2: 1, 1.
	want := []bool{true, false, true, true}
	for i, r := range rows {
		if r.Propagated != want[i] {
			t.Errorf("row %d %+v", i, r)
		}
	}
	if _, err := ChainTo(store, "nope", ScheduleCoarse); err == nil {
		t.Error("missing tip accepted")
	}
	loop := []Entry{{ID: "a", Parents: []string{"b"}}, {ID: "b", Parents: []string{"a"}}}
	if _, err := ChainTo(loop, "a", ScheduleCoarse); err == nil || !strings.Contains(err.Error(), "loop") {
		t.Errorf("loop: %v", err)
	}
}
