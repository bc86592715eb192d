package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/present/ocsf"
)

// TestTimelineTimesketchImports runs Timesketch's own JSONL import
// validation (timesketch/lib/utils.py read_and_validate_jsonl, in
// testdata/timesketch with its source named) on `timeline --output-format
// timesketch` of every scenario: every line is accepted, and the
// microsecond timestamp memscope writes is the one Timesketch would derive
// from the ISO 8601 datetime.
func TestTimelineTimesketchImports(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pandas, yaml, dateutil").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs Debian's python3 with pandas, yaml and dateutil: %v", err)
		}
		t.Skip("no /usr/bin/python3 with pandas, yaml and dateutil (Debian's python3-pandas, -yaml, -dateutil)")
	}
	testdata, _ := filepath.Abs("testdata/timesketch")
	for _, name := range []string{"structural-write", "tampered", "tombstone"} {
		sdir := filepath.Join(demoDir, name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runIn(t, sdir, append([]string{"timeline", "--output-format", "timesketch"}, m.VerifyArgs...)...)
		// The exit code follows the findings (tampered has errors).
		if want := map[bool]int{true: exitFindings, false: exitOK}[name == "tampered"]; code != want {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		file := filepath.Join(t.TempDir(), name+".jsonl")
		os.WriteFile(file, []byte(out), 0o644)
		cmd := exec.Command(py, filepath.Join(testdata, "validate.py"), file)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+testdata, "PYTHONDONTWRITEBYTECODE=1")
		res, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: Timesketch's importer refused the file: %v %s", name, err, res)
		}
		var got struct {
			Events     int      `json:"events"`
			Timestamps []int64  `json:"timestamps"`
			Datetimes  []string `json:"datetimes"`
		}
		if err := json.Unmarshal(res, &got); err != nil {
			t.Fatal(err)
		}
		if got.Events != len(lines) || got.Events == 0 {
			t.Fatalf("%s: Timesketch yielded %d events of %d lines", name, got.Events, len(lines))
		}
		for i, dt := range got.Datetimes {
			when, err := time.Parse(time.RFC3339Nano, dt)
			if err != nil || when.UnixMicro() != got.Timestamps[i] {
				t.Fatalf("%s line %d: datetime %q and timestamp %d disagree (%v)", name, i+1, dt, got.Timestamps[i], err)
			}
		}
	}
}

// TestVerifyOCSFOneEventPerFinding: verify --output-format ocsf writes
// one Detection Finding per finding of verify --json, with the same codes
// and severities (the mapping itself is validated against the OCSF schema
// in internal/present/ocsf).
func TestVerifyOCSFOneEventPerFinding(t *testing.T) {
	sdir := filepath.Join(demoDir, "tampered")
	m, err := evidence.ReadManifest(sdir)
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runIn(t, sdir, append([]string{"verify", "--json"}, m.VerifyArgs...)...)
	var rep struct {
		Findings []struct {
			Code     string `json:"code"`
			Severity string `json:"severity"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	code2, out2, errs := runIn(t, sdir, append([]string{"verify", "--output-format", "ocsf"}, m.VerifyArgs...)...)
	if code2 != code || code != exitFindings {
		t.Fatalf("exit %d with ocsf, %d with json (want 1 on tampered): %s", code2, code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out2), "\n")
	if len(lines) != len(rep.Findings) {
		t.Fatalf("%d OCSF events for %d findings", len(lines), len(rep.Findings))
	}
	for i, l := range lines {
		var ev ocsf.DetectionFinding
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.ClassUID != 2004 || ev.Unmapped["code"] != rep.Findings[i].Code || ev.Unmapped["memscope_severity"] != rep.Findings[i].Severity {
			t.Fatalf("event %d: class %d code %v severity %v, want 2004 %s %s", i, ev.ClassUID, ev.Unmapped["code"], ev.Unmapped["memscope_severity"], rep.Findings[i].Code, rep.Findings[i].Severity)
		}
	}
}

// TestTimelineAndReportOCSF: timeline --output-format ocsf writes the
// findings its exit code follows (verification's), and report --ocsf
// every finding the case rests on: at least verification's, in a new file
// that is never overwritten; both exit 1 on tampered evidence.
func TestTimelineAndReportOCSF(t *testing.T) {
	sdir := filepath.Join(demoDir, "tampered")
	m, err := evidence.ReadManifest(sdir)
	if err != nil {
		t.Fatal(err)
	}
	_, vout, _ := runIn(t, sdir, append([]string{"verify", "--output-format", "ocsf"}, m.VerifyArgs...)...)
	want := len(strings.Split(strings.TrimSpace(vout), "\n"))
	code, tout, errs := runIn(t, sdir, append([]string{"timeline", "--output-format", "ocsf"}, m.VerifyArgs...)...)
	if code != exitFindings || len(strings.Split(strings.TrimSpace(tout), "\n")) != want {
		t.Fatalf("timeline ocsf: exit %d, %d lines for verify's %d: %s", code, len(strings.Split(strings.TrimSpace(tout), "\n")), want, errs)
	}
	dir := t.TempDir()
	ocsfPath := filepath.Join(dir, "case.ocsf.jsonl")
	code, _, errs = runIn(t, sdir, append([]string{"report", "--out", filepath.Join(dir, "r.html"), "--ocsf", ocsfPath}, m.VerifyArgs...)...)
	if code != exitFindings {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	raw, err := os.ReadFile(ocsfPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) < want {
		t.Fatalf("report --ocsf: %d events, fewer than verify's %d findings", len(lines), want)
	}
	for _, l := range lines {
		var ev ocsf.DetectionFinding
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.ClassUID != 2004 {
			t.Fatalf("not a Detection Finding: %v %s", err, l)
		}
	}
	if code, _, _ := runIn(t, sdir, append([]string{"report", "--out", filepath.Join(dir, "r2.html"), "--ocsf", ocsfPath}, m.VerifyArgs...)...); code != exitUsage {
		t.Fatalf("report --ocsf over an existing file: exit %d", code)
	}
}
