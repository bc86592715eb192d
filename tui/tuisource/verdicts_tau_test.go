package tuisource

import (
	"context"
	"testing"
)

// The Actions view's defence verdicts follow the inspector's one tau:
// after Relabel, MemLineage's gate is the one the CLI computes at that tau
// (memorygraft's act-email-wiki is denied at tau 0 and allowed at 0.5).
// Relabel computes them in the background; ActionVerdicts only reads.
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
		// The relabel step computed them: rendering only reads.
		src.mu.Lock()
		_, ok := src.verdicts[labelKey{tau: c.tau, failClosed: false}]
		src.mu.Unlock()
		if !ok {
			t.Fatalf("tau %.1f: no verdicts after Relabel", c.tau)
		}
		if got := decision("act-email-wiki"); got != c.want {
			t.Errorf("tau %.1f: memlineage %s, want %s", c.tau, got, c.want)
		}
	}
}

// ActionVerdicts never evaluates: at a tau no background step computed it
// answers nil instead of running the defences on the render path.
func TestActionVerdictsOnlyRead(t *testing.T) {
	t.Parallel()
	src, _ := openScenario(t, "memorygraft")
	finish(t, src)
	if src.ActionVerdicts() == nil {
		t.Fatal("no verdicts at the opening tau after verification")
	}
	src.mu.Lock()
	src.tau = 0.37 // as if the tau moved without its relabel step
	src.mu.Unlock()
	if rows := src.ActionVerdicts(); rows != nil {
		t.Fatalf("verdicts computed on the render path: %d rows", len(rows))
	}
}
