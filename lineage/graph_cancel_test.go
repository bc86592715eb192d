package lineage

import (
	"context"
	"errors"
	"testing"

	"github.com/memscope/memscope/internal/ctxtest"
)

// TestBuildContextStopsWhenCancelled: building a large DAG checks its
// context as it reads the entries, and a cancelled build returns ctx's
// error and no graph; an uncancelled one is Build's graph.
func TestBuildContextStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	entries := syntheticStore(40_000)
	full := ctxtest.New(-1)
	g, err := BuildContext(full, entries)
	if err != nil || g.Len() != Build(entries).Len() {
		t.Fatalf("uncancelled build: %v", err)
	}
	if min := int64(2 * len(entries) / buildCheckEvery); full.Calls() < min {
		t.Fatalf("%d checks for %d entries, want at least %d", full.Calls(), len(entries), min)
	}
	for _, at := range []int64{0, full.Calls() / 2, full.Calls() - 1} {
		tw := ctxtest.New(at)
		g, err := BuildContext(tw, entries)
		if !errors.Is(err, context.Canceled) || g != nil {
			t.Fatalf("cancelled at check %d: graph %v, error %v", at+1, g != nil, err)
		}
		if n := tw.AfterTrip(); n != 0 {
			t.Errorf("cancelled at check %d: %d checks after", at+1, n)
		}
	}
}
