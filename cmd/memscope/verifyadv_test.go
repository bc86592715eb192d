package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/verify"
	"golang.org/x/mod/sumdb/note"
)

// tamperedAnchors are the tampered scenario's pinned anchors, read from
// files the test supplies (not from the evidence directory).
var tamperedAnchors = []string{"--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}

// An entry whose record is missing from the log is External for lineage,
// with the inclusion failure as the reason (issue 23 item 5): main gave it
// "recomputed: Trusted".
func TestLineageEntryNotInLogIsExternal(t *testing.T) {
	sdir := filepath.Join(demoDir, "tampered")
	code, out, errs := runIn(t, sdir, append([]string{"verify", "snapshot.db", "--json"}, tamperedAnchors...)...)
	if code != exitFindings {
		t.Fatalf("verify tampered: exit %d %s", code, errs)
	}
	var rep struct {
		Findings []struct{ Code, Subject string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, f := range rep.Findings {
		if f.Code == "RECORD_NOT_IN_LOG" || f.Code == "INCLUSION_FAILED" {
			if id, ok := strings.CutPrefix(f.Subject, "entry "); ok {
				missing = append(missing, f.Code+" "+id)
			}
		}
	}
	if len(missing) < 2 {
		t.Fatalf("want a RECORD_NOT_IN_LOG and an INCLUSION_FAILED entry, got %v", missing)
	}
	for _, m := range missing {
		codeName, id, _ := strings.Cut(m, " ")
		_, out, errs := runIn(t, sdir, append([]string{"lineage", "snapshot.db", id, "--json"}, tamperedAnchors...)...)
		var ev struct {
			Recomputed  string `json:"recomputed"`
			Explanation struct {
				Unverified string `json:"unverified"`
			} `json:"explanation"`
		}
		if err := json.Unmarshal([]byte(out), &ev); err != nil {
			t.Fatalf("lineage %s: %v %s", id, err, errs)
		}
		if ev.Recomputed != "External" || !strings.Contains(ev.Explanation.Unverified, codeName) {
			t.Errorf("%s entry %s: recomputed %q, unverified %q; want External for %s", codeName, id, ev.Recomputed, ev.Explanation.Unverified, codeName)
		}
	}
}

// diff applies verify's checkpoint rules (issue 23 item 9): under a pinned
// log key, B's checkpoint re-signed by another key (same origin, size and
// root) proves nothing, so the two checkpoints are not "identical": the
// finding is CHECKPOINT_SIG_INVALID and consistency is not checked.
func TestDiffUnpinnedCheckpointIsNotIdentical(t *testing.T) {
	dir := evidencetest.CopyTree(t, filepath.Join(demoDir, "clean"))
	b := filepath.Join(dir, "b.db")
	src, err := os.ReadFile(filepath.Join(dir, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, src, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+b)
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	var raw []byte
	if err := db.QueryRow("SELECT seq, note FROM checkpoints ORDER BY seq DESC LIMIT 1").Scan(&seq, &raw); err != nil {
		t.Fatal(err)
	}
	cp, err := tlog.ParseCheckpoint(raw)
	if err != nil {
		t.Fatal(err)
	}
	skey, _, err := note.GenerateKey(rand.Reader, cp.Origin)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := tlog.SignCheckpoint(signer, cp.Origin, cp.Size, cp.Root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE checkpoints SET note = ? WHERE seq = ?", forged, seq); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errs := runIn(t, dir, "diff", "snapshot.db", "b.db", "--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--json")
	var res struct {
		Consistency struct{ Status, Detail string } `json:"consistency"`
		Findings    []struct{ Code, Subject string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("diff --json: exit %d %v %s\n%s", code, err, errs, out)
	}
	if res.Consistency.Status == "identical" || res.Consistency.Status == "consistent" {
		t.Errorf("consistency %q (%s) from a checkpoint the pinned key never signed", res.Consistency.Status, res.Consistency.Detail)
	}
	found := false
	for _, f := range res.Findings {
		found = found || (f.Code == "CHECKPOINT_SIG_INVALID" && strings.Contains(f.Subject, "B"))
	}
	if !found || code != exitFindings {
		t.Errorf("exit %d, findings %+v: want CHECKPOINT_SIG_INVALID on B", code, res.Findings)
	}
}

// An anchors file read from the evidence directory is "pinned from a file
// inside the evidence" with an ANCHOR_FROM_EVIDENCE warning; the same file
// kept elsewhere pins plainly; a link from elsewhere into the evidence is
// still the evidence's file (issue 23 item 10).
func TestAnchorsFromEvidenceAreReported(t *testing.T) {
	sdir := filepath.Join(demoDir, "clean")
	outside := filepath.Join(t.TempDir(), "anchors.json")
	b, err := os.ReadFile(filepath.Join(sdir, "scenario.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, b, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.json")
	if err := os.Symlink(filepath.Join(sdir, "scenario.json"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		anchors      string
		fromEvidence bool
	}{{"scenario.json", true}, {outside, false}, {link, true}} {
		code, out, errs := runIn(t, sdir, "verify", "snapshot.db", "--log", evidence.LogDir, "--anchors", tc.anchors, "--json")
		var rep struct {
			Anchors  map[string]string
			Findings []struct{ Code, Severity string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
			t.Fatalf("--anchors %s: exit %d %v %s", tc.anchors, code, err, errs)
		}
		want := "pinned"
		if tc.fromEvidence {
			want = verify.PinnedFromEvidence
		}
		if rep.Anchors["log_key"] != want || rep.Anchors["registry"] != want {
			t.Errorf("--anchors %s: anchors %v, want %q", tc.anchors, rep.Anchors, want)
		}
		warned := 0
		for _, f := range rep.Findings {
			if f.Code == "ANCHOR_FROM_EVIDENCE" && f.Severity == "warning" {
				warned++
			}
		}
		if (warned == 2) != tc.fromEvidence || (warned != 0 && !tc.fromEvidence) {
			t.Errorf("--anchors %s: %d ANCHOR_FROM_EVIDENCE warnings, from evidence %v", tc.anchors, warned, tc.fromEvidence)
		}
	}
}
