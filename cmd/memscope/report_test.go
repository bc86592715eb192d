package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	t.Parallel()
	sdir := filepath.Join(demoDir, "structural-write")
	out := t.TempDir()
	html, js := filepath.Join(out, "r.html"), filepath.Join(out, "r.json")
	args := []string{"report", filepath.Join(sdir, "snapshot.db"), "--log", filepath.Join(sdir, "log"), "--anchors", filepath.Join(sdir, "scenario.json"),
		"--out", html, "--json", js, "--date", "2026-03-02T12:00:00Z"}
	var stdout, stderr bytes.Buffer
	// structural-write is a compromise: exit 1, as every command exits on
	// an error finding.
	if code := run(context.Background(), args, &stdout, &stderr); code != exitFindings {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Schema  string   `json:"schema"`
		Command []string `json:"command"`
		Verdict struct {
			Level string `json:"level"`
		} `json:"verdict"`
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Schema != "memscope-case/4" || c.Verdict.Level != "compromise-indicated" || strings.Join(c.Command, " ") != "memscope "+strings.Join(args, " ") {
		t.Errorf("case file: schema %q, level %q, command %q", c.Schema, c.Verdict.Level, c.Command)
	}
	if !bytes.Contains(page, []byte("structural-write/snapshot.db")) {
		t.Error("the default title does not name the store")
	}
	// A second run refuses to overwrite and leaves the first report as is.
	stderr.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "exists") {
		t.Errorf("second run: exit %d, %s", code, stderr.String())
	}
	if again, _ := os.ReadFile(html); !bytes.Equal(again, page) {
		t.Error("the existing report was changed")
	}
	// --out is required; a bad --date is a usage error.
	for _, bad := range [][]string{
		{"report", filepath.Join(sdir, "snapshot.db"), "--log", filepath.Join(sdir, "log")},
		{"report", filepath.Join(sdir, "snapshot.db"), "--log", filepath.Join(sdir, "log"), "--out", filepath.Join(out, "x.html"), "--date", "yesterday"},
	} {
		stderr.Reset()
		if code := run(context.Background(), bad, &stdout, &stderr); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", bad, code, exitUsage)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "x.html")); err == nil {
		t.Error("a report was written despite a usage error")
	}
}
