package tuisource

import (
	"context"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
)

// Switching the label policy relabels the rows the policy decides (a
// derived entry whose parent edges are all at or below tau), and only
// those, and the Overview names the policy in force.
func TestRelabelPolicy(t *testing.T) {
	src, _ := openScenario(t, "sleeper")
	ctx := context.Background()
	const tau = 0.7 // above the chains' judge weights from k = 2 on
	if err := src.RelabelPolicy(ctx, tau, false); err != nil {
		t.Fatal(err)
	}
	open := make([]string, src.EntryCount())
	for i := range open {
		open[i] = src.Entry(i).Recomputed.String()
	}
	if got := src.Overview().LabelPolicy; got != "fail-open" {
		t.Fatalf("policy %q", got)
	}
	if err := src.RelabelPolicy(ctx, tau, true); err != nil {
		t.Fatal(err)
	}
	if got := src.Overview().LabelPolicy; got != "fail-closed" {
		t.Fatalf("policy %q after switching", got)
	}
	changed := 0
	for i := range open {
		now := src.Entry(i).Recomputed.String()
		if now != open[i] {
			changed++
			if now != "Derived-Untrusted" {
				t.Errorf("row %d: %s under fail-open became %s under fail-closed", i, open[i], now)
			}
		}
	}
	if changed == 0 {
		t.Fatal("fail-closed changed no label")
	}
	// Relabel (tau only) keeps the policy in force.
	if err := src.Relabel(ctx, tau); err != nil || src.Overview().LabelPolicy != "fail-closed" {
		t.Fatalf("Relabel: %v, policy %q", err, src.Overview().LabelPolicy)
	}
}

// An entry whose inclusion proof fails (here: under the altered tile) never
// reads "ok" in the Entries table.
func TestInclusionFailureShowsInTheRow(t *testing.T) {
	src, _ := openScenario(t, "tampered")
	p := finish(t, src)
	n := 0
	for _, f := range p.Findings {
		if f.Code != finding.InclusionFailed {
			continue
		}
		i, ok := src.EntryIndex(f.Subject)
		if !ok {
			continue
		}
		n++
		if r := src.Entry(i); r.Status != tui.Failed || r.Problem == "" {
			t.Errorf("entry %s: INCLUSION_FAILED, yet the row says %v %q", f.Subject, r.Status, r.Problem)
		}
	}
	if n == 0 {
		t.Fatal("no INCLUSION_FAILED finding names an entry")
	}
}
