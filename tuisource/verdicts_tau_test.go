package tuisource

import (
	"context"
	"testing"
)

// The Actions view's defence verdicts follow the inspector's one tau:
// after Relabel, MemLineage's gate is the one the CLI computes at that tau
// (memorygraft's act-email-wiki is denied at tau 0 and allowed at 0.5).
func TestActionVerdictsFollowTau(t *testing.T) {
	t.Parallel()
	src, _ := openScenario(t, "memorygraft")
	finish(t, src)
	ctx := context.Background()
	decision := func(id string) string {
		for _, r := range src.ActionVerdicts() {
			if r.Action == id {
				return string(r.Verdicts["memlineage"].Decision)
			}
		}
		t.Fatalf("no action %s", id)
		return ""
	}
	for _, c := range []struct {
		tau  float64
		want string
	}{{0, "deny"}, {0.5, "allow"}, {0, "deny"}} {
		if err := src.Relabel(ctx, c.tau); err != nil {
			t.Fatal(err)
		}
		if got := decision("act-email-wiki"); got != c.want {
			t.Errorf("tau %.1f: memlineage %s, want %s", c.tau, got, c.want)
		}
	}
}
