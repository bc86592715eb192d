package exposure

import (
	"context"
	"errors"
	"testing"

	"github.com/memscope/memscope/internal/ctxtest"
)

// TestAnalyzeStopsWhenCancelled cancels the estimate at checks spread over
// a whole run (Leiden on G and G_auth, the draws, the curves) and requires
// ctx's error, no result, and no selector evaluated after the
// cancellation beyond the draw under way.
func TestAnalyzeStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	rp, qs, _ := open(t, "structural-write")
	opt := Options{Seed: 1, Draws: 40, CurveDraws: 5, Workers: 1, LeidenMode: LeidenFull}
	full := ctxtest.New(-1)
	if _, err := Analyze(full, rp, qs, opt); err != nil {
		t.Fatal(err)
	}
	total := full.Calls()
	if total < int64(2*opt.Draws*len(qs)) {
		t.Fatalf("%d checks for %d queries x %d draws x 2 budgets: the draws do not each check the context", total, len(qs), opt.Draws)
	}
	for _, frac := range []float64{0, 0.02, 0.3, 0.6, 0.9} {
		tw := ctxtest.New(int64(frac * float64(total)))
		res, err := Analyze(tw, rp, qs, opt)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("cancelled at %.0f%%: result %v, error %v; want none and context.Canceled", 100*frac, res != nil, err)
		}
		if n, limit := tw.AfterTrip(), int64(len(qs)+len(SelectorNames)+2); n > limit {
			t.Errorf("cancelled at %.0f%%: %d checks after the cancellation, want at most %d", 100*frac, n, limit)
		}
	}

	// The work itself, counted where it is done (one evaluation per
	// selector per draw): once cancelled, at most the draw under way
	// finishes its selectors.
	o, err := opt.normalised()
	if err != nil {
		t.Fatal(err)
	}
	e, err := newEnv(context.Background(), rp, o)
	if err != nil {
		t.Fatal(err)
	}
	base := e.evals.Load()
	if _, _, err := e.query(ctxtest.New(-1), 0, qs[0]); err != nil {
		t.Fatal(err)
	}
	perQuery := e.evals.Load() - base
	if perQuery < int64(opt.Draws) {
		t.Fatalf("%d evaluations for one query: the test would not cancel mid-draw", perQuery)
	}
	for _, frac := range []float64{0.1, 0.5, 0.9} {
		tw := ctxtest.New(int64(frac * float64(full.Calls()) / float64(len(qs))))
		var atTrip int64
		tw.OnTrip = func() { atTrip = e.evals.Load() }
		if _, _, err := e.query(tw, 0, qs[0]); !errors.Is(err, context.Canceled) {
			t.Fatalf("query cancelled at %.0f%%: %v, want context.Canceled", 100*frac, err)
		}
		if n := e.evals.Load() - atTrip; n > int64(len(o.Selectors)) {
			t.Errorf("query cancelled at %.0f%%: %d evaluations after the cancellation, want at most %d", 100*frac, n, len(o.Selectors))
		}
	}
}
