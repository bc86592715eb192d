package assemble

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/evidencetest"

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

// A log that proves no entry (here the published checkpoint's root is
// flipped, so no inclusion proof reaches it) labels nothing: the summary
// and the label-reading defences say not checked instead of denying
// everything on labels the rule made External.
func TestLogProvingNothingLabelsNothing(t *testing.T) {
	dst := evidencetest.CopyTree(t, filepath.Join(scenarioDir, "clean"))
	cp := filepath.Join(dst, evidence.LogDir, "checkpoint")
	raw, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil {
		t.Fatal(err)
	}
	root[0] ^= 1
	lines[2] = base64.StdEncoding.EncodeToString(root)
	if err := os.WriteFile(cp, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := evidence.ReadManifest(dst)
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, dst, filepath.Join(dst, m.Snapshot), m, "")
	if err := s.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, s)
	sum, err := s.LineageSummary(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Verdicts != NotChecked || !strings.Contains(sum.VerdictsWhy, "proves no entry") || len(sum.RefusedActions) != 0 {
		t.Errorf("summary verdicts %q (%s), refused %v", sum.Verdicts, sum.VerdictsWhy, sum.RefusedActions)
	}
	rows, err := s.ActionVerdicts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, d := range []string{defences.IFC, defences.MemLineage, defences.AuthSelect} {
			if r.Verdicts[d].Decision != defences.NotChecked {
				t.Errorf("%s: %s says %+v", r.Action, d, r.Verdicts[d])
			}
		}
	}
}
