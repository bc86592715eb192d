package verify_test

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// Every per-entry and per-checkpoint verdict agrees with the findings: a
// failing code about a record fails exactly the check it belongs to.
func TestVerdictsFollowFindings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec, _ := scenario.Lookup("tampered")
	if _, err := scenario.Generate(context.Background(), dir, spec, scenario.Options{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	rep := runScenario(t, filepath.Join(dir, "tampered"))
	if !rep.LogChecked || !rep.HMACChecked {
		t.Fatalf("log checked %v, hmac checked %v", rep.LogChecked, rep.HMACChecked)
	}
	cps := map[int64]verify.CheckpointVerdict{}
	for _, cv := range rep.CheckpointVerdicts {
		cps[cv.Seq] = cv
	}
	seen := map[verify.Check]int{}
	for _, f := range rep.Findings {
		if id, ok := strings.CutPrefix(f.Subject, "entry "); ok {
			v := rep.Entry(id)
			var got verify.Check
			switch {
			case verify.SignatureFailed(f.Code) || f.Code == finding.WriterUnregistered:
				got = v.Signature
			case f.Code == finding.HMACMissing || f.Code == finding.HMACWrong:
				got = v.HMAC
			case f.Code == finding.RecordNotInLog || f.Code == finding.InclusionFailed:
				got = v.Inclusion
			default:
				continue
			}
			seen[got]++
			if got != verify.Failed {
				t.Errorf("%s on %s, but the verdict is %s", f.Code, f.Subject, got)
			}
		}
		if n, ok := strings.CutPrefix(f.Subject, "checkpoint "); ok && n != "(published)" {
			seq, _ := strconv.ParseInt(n, 10, 64)
			cv, ok := cps[seq]
			if !ok || (cv.Signature != verify.Failed && cv.Consistent != verify.Failed && cv.Sighting != verify.Failed) || cv.Code == "" {
				t.Errorf("%s on %s, verdict %+v", f.Code, f.Subject, cv)
			}
		}
	}
	if seen[verify.Failed] < 5 {
		t.Errorf("only %d record findings checked against verdicts", seen[verify.Failed])
	}
}

// On the clean store every check that ran passed; without keys, the
// checks that need them say "not checked", never "passed".
func TestVerdictsOnCleanStore(t *testing.T) {
	t.Parallel()
	dir := pristine(t, "clean")
	rep := baseline(t, "clean")
	if len(rep.CheckpointVerdicts) == 0 {
		t.Fatal("no checkpoint verdicts")
	}
	for _, cv := range rep.CheckpointVerdicts {
		if cv.Signature != verify.Passed || cv.Consistent != verify.Passed || cv.Code != "" {
			t.Errorf("checkpoint %d: %+v", cv.Seq, cv)
		}
	}
	for _, eid := range keysOf(t, "clean", "entries", "eid", "") {
		v := rep.Entry(eid)
		if v.Signature != verify.Passed || v.Inclusion != verify.Passed || v.HMAC != verify.NotChecked {
			t.Errorf("clean entry %s verdict %+v", eid, v)
		}
	}
	// An id the evidence does not hold passed nothing (issue 23 item 6).
	for _, eid := range []string{"any-entry-without-findings", "019cadc9-0000-7000-8000-000000000000", ""} {
		v := rep.Entry(eid)
		if v.Signature != verify.NotInEvidence || v.Inclusion != verify.NotInEvidence || v.HMAC != verify.NotInEvidence {
			t.Errorf("unknown id %q: verdict %+v, want not in this evidence", eid, v)
		}
		if v.Signature.String() != "not in this evidence" {
			t.Errorf("unknown id %q reads %q", eid, v.Signature)
		}
	}
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	unanchored, err := verify.Run(context.Background(), verify.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log)})
	if err != nil {
		t.Fatal(err)
	}
	for _, cv := range unanchored.CheckpointVerdicts {
		if cv.Signature != verify.NotChecked || cv.Consistent != verify.Passed {
			t.Errorf("unanchored checkpoint %d: %+v", cv.Seq, cv)
		}
	}
}
