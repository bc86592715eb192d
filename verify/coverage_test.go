package verify_test

import (
	"testing"

	"github.com/memscope/memscope/verify"
)

// TestLabelFollowsCoverage: the per-row label is derived from the coverage
// verify computed, table by table, on generated stores: a table whose rows
// are all covered labels nothing, any other labels every row "unsigned".
// When a table becomes signed, its labels go with no change here.
func TestLabelFollowsCoverage(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"clean", "smsr"} {
		rep := baseline(t, name)
		if len(rep.Coverage) == 0 {
			t.Fatalf("%s: no coverage", name)
		}
		sawUnsigned := false
		for _, c := range rep.Coverage {
			want := ""
			switch c.Status {
			case verify.StatusUnsigned:
				want = verify.LabelUnsigned
				sawUnsigned = true
			case verify.StatusPartial:
				t.Fatalf("%s: generated table %s is partially covered", name, c.Table)
			}
			if got := rep.Label(c.Table, "any-row"); got != want {
				t.Errorf("%s: Label(%s) = %q with coverage %s, want %q", name, c.Table, got, c.Status, want)
			}
			if got := rep.TableLabel(c.Table); got != want {
				t.Errorf("%s: TableLabel(%s) = %q with coverage %s, want %q", name, c.Table, got, c.Status, want)
			}
		}
		// Generated entries sign their session, so sessions are covered
		// with or without the HMAC key.
		if got := rep.Label(verify.TableSessions, "e"); got != "" {
			t.Errorf("%s: session label %q with HMAC checked %v", name, got, rep.HMACChecked)
		}
		if !sawUnsigned && rep.Unsigned != nil {
			t.Errorf("%s: report names unsigned tables %v but no coverage row says unsigned", name, rep.Unsigned)
		}
	}
	if !baseline(t, "smsr").HMACChecked || baseline(t, "clean").HMACChecked {
		t.Fatal("the smsr scenario is the one verified with an HMAC key")
	}
	if got := baseline(t, "clean").Label("no-such-table", "x"); got != verify.LabelUnsigned {
		t.Errorf("a table verify does not know is covered: %q", got)
	}
}

// TestLabelPartialAndUnverified: a partially covered table answers per
// row; without a verification report nothing is called covered.
func TestLabelPartialAndUnverified(t *testing.T) {
	t.Parallel()
	rep := &verify.Report{
		Coverage:   []verify.TableCoverage{{Table: verify.TableQueries, Rows: 2, Signed: 1, Status: verify.StatusPartial}},
		SignedRows: map[string]map[string]bool{verify.TableQueries: {"q-signed": true}},
	}
	if rep.Label(verify.TableQueries, "q-signed") != "" || rep.Label(verify.TableQueries, "q-other") != verify.LabelUnsigned {
		t.Error("partial table: the signed row must be covered, the other not")
	}
	if rep.TableLabel(verify.TableQueries) != verify.LabelUnsigned {
		t.Error("a partially covered table is not covered as a whole")
	}
	var none *verify.Report
	if none.Covered(verify.TableQueries, "q") || none.Label(verify.TableQueries, "q") != verify.LabelNotChecked || none.TableLabel(verify.TableActions) != verify.LabelNotChecked {
		t.Error("without verification coverage is not checked")
	}
}

// TestLabelFailedRecord: a signed row whose column disagrees with its
// record is not shown as covered: its label says it fails verification,
// and the untouched rows of the same table stay unlabelled.
func TestLabelFailedRecord(t *testing.T) {
	t.Parallel()
	rep := baseline(t, "tampered-reset")
	if got := rep.Label(verify.TableQueries, "q-born-first"); got != verify.LabelFailed {
		t.Errorf("tampered query labelled %q, want %q", got, verify.LabelFailed)
	}
	if got := rep.Label(verify.TableQueries, "q-patagonia"); got != "" {
		t.Errorf("untouched query labelled %q", got)
	}
	if got := baseline(t, "clean").Label(verify.TableQueries, "q-born-first"); got != "" {
		t.Errorf("clean query labelled %q", got)
	}
}
