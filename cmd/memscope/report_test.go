package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
	if c.Schema != "memscope-case/3" || c.Verdict.Level != "compromise-indicated" || strings.Join(c.Command, " ") != "memscope "+strings.Join(args, " ") {
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

// The case file's replay and actions rows use the CLI's keys for every
// field both write: a case-file key is either the CLI's or one the CLI has
// no field for (listed here).
func TestCaseFileKeysAreTheCLIs(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	out := t.TempDir()
	js := filepath.Join(out, "case.json")
	anchors := []string{"--log", "log", "--anchors", "scenario.json"}
	if code, _, errs := runIn(t, sdir, append(append([]string{"report", "snapshot.db"}, anchors...), "--out", filepath.Join(out, "r.html"), "--json", js)...); code != exitFindings && code != exitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Replay struct {
			Rows, Details []map[string]any
		} `json:"replay"`
		Actions struct {
			Rows []map[string]any
		} `json:"actions"`
		Lineage  map[string]any `json:"lineage"`
		Timeline struct {
			Events []map[string]any
		} `json:"timeline"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	cli := func(cmd string) []map[string]any {
		code, stdout, errs := runIn(t, sdir, append(append([]string{cmd, "snapshot.db"}, anchors...), "--json")...)
		if code == exitUsage {
			t.Fatalf("%s: %s", cmd, errs)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
			t.Fatalf("%s --json: %v", cmd, err)
		}
		return rows
	}
	object := func(cmd string) map[string]any {
		code, stdout, errs := runIn(t, sdir, append(append([]string{cmd, "snapshot.db"}, anchors...), "--json")...)
		if code == exitUsage {
			t.Fatalf("%s: %s", cmd, errs)
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(stdout), &o); err != nil {
			t.Fatalf("%s --json: %v", cmd, err)
		}
		return o
	}
	replayRows, actionRows := cli("replay"), cli("actions")
	lineageOut, timelineOut := object("lineage"), object("timeline")
	var timelineEvents []map[string]any
	if evs, ok := timelineOut["events"].([]any); ok {
		for _, e := range evs {
			timelineEvents = append(timelineEvents, e.(map[string]any))
		}
	}
	for _, tc := range []struct {
		what          string
		caseRows, cli []map[string]any
		caseOnly      []string
	}{
		{"replay rows", c.Replay.Rows, replayRows, nil},
		{"replay details", c.Replay.Details, replayRows, []string{"culprit_candidates", "recorded"}},
		{"action rows", c.Actions.Rows, actionRows, []string{"sensitive", "reasons", "refused_by", "alert"}},
		{"lineage", []map[string]any{c.Lineage}, []map[string]any{lineageOut}, []string{"laundering_total", "refused_total"}},
		{"timeline events", c.Timeline.Events, timelineEvents, []string{"alert"}},
	} {
		if len(tc.caseRows) == 0 || len(tc.cli) == 0 {
			t.Fatalf("%s: %d case-file rows, %d CLI rows", tc.what, len(tc.caseRows), len(tc.cli))
		}
		cliKeys := map[string]bool{}
		for _, r := range tc.cli {
			for k := range r {
				cliKeys[k] = true
			}
		}
		for _, r := range tc.caseRows {
			for k := range r {
				if !cliKeys[k] && !slices.Contains(tc.caseOnly, k) {
					t.Errorf("%s: the case file writes %q, which the CLI's --json does not (a field under two names?)", tc.what, k)
				}
			}
		}
	}
}
