package replay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/ctxtest"
)

// TestReplayAllStopsWhenCancelled cancels ReplayAll at checks spread over
// a whole run (the first solves, the culprit searches, the last rows) and
// requires ctx's error, no rows, and only a handful of checks after the
// cancellation: each solve checks its context once per sweep, so a check
// after the trip is a computation noticing it and returning, and a loop
// that went on past a cancelled check would show here.
func TestReplayAllStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(500, 2000, 16_000, 60)
	// No wall-time budget: a time-limited culprit search would make the
	// number of checks depend on the machine's load.
	r, err := NewReplayer(g, Config{Culprits: true, CulpritMode: CulpritsFast, CulpritTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		full := ctxtest.New(-1)
		rows, err := r.ReplayAll(full, qs, workers)
		if err != nil {
			t.Fatal(err)
		}
		searched := 0
		for _, row := range rows {
			if row.Culprits != nil && row.Culprits.Solves > 0 {
				searched++
			}
		}
		if searched == 0 {
			t.Fatal("no row ran a culprit search: the test would not cancel one")
		}
		total := full.Calls()
		t.Logf("workers %d: %d checks, %d rows searched", workers, total, searched)
		if total < 10*int64(len(qs)) {
			t.Fatalf("%d checks for %d queries: the solves do not check their context per sweep", total, len(qs))
		}
		for _, frac := range []float64{0, 0.05, 0.3, 0.6, 0.8} {
			tw := ctxtest.New(int64(frac * float64(total)))
			var atTrip int64
			tw.OnTrip = func() { atTrip = g.Sweeps() }
			rows, err := r.ReplayAll(tw, qs, workers)
			if !errors.Is(err, context.Canceled) || rows != nil {
				t.Fatalf("workers %d, cancelled at %.0f%%: got %d rows, error %v; want no rows and context.Canceled", workers, 100*frac, len(rows), err)
			}
			// One check per query not started, one per goroutine under
			// way (two views, two culprit tests), and ReplayAll's own.
			if n, limit := tw.AfterTrip(), int64(len(qs)+2*workers+2); n > limit {
				t.Errorf("workers %d, cancelled at %.0f%%: %d checks after the cancellation, want at most %d", workers, 100*frac, n, limit)
			}
			// The work itself (counted in the sweep kernels, not at the
			// checks): at most the sweep each goroutine had begun.
			if n := g.Sweeps() - atTrip; n > int64(2*workers) {
				t.Errorf("workers %d, cancelled at %.0f%%: %d sweeps after the cancellation, want at most %d", workers, 100*frac, n, 2*workers)
			}
		}
	}
}

// TestEveryReplayEntryPointTakesItsContext: a cancelled context stops each
// public solve before its first sweep.
func TestEveryReplayEntryPointTakesItsContext(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(200, 800, 6000, 40)
	r, err := NewReplayer(g, Config{Culprits: true, Evictions: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := qs[0]
	everyEdge := func(int) bool { return true }
	reset, err := g.ResetVector(q.Reset)
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]func() error{
		"Replay":        func() error { _, err := r.Replay(ctx, q); return err },
		"ReplayAll":     func() error { _, err := r.ReplayAll(ctx, qs, 0); return err },
		"WhatIf":        func() error { _, err := r.WhatIf(ctx, q, BaseG, r.UnauthenticatedEdges()[:1], nil); return err },
		"ReplayPresent": func() error { _, err := r.ReplayPresent(ctx, q, everyEdge); return err },
		"SelectPresent": func() error { _, err := r.SelectPresent(ctx, q, everyEdge); return err },
		"PPR":           func() error { _, err := g.PPR(ctx, reset, SolveOptions{}, nil); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s on a cancelled context: %v, want context.Canceled", name, err)
		}
	}
}
