package assemble

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
)

// Without verification (no --log), the labels come from writer names that
// anyone with write access to the store could have forged: memorygraft's
// transfer is refused after verification, and before it no verdict is
// drawn either way (issue 23, item 7).
func TestUnverifiedSummaryDrawsNoVerdict(t *testing.T) {
	s, _ := open(t, "memorygraft")
	sum, err := s.LineageSummary(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verified || sum.Verdicts != NotChecked {
		t.Fatalf("unverified summary: verified %v, verdicts %q", sum.Verified, sum.Verdicts)
	}
	if len(sum.Laundering) != 0 || len(sum.RefusedActions) != 0 {
		t.Errorf("unverified summary claims laundering %v / refusals %v", sum.Laundering, sum.RefusedActions)
	}
	if len(sum.Gate) == 0 {
		t.Fatal("the gate rows (the structure) are gone")
	}
	for _, g := range sum.Gate {
		if g.Verdict != NotChecked || g.ShouldHaveRefused {
			t.Errorf("unverified gate row %+v draws a verdict", g)
		}
	}
	for _, f := range LineageFindings(sum) {
		if f.Code == lineage.CodeLaundering || f.Code == finding.LineageGateViolation {
			t.Errorf("unverified summary raises %s", f.Code)
		}
	}
	raw, _ := json.Marshal(sum)
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil || back["verdicts"] != NotChecked {
		t.Errorf("JSON verdicts %v (%v)", back["verdicts"], err)
	}
	// The same session verified: the verdicts appear.
	mustVerify(t, s)
	sum, err = s.LineageSummary(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdicts != "checked" || len(sum.RefusedActions) != 1 {
		t.Errorf("verified summary: verdicts %q, refused %+v", sum.Verdicts, sum.RefusedActions)
	}
}

// tampered's RECORD_NOT_IN_LOG entry: verify proves it is not in the log,
// so lineage, the gate labels and G_auth must not call it Trusted (issue
// 23, item 5).
func TestEntryNotInLogIsExternal(t *testing.T) {
	s, _ := open(t, "tampered")
	rep := mustVerify(t, s)
	var missing []string
	for id, c := range rep.InclusionFailures {
		if c == finding.RecordNotInLog {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		t.Fatal("tampered has no RECORD_NOT_IN_LOG entry")
	}
	labels, err := s.Labels(0, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range missing {
		node, ok := s.Lineage.Index(id)
		if !ok {
			t.Fatalf("%s not in the lineage graph", id)
		}
		if labels[node] != lineage.External {
			t.Errorf("%s (RECORD_NOT_IN_LOG) recomputed %s, want External", id, labels[node])
		}
		if why := s.Lineage.Unverified(node); why != string(finding.RecordNotInLog) {
			t.Errorf("%s: unverified reason %q", id, why)
		}
		if l := s.entryLabel(rep, labels, id); l.Trust != lineage.External || l.Authenticated {
			t.Errorf("%s: defence label %+v", id, l)
		}
	}
}

// The lineage findings of one store come out in one order (tampered's
// unverified entries used to follow map order).
func TestLineageFindingOrderIsStable(t *testing.T) {
	var first []string
	for range 4 {
		s, _ := open(t, "tampered")
		mustVerify(t, s)
		sum, err := s.LineageSummary(0, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range sum.Findings {
			got = append(got, string(f.Code)+" "+f.Subject)
		}
		if first == nil {
			first = got
		} else if !slices.Equal(first, got) {
			t.Fatalf("finding order differs between runs:\n%v\n%v", first, got)
		}
	}
}
