package leiden

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/ctxtest"
)

// TestRunStopsWhenCancelled: a run on a graph of 12,000 nodes checks its
// context inside local moving and refinement (not only between levels),
// and once cancelled it returns ctx's error after at most the checks
// that unwind it.
func TestRunStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	const n = 12_000
	rng := rand.New(rand.NewPCG(3, 3))
	var es []Edge
	for v := int32(1); v < n; v++ {
		es = append(es, Edge{v, rng.Int32N(v), 1})
		es = append(es, Edge{v, rng.Int32N(n), 1 + rng.Float64()})
	}
	g, err := NewGraph(n, es)
	if err != nil {
		t.Fatal(err)
	}
	full := ctxtest.New(-1)
	want, err := Run(full, g, Options{Seed: 1, Iterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The first local moving alone visits every node at least once.
	if total := full.Calls(); total < n/cancelEvery {
		t.Fatalf("%d checks on %d nodes: local moving does not check its context", total, n)
	}
	for _, frac := range []float64{0, 0.1, 0.5, 0.9} {
		tw := ctxtest.New(int64(frac * float64(full.Calls())))
		part, err := Run(tw, g, Options{Seed: 1, Iterations: 1})
		if !errors.Is(err, context.Canceled) || part != nil {
			t.Fatalf("cancelled at %.0f%%: %d memberships, error %v; want none and context.Canceled", 100*frac, len(part), err)
		}
		if n := tw.AfterTrip(); n > 2 {
			t.Errorf("cancelled at %.0f%%: %d checks after the cancellation, want at most 2", 100*frac, n)
		}
	}
	// The checks change nothing: the same run without a context.
	if again := mustRun(g, Options{Seed: 1, Iterations: 1}); !slices.Equal(again, want) {
		t.Error("a run with a context differs from one without")
	}
}
