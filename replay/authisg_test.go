package replay

import (
	"context"
	"fmt"
	"regexp"
	"testing"
)

// TestReplayWhenGAuthIsG: on a graph whose every write is authenticated
// (or whose unauthenticated writes carry no walk: weight 0), Replay solves
// G alone, and every row is the one the fused pair solve gives, bit for
// bit, on one worker and on two.
func TestReplayWhenGAuthIsG(t *testing.T) {
	t.Parallel()
	for _, unauth := range []int{0, 40} {
		g, qs := benchGraph(300, 1200, 9000, unauth)
		if unauth > 0 {
			// The unauthenticated writes weigh nothing: G_auth walks as G.
			es := g.Edges()
			for i := range es {
				if es[i].Prov.Writer == noSource.Writer {
					es[i].Weight = 0
				}
			}
			var err error
			if g, err = NewGraph(g.Nodes(), es, g.SelfLoops()); err != nil {
				t.Fatal(err)
			}
		}
		r, err := NewReplayer(g, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if !r.authIsG || (unauth > 0) != (len(r.unauth) > 0) {
			t.Fatalf("unauth %d: G_auth taken for G: %v, %d unauthenticated writes", unauth, r.authIsG, len(r.unauth))
		}
		pair, err := NewReplayer(g, Config{})
		if err != nil {
			t.Fatal(err)
		}
		pair.authIsG = false
		for _, oneCore := range []bool{true, false} {
			for _, q := range qs[:6] {
				got, err := r.replay(context.Background(), q, oneCore)
				if err != nil {
					t.Fatal(err)
				}
				want, err := pair.replay(context.Background(), q, oneCore)
				if err != nil {
					t.Fatal(err)
				}
				if rowText(got) != rowText(want) {
					t.Errorf("unauth %d, query %s: G solved alone gives\n%s\nthe pair solve\n%s", unauth, q.ID, rowText(got), rowText(want))
				}
			}
		}
	}
}

// rowText spells a row out, pointed-to values included and addresses left
// out, so that two equal rows give the same text (NaN margins included,
// which reflect.DeepEqual would call unequal).
func rowText(r Row) string {
	s := fmt.Sprintf("%+v", r)
	for _, p := range []any{r.G.Next, r.GAuth.Next, r.Culprits, r.Recorded} {
		s += fmt.Sprintf(" %+v", p)
	}
	for _, t := range r.Targets {
		s += fmt.Sprintf(" %+v", t.Eviction)
	}
	return regexp.MustCompile(`0x[0-9a-f]+`).ReplaceAllString(s, "ptr")
}
