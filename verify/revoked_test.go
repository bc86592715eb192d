package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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

// A record dated after the verifying clock (plus a day) is TIME_IN_FUTURE
// (issue 23 item 12): tampered's entry of 2100 is; the clean store is not
// under today's clock, and every record is under a clock set to 2000.
func TestTimeInFuture(t *testing.T) {
	t.Parallel()
	future := 0
	for _, f := range baseline(t, "tampered").Findings {
		if f.Code == finding.TimeInFuture {
			future++
			if !strings.Contains(f.Message, "2100-01-01") {
				t.Errorf("TIME_IN_FUTURE not about the 2100 entry: %+v", f)
			}
		}
	}
	if future != 1 {
		t.Errorf("%d TIME_IN_FUTURE findings on tampered, want 1", future)
	}
	for _, f := range baseline(t, "clean").Findings {
		if f.Code == finding.TimeInFuture {
			t.Errorf("clean store under today's clock: %+v", f)
		}
	}
	opts := scenarioOptions(t, pristine(t, "clean"))
	opts.Now = func() time.Time { return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) }
	rep, err := verify.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Code == finding.TimeInFuture {
			n++
		}
	}
	if n < rep.Entries || rep.OK {
		t.Errorf("under a clock of 2000: %d TIME_IN_FUTURE for %d entries, ok %v", n, rep.Entries, rep.OK)
	}
}
