package mwp

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

func audit(t *testing.T, name string) Report {
	t.Helper()
	r, _ := auditWith(t, name, nil, true)
	return r
}

// auditWith copies a generated scenario, applies edit (in SQL) to its snapshot,
// verifies it with its anchors when verified is set, and audits it with
// that report; it returns the report too.
func auditWith(t *testing.T, name string, edit func(db *sql.DB), verified bool) (Report, *verify.Report) {
	t.Helper()
	// A copy of the shared scenario: edit changes it.
	sc := evidencetest.CopyTree(t, filepath.Join(scenariocache.Dir(t, 3), name))
	snap := filepath.Join(sc, "snapshot.db")
	if edit != nil {
		db, err := sql.Open("sqlite", "file:"+snap)
		if err != nil {
			t.Fatal(err)
		}
		edit(db)
		db.Close()
	}
	var rep *verify.Report
	if verified {
		m, err := evidence.ReadManifest(sc)
		if err != nil {
			t.Fatal(err)
		}
		opts := verify.Options{Snapshot: snap, Log: filepath.Join(sc, m.Log), LogKey: m.Anchors.LogKey}
		opts.TrustRoots = evidencetest.Roots(t, m)
		if rep, err = verify.Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
	}
	s, err := loader.Open(snap)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in, err := Collect(context.Background(), s, nil, rep)
	if err != nil {
		t.Fatal(err)
	}
	return Audit(in), rep
}

func check(r Report, name string) Check {
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	return Check{}
}

// The mediated window and the store version decide only when the store's
// signed configuration verified them. Unverified (no report) or edited
// (the signed record no longer matches), they are shown as claims and the
// bypass check is not checkable: no MWP_GATE_BYPASS either way, and the
// version chain no longer counts steps outside the (unknown) window.
func TestUnsignedMetaDecidesNothing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		what     string
		edit     func(db *sql.DB)
		verified bool
		label    string
	}{
		{"not verified", nil, false, "not checked"},
		{"edited", func(db *sql.DB) {
			if _, err := db.Exec("UPDATE meta SET value = '1' WHERE key = 'gate_mediated_since'"); err != nil {
				t.Fatal(err)
			}
		}, true, "fails verification"},
	} {
		r, rep := auditWith(t, "mwp", tc.edit, tc.verified)
		c := codes(r)
		if c[finding.MWPGateBypass] != 0 {
			t.Errorf("%s: the claimed window decided a bypass: %v", tc.what, r.Findings)
		}
		by := check(r, "gate_bypass")
		if by.Status != StatusNotCheckable || !strings.Contains(by.Detail, tc.label) || !strings.Contains(by.Detail, "decides nothing") {
			t.Errorf("%s: gate_bypass %+v", tc.what, by)
		}
		if rep != nil {
			found := false
			for _, f := range rep.Findings {
				found = found || (f.Code == finding.ColumnMismatch && f.Subject == "config gate_mediated_since")
			}
			if !found {
				t.Errorf("%s: verify did not catch the edited meta value: %v", tc.what, rep.Findings)
			}
		}
	}
}

// Gate events and vectors carry verify's labels: "" on the signed mwp
// store, and the vector rows' labels reach alpha_vec's detail when a
// vector's record is stripped.
func TestMWPLabels(t *testing.T) {
	t.Parallel()
	r := audit(t, "mwp")
	if len(r.GateLabels) == 0 {
		t.Fatal("no gate labels")
	}
	for id, l := range r.GateLabels {
		if l != "" {
			t.Errorf("gate %s labelled %q on a signed store", id, l)
		}
	}
	if got := (Report{}).GateLabel("g"); got != "not checked" {
		t.Errorf("unknown gate label %q", got)
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Message, "[gate event") {
			t.Errorf("a verified gate event labelled: %s", f.Message)
		}
	}
	// Unverified, every finding about a gate event says so.
	un, _ := auditWith(t, "mwp", nil, false)
	n := 0
	for _, f := range un.Findings {
		if strings.HasPrefix(f.Subject, "gate ") {
			n++
			if !strings.Contains(f.Message, ": not checked]") {
				t.Errorf("unverified gate finding not labelled: %s", f.Message)
			}
		}
	}
	if n == 0 {
		t.Error("no gate finding on the unverified mwp store")
	}
	r, _ = auditWith(t, "mwp", func(db *sql.DB) {
		if _, err := db.Exec("UPDATE vectors SET record = NULL"); err != nil {
			t.Fatal(err)
		}
	}, true)
	vec := check(r, "alpha_vec")
	if !strings.Contains(vec.Detail, "not covered by a verified signature") {
		t.Errorf("alpha_vec detail %q", vec.Detail)
	}
	for _, f := range r.Findings {
		if f.Code == finding.MWPVectorResidue && !strings.Contains(f.Message, "unsigned") {
			t.Errorf("residue from an unsigned vector not labelled: %s", f.Message)
		}
	}
}

func codes(r Report) map[finding.Code]int {
	out := map[finding.Code]int{}
	for _, f := range r.Findings {
		out[f.Code]++
	}
	return out
}

// The mwp scenario has one case of each failure; each is caught.
func TestMWPScenarioCaught(t *testing.T) {
	t.Parallel()
	r := audit(t, "mwp")
	c := codes(r)
	for _, code := range []finding.Code{finding.MWPGateBypass, finding.MWPNonceReuse, finding.MWPCandidateHashMismatch, finding.MWPVersionChainBroken, finding.MWPVectorResidue} {
		if c[code] != 1 {
			t.Errorf("%s: %d findings, want 1 (%v)", code, c[code], r.Findings)
		}
	}
	// The rejected candidate is a parent of mwp-leak and cited by an action.
	if c[finding.MWPPRLRTrace] != 2 {
		t.Errorf("PRLR traces %d, want 2: %v", c[finding.MWPPRLRTrace], r.Findings)
	}
	for _, ch := range r.Checks {
		switch ch.Name {
		case "gate_bypass", "prlr", "nonce_reuse", "version_chain", "candidate_hash", "alpha_vec":
			if ch.Status != StatusChecked {
				t.Errorf("%s: %s, want checked", ch.Name, ch.Status)
			}
		}
	}
}

// An honest store: no MWP finding, and bypass is not checkable because
// the store does not declare what its gate mediates.
func TestCleanHasNoMWPFinding(t *testing.T) {
	t.Parallel()
	r := audit(t, "clean")
	if len(r.Findings) != 0 {
		t.Errorf("clean store: %v", r.Findings)
	}
	for _, ch := range r.Checks {
		if ch.Name == "gate_bypass" && ch.Status != StatusNotCheckable {
			t.Errorf("gate_bypass on a store without a declared gate: %s", ch.Status)
		}
		if ch.Name == "alpha_vec" && ch.Status != StatusNotCheckable {
			t.Errorf("alpha_vec on a store without a vector table: %s", ch.Status)
		}
	}
	if r.Accepted != 1 || r.Rejected != 1 {
		t.Errorf("accepted %d rejected %d, want 1 and 1", r.Accepted, r.Rejected)
	}
}

// The checks on hand-made input: a version that goes back, an accept that
// jumps, a candidate leaf in the log, a selection naming the candidate.
func TestAuditUnits(t *testing.T) {
	t.Parallel()
	in := Input{
		Gate: []GateEvent{
			{ID: "g1", CandidateEID: "a", Accept: true, VersionBefore: 4, VersionAfter: 5},
			{ID: "g2", CandidateEID: "b", Accept: true, VersionBefore: 3, VersionAfter: 6},
			{ID: "g3", CandidateEID: "rej", VersionBefore: 6, VersionAfter: 6},
		},
		Queries:   []Query{{ID: "q", Selected: []string{"passage:x"}}},
		NodeEntry: map[string]string{"passage:x": "rej"},
		Leaves:    map[string]bool{"rej": true},
	}
	c := codes(Audit(in))
	if c[finding.MWPVersionChainBroken] != 2 || c[finding.MWPPRLRTrace] != 2 {
		t.Errorf("got %v, want 2 chain (jump of 3, start below 5) and 2 PRLR (selection, leaf)", c)
	}
	if Audit(Input{}).Checks[4].Status != StatusNotCheckable {
		t.Error("no gate events: the version chain is not checkable")
	}
}

// alpha_vec on hand-made input: a vector keyed by a rejected candidate, a
// re-keyed vector of a rejected candidate's bytes, an accepted entry's
// vector (no finding) and an orphan (counted, no finding).
func TestAlphaVec(t *testing.T) {
	t.Parallel()
	rejHash := [32]byte{7}
	in := Input{
		Gate: []GateEvent{
			{ID: "g-acc", CandidateEID: "ok", Accept: true, VersionBefore: 0, VersionAfter: 1},
			{ID: "g-rej", CandidateEID: "rej", CandidateHash: [32]byte{9}, VersionBefore: 1, VersionAfter: 1},
			{ID: "g-rej2", CandidateEID: "rej2", CandidateHash: rejHash, VersionBefore: 1, VersionAfter: 1},
		},
		Records:        []Record{{Kind: "entry", ID: "ok", Nonce: [16]byte{1}}},
		HasVectorTable: true,
		Vectors: []Vector{
			{EID: "ok", ContentHash: [32]byte{1}},
			{EID: "rej"},
			{EID: "renamed", ContentHash: rejHash},
			{EID: "orphan", ContentHash: [32]byte{3}},
		},
	}
	r := Audit(in)
	var vec Check
	for _, c := range r.Checks {
		if c.Name == "alpha_vec" {
			vec = c
		}
	}
	if vec.Status != StatusChecked || vec.Findings != 2 {
		t.Fatalf("alpha_vec %+v, want checked with 2 findings", vec)
	}
	subjects := map[string]bool{}
	for _, f := range r.Findings {
		if f.Code == finding.MWPVectorResidue {
			subjects[f.Subject] = true
		}
	}
	if !subjects["gate g-rej"] || !subjects["gate g-rej2"] {
		t.Errorf("residue subjects %v, want both rejections", subjects)
	}
	if !strings.Contains(vec.Detail, "1 vectors name no stored record") {
		t.Errorf("orphan not counted: %q", vec.Detail)
	}
	in.HasVectorTable, in.Vectors = false, nil
	for _, c := range Audit(in).Checks {
		if c.Name == "alpha_vec" && (c.Status != StatusNotCheckable || c.Findings != 0) {
			t.Errorf("no vector table: %+v, want not checkable", c)
		}
	}
}
