package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
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
