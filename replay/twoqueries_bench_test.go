package replay

import (
	"context"
	"testing"
)

// BenchmarkTwoQueriesOnG solves two queries on G one after the other
// (solve) and in one pass (solveLanes), on one core: the ratio of the two
// is what pairing saves.
func BenchmarkTwoQueriesOnG(b *testing.B) {
	g, qs := benchGraph(100_000, 1_000_000, 6_000_000, 0)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		b.Fatal(err)
	}
	var rs [2][]float64
	for j := range rs {
		if _, rs[j], err = r.queryStart(qs[j]); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			for _, reset := range rs {
				if _, err := g.solve(ctx, reset, r.cfg.Solve, []*view{r.full}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("paired", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := g.solveLanes(ctx, rs[:], r.cfg.Solve, r.full); err != nil {
				b.Fatal(err)
			}
		}
	})
}
