package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
)

// The report's case file is a composition of the CLI's answers: on every
// demo scenario, each answer the case file holds (verify, actions, replay,
// lineage, timeline, exposure) has the keys and values the command's
// --json gives for the same evidence and flags. A row the case file lists
// is the CLI's row with the same id, whole; the case file adds only the
// keys named here.
func TestCaseFileComposesTheCLIsAnswers(t *testing.T) {
	for _, spec := range scenario.Specs {
		t.Run(spec.Name, func(t *testing.T) {
			sdir := filepath.Join(demoDir, spec.Name)
			m, err := evidence.ReadManifest(sdir)
			if err != nil {
				t.Fatal(err)
			}
			compareCaseWithCLI(t, sdir, m.VerifyArgs)
		})
	}
}

// answer runs cmd --json with args in dir and decodes its output.
func answer(t *testing.T, dir, cmd string, args []string) any {
	t.Helper()
	code, out, errs := runIn(t, dir, append(append([]string{cmd}, args...), "--json")...)
	if code == exitUsage {
		t.Fatalf("%s --json: exit %d: %s", cmd, code, errs)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s --json: %v", cmd, err)
	}
	return v
}

func compareCaseWithCLI(t *testing.T, sdir string, args []string) {
	js := filepath.Join(t.TempDir(), "case.json")
	if code, _, errs := runIn(t, sdir, append(append([]string{"report"}, args...), "--out", filepath.Join(filepath.Dir(js), "r.html"), "--json", js)...); code == exitUsage {
		t.Fatalf("report: %s", errs)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	section := func(k string) map[string]any {
		s, _ := c[k].(map[string]any)
		return s
	}
	// Whole answers.
	sameValue(t, "verify", c["verify"], answer(t, sdir, "verify", args))
	if ex := section("exposure"); ex != nil && ex["available"] == true {
		// The report draws fewer samples than exposure's default (its
		// budget says how many): the CLI is asked for the same.
		budget, _ := ex["budget"].(map[string]any)
		flags := append(slices.Clone(args), "--draws", string(mustJSON(t, budget["draws"])), "--curve-draws", string(mustJSON(t, budget["curve_draws"])))
		cliExposure, _ := answer(t, sdir, "exposure", flags).(map[string]any)
		// The case file names the snapshot once, under evidence.inputs.
		delete(cliExposure, "snapshot")
		sameObject(t, "exposure", ex, cliExposure, "available", "note")
	}
	// lineage --json's keys at the top of the case file's lineage section.
	lin := section("lineage")
	cliLineage, _ := answer(t, sdir, "lineage", args).(map[string]any)
	sameObject(t, "lineage", lin, cliLineage, "refused_lineage", "refused_lineage_total")
	// Lists of rows: each listed row is the CLI's row with its id.
	actions := section("actions")
	cliActions, _ := answer(t, sdir, "actions", args).([]any)
	sameRows(t, "actions", actions["rows"], cliActions, "action", func(r map[string]any) string { return r["action"].(string) })
	if total, _ := actions["total"].(float64); int(total) != len(cliActions) {
		t.Errorf("actions: the case file counts %v, the CLI lists %d", actions["total"], len(cliActions))
	}
	if rp := section("replay"); rp["available"] == true {
		cliReplay, _ := answer(t, sdir, "replay", args).([]any)
		sameRows(t, "replay", rp["rows"], cliReplay, "query", func(r map[string]any) string { return r["query"].(string) })
		if q, _ := rp["queries"].(float64); int(q) != len(cliReplay) {
			t.Errorf("replay: the case file counts %v queries, the CLI lists %d", rp["queries"], len(cliReplay))
		}
	}
	if tl := section("timeline"); tl != nil {
		cliTimeline, _ := answer(t, sdir, "timeline", args).(map[string]any)
		events, _ := cliTimeline["events"].([]any)
		if total, _ := tl["total"].(float64); int(total) != len(events) {
			t.Errorf("timeline: the case file counts %v events, the CLI lists %d", tl["total"], len(events))
		}
		if tl["order"] != cliTimeline["order"] {
			t.Errorf("timeline: order %v, the CLI's %v", tl["order"], cliTimeline["order"])
		}
		sameRows(t, "timeline", tl["events"], events, "index", func(r map[string]any) string { return string(mustJSON(t, r["index"])) }, "alert")
	}
}

// sameRows checks that every row of caseRows is the CLI row with the same
// id (but for the case-only keys), and that some row is listed.
func sameRows(t *testing.T, what string, caseRows any, cli []any, key string, id func(map[string]any) string, caseOnly ...string) {
	t.Helper()
	rows, _ := caseRows.([]any)
	if len(rows) == 0 && len(cli) > 0 {
		t.Errorf("%s: the case file lists no row, the CLI %d", what, len(cli))
	}
	byID := map[string]map[string]any{}
	for _, r := range cli {
		m := r.(map[string]any)
		byID[id(m)] = m
	}
	for _, r := range rows {
		m, ok := r.(map[string]any)
		if !ok || m[key] == nil {
			t.Fatalf("%s: a case-file row without %q: %v", what, key, r)
		}
		want, ok := byID[id(m)]
		if !ok {
			t.Errorf("%s: the case file lists %s %s, the CLI does not", what, key, id(m))
			continue
		}
		sameObject(t, what+" "+id(m), m, want, caseOnly...)
	}
}

// sameObject checks that got has exactly want's keys and values, plus at
// most the caseOnly keys.
func sameObject(t *testing.T, what string, got, want map[string]any, caseOnly ...string) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("%s: case file %v, CLI %v", what, got != nil, want != nil)
	}
	extra := map[string]bool{}
	for _, k := range caseOnly {
		extra[k] = true
	}
	for k, v := range got {
		w, ok := want[k]
		switch {
		case !ok && !extra[k]:
			t.Errorf("%s: the case file writes %q, the CLI's --json does not", what, k)
		case ok:
			sameValue(t, what+"."+k, v, w)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: the CLI's --json writes %q, the case file does not", what, k)
		}
	}
}

func sameValue(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s differs:\ncase file %s\nCLI       %s", what, clipBytes(mustJSON(t, got)), clipBytes(mustJSON(t, want)))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func clipBytes(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}
