package assemble

import (
	"context"
	"strings"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/present/finding"
)

// joinChecks are what every join scenario must hold: the defences reach
// the manifest's expected decisions, every action follows the query it
// names, and the manifest's description names every diverging query.
func joinChecks(t *testing.T, s *Session, m *evidence.Manifest) {
	t.Helper()
	ctx := context.Background()
	rows, err := s.ActionVerdicts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(m.ExpectedActions) {
		t.Errorf("%s: %d actions, manifest expects %d", m.Name, len(rows), len(m.ExpectedActions))
	}
	for _, r := range rows {
		for d, want := range m.ExpectedActions[r.Action] {
			if got := r.Verdicts[d].Decision; got != want {
				t.Errorf("%s/%s: %s says %s (%s), manifest expects %s", m.Name, r.Action, d, got, r.Verdicts[d].Reason, want)
			}
		}
	}
	queryTS := map[string]int64{}
	for _, q := range s.Queries {
		queryTS[q.ID] = q.TS
	}
	for _, a := range s.Actions {
		if ts, ok := queryTS[a.Query]; a.Query != "" && (!ok || a.TS <= ts) {
			t.Errorf("%s: action %s at %d does not follow its query %s (at %d, recorded %v)", m.Name, a.ID, a.TS, a.Query, ts, ok)
		}
	}
	rp, err := s.Replayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := rp.ReplayAll(context.Background(), s.ReplayQueries(), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replayed {
		if r.Class == diff.Diverge && !strings.Contains(m.Description, r.QueryID) {
			t.Errorf("%s: query %s diverges but the description does not name it", m.Name, r.QueryID)
		}
		if r.Class != diff.Same && strings.Contains(m.Description, "No query diverges") {
			t.Errorf("%s: the description says no query diverges, %s is %s", m.Name, r.QueryID, r.Class)
		}
	}
}

// An unregistered writer's entry justifying a dispatched transfer: the
// gate audit must not say "justified only by trusted entries" — the entry
// failed verification, so it is External for lineage and the gate.
func TestUnregisteredWriterJustifiesTransfer(t *testing.T) {
	s, m := open(t, "unregistered-justifies")
	rep, err := s.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var shadow string
	for id, st := range rep.EntryStatus {
		for _, c := range st.Codes {
			if c == finding.WriterUnregistered {
				shadow = id
			}
		}
	}
	if shadow == "" {
		t.Fatal("no WRITER_UNREGISTERED entry")
	}
	sum, err := s.LineageSummary(DefaultTau, false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range sum.Gate {
		if g.Action != "act-pay-shadow" {
			continue
		}
		found = true
		if g.Verdict != "deny" || !g.ShouldHaveRefused || strings.Contains(g.Reason, "only by trusted") || !strings.Contains(g.Reason, shadow) {
			t.Errorf("gate row %+v", g)
		}
	}
	if !found {
		t.Fatal("act-pay-shadow is not audited")
	}
	unverified := false
	for _, f := range sum.Findings {
		if f.Code == finding.LineageUnverified && strings.Contains(f.Subject+f.Message, shadow) {
			unverified = true
		}
	}
	if !unverified {
		t.Errorf("no LINEAGE_UNVERIFIED for %s: %+v", shadow, sum.Findings)
	}
	joinChecks(t, s, m)
}

// A lawfully tombstoned External root of a MemoryGraft chain: laundering
// is still found through the tombstone, the transfer is still refused,
// and the lawful deletion raises no lineage warning at all.
func TestTombstonedExternalRootStillLaunders(t *testing.T) {
	s, m := open(t, "tombstoned-root")
	rep, err := s.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || len(s.Tombstones) != 1 {
		t.Fatalf("verify ok %v, %d tombstones: %+v", rep.OK, len(s.Tombstones), rep.Findings)
	}
	sum, err := s.LineageSummary(DefaultTau, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Laundering) != 2 {
		t.Errorf("laundering %+v, want graft-summary and graft-plan", sum.Laundering)
	}
	if len(sum.RefusedActions) != 1 || sum.RefusedActions[0].Action != "act-pay-7731" {
		t.Errorf("refused %+v", sum.RefusedActions)
	}
	for _, f := range sum.Findings {
		if f.Code != finding.LineageLaundering {
			t.Errorf("a lawful tombstone raised %s: %s", f.Code, f.Message)
		}
	}
	joinChecks(t, s, m)
}

// The existing join scenarios hold the same invariants.
func TestJoinInvariantsOnOtherScenarios(t *testing.T) {
	for _, name := range []string{"clean", "memorygraft", "sleeper", "structural-write", "tombstone", "incident"} {
		s, m := open(t, name)
		joinChecks(t, s, m)
	}
}
