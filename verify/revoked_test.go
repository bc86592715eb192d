package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// backdatedEntry is the tampered scenario's entry signed with
// agent:rotating's revoked key, logged after the revocation but dated
// before it.
func backdatedEntry(t *testing.T, rep *verify.Report) string {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Code == finding.SignedBeforeRevoked {
			if eid, ok := strings.CutPrefix(f.Subject, "entry "); ok {
				return eid
			}
		}
	}
	t.Fatalf("no %s finding on the tampered scenario", finding.SignedBeforeRevoked)
	return ""
}

// The log position of a revocation decides key validity: a record logged
// after its signer's revocation is KEY_OUTSIDE_VALIDITY however early its
// signed timestamp, and its verdict and BadRecords (what lineage, the gate
// and G_auth read) say so (issue 23 item 2).
func TestRevocationByLogPosition(t *testing.T) {
	t.Parallel()
	rep := baseline(t, "tampered")
	eid := backdatedEntry(t, rep)
	var codes []finding.Code
	for _, f := range rep.Findings {
		if f.Subject == "entry "+eid {
			codes = append(codes, f.Code)
		}
	}
	if !slices.Contains(codes, finding.KeyOutsideValidity) {
		t.Errorf("the backdated entry %s is not KEY_OUTSIDE_VALIDITY: %v", eid, codes)
	}
	if v := rep.Entry(eid); v.Signature != verify.Failed || v.SignatureCode != finding.KeyOutsideValidity {
		t.Errorf("the backdated entry's verdict: %+v", v)
	}
	if !rep.BadRecords[eid] {
		t.Error("the backdated entry is not a bad record for the labels")
	}

	// The provenance pass (replay's labels) applies the same rule.
	dir := pristine(t, "tampered")
	opts := scenarioOptions(t, dir)
	pv, err := verify.OpenProvenance(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := loader.OpenContext(context.Background(), opts.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	err = snap.EachEntryRaw(context.Background(), func(r *loader.EntryRow) error {
		if r.EID == eid {
			snap.DecodeEntryRow(r)
			pv.CheckEntry(r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := pv.Report().EntryStatus[eid].Codes; !slices.Contains(got, finding.KeyOutsideValidity) {
		t.Errorf("provenance pass: the backdated entry's codes are %v", got)
	}
}
