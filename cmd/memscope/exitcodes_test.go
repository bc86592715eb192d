package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
)

// severities collects every "severity" value in a JSON tree.
func severities(v any, into map[string]int) {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["severity"].(string); ok {
			into[s]++
		}
		for _, c := range x {
			severities(c, into)
		}
	case []any:
		for _, c := range x {
			severities(c, into)
		}
	}
}

// errorOf says whether finding code c has severity error in the catalogue.
func errorOf(t *testing.T, c finding.Code) bool {
	spec, ok := finding.Lookup(c)
	if !ok {
		t.Fatalf("no catalogue entry for %s", c)
	}
	return spec.Severity == finding.SevError
}

// wantFromJSON derives, from a command's --json answer alone, whether it
// reports an error: a finding of severity error anywhere in it, and what
// each command's rows mean in findings (replay's divergences, lineage's
// refused actions, actions' refusals, the report's verdict).
func wantFromJSON(t *testing.T, cmd string, out []byte) int {
	var tree any
	if err := json.Unmarshal(out, &tree); err != nil {
		t.Fatalf("%s --json: %v\n%s", cmd, err, out)
	}
	sev := map[string]int{}
	severities(tree, sev)
	bad := sev["error"] > 0
	switch cmd {
	case "lineage":
		if ra, _ := tree.(map[string]any)["refused_actions"].([]any); len(ra) > 0 {
			bad = bad || errorOf(t, finding.LineageGateViolation)
		}
	case "replay":
		rows, _ := tree.([]any)
		if m, ok := tree.(map[string]any); ok {
			rows, _ = m["rows"].([]any) // a native store's answer
		}
		for _, r := range rows {
			row := r.(map[string]any)
			if row["class"] == "DIVERGE" {
				c := finding.ReplayDiverge
				if row["ifc_blind"] == true {
					c = finding.ReplayIFCBlind
				}
				bad = bad || errorOf(t, c)
			}
			if row["recorded_mismatch"] == true {
				bad = bad || errorOf(t, finding.ReplayRecordedMismatch)
			}
		}
	case "actions":
		rows, _ := tree.([]any)
		for _, r := range rows {
			row := r.(map[string]any)
			vs, _ := row["verdicts"].(map[string]any)
			for name, v := range vs {
				d, _ := v.(map[string]any)["decision"].(string)
				refuses := d != defences.Allow && d != defences.Accept && d != defences.NotChecked && d != ""
				bad = bad || row["dispatched"] == true && name != defences.None && refuses
			}
		}
	}
	if bad {
		return exitFindings
	}
	return exitOK
}

// Every command on every demo scenario exits by the contract: 1 exactly
// when what it reports holds an error-severity finding (read back from its
// own --json, or for the report its verdict), 0 otherwise, and 1 when it
// warns that rows could not be read; timeline follows the verification it
// labels writes with. Then the usage errors: a --log that names nothing and
// --k 0 are exit 2 (issue 24, items 4 and 5).
func TestExitCodeContract(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on every scenario")
	}
	for _, spec := range scenario.Specs {
		sdir := filepath.Join(demoDir, spec.Name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		ev := append([]string{"snapshot.db", "--log", "log", "--anchors", "scenario.json"}, hmacArgs(m)...)
		verifyCode := -1
		for _, cmd := range []string{"verify", "lineage", "replay", "actions", "exposure", "timeline", "report"} {
			args := append([]string{cmd}, ev...)
			switch cmd {
			case "exposure":
				args = append(args, "--draws", "3", "--curve-draws", "0", "--selectors", "ppr")
			case "report":
				args = append(args, "--out", filepath.Join(t.TempDir(), "r.html"), "--json", filepath.Join(t.TempDir(), "r.json"))
			}
			if cmd != "report" {
				args = append(args, "--json")
			}
			code, out, errs := runIn(t, sdir, args...)
			var want int
			switch cmd {
			case "timeline":
				want = verifyCode
			case "report":
				want = exitOK
				if reportLevel(t, args) == "compromise-indicated" {
					want = exitFindings
				}
			default:
				want = wantFromJSON(t, cmd, []byte(out))
			}
			if strings.Contains(errs, "warning: not analysed") {
				want = exitFindings
			}
			if cmd == "verify" {
				verifyCode = code
			}
			if code != want {
				t.Errorf("%s: memscope %s exits %d, its findings say %d\n%s", spec.Name, cmd, code, want, errs)
			}
		}
	}
	// A native store: the poisoned HippoRAG 2 fixture.
	hippo, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "hipporag"))
	for _, args := range [][]string{
		{"verify", filepath.Join(hippo, "poisoned")},
		{"lineage", filepath.Join(hippo, "poisoned")},
		{"timeline", filepath.Join(hippo, "poisoned")},
		{"replay", filepath.Join(hippo, "poisoned"), "--queries", filepath.Join(hippo, "queries.jsonl")},
	} {
		code, out, errs := runIn(t, demoDir, append(args, "--json")...)
		if want := wantFromJSON(t, args[0], []byte(out)); code != want {
			t.Errorf("native: memscope %s exits %d, its findings say %d\n%s", args[0], code, want, errs)
		}
	}
	sdir := filepath.Join(demoDir, "structural-write")
	for _, args := range [][]string{
		{"verify", "snapshot.db", "--log", "nolog", "--anchors", "scenario.json"},
		{"replay", "snapshot.db", "--log", "nolog", "--anchors", "scenario.json"},
		{"timeline", "snapshot.db", "--log", "nolog"},
		{"replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--k", "0"},
		{"exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--k", "0"},
	} {
		if code, _, errs := runIn(t, sdir, args...); code != exitUsage || strings.Contains(errs, "LOG_UNREADABLE") {
			t.Errorf("memscope %s: exit %d, want %d (could not run)\n%s", strings.Join(args, " "), code, exitUsage, errs)
		}
	}
}

// hmacArgs is --hmac-key for a scenario that has a key.
func hmacArgs(m *evidence.Manifest) []string {
	if m.HMACKeyFile == "" {
		return nil
	}
	return []string{"--hmac-key", m.HMACKeyFile}
}

// reportLevel reads the verdict level of the JSON case file args wrote.
func reportLevel(t *testing.T, args []string) string {
	for i, a := range args {
		if a == "--json" && i+1 < len(args) {
			var c struct {
				Verdict struct {
					Level string `json:"level"`
				} `json:"verdict"`
			}
			b, err := os.ReadFile(args[i+1])
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			return c.Verdict.Level
		}
	}
	return ""
}

// Every CLI id argument takes the id forms the views print: a culprit
// write's tail (as the story lists it, :1681b) for --blast, a query's
// unique part for --as-of (issue 24, item 6).
func TestCLIIDArgumentsTakeEveryForm(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	ev := []string{"snapshot.db", "--log", "log", "--anchors", "scenario.json"}
	code, out, errs := runIn(t, sdir, append([]string{"replay", "--query", "q-born-first", "--json"}, ev...)...)
	if code == exitUsage {
		t.Fatalf("replay --query: %s", errs)
	}
	var rows []struct {
		Culprits []string `json:"culprits"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) == 0 || len(rows[0].Culprits) == 0 {
		t.Fatalf("no culprits in replay --query --json (%v)", err)
	}
	w := rows[0].Culprits[0]
	for _, form := range []string{w, w[len(w)-5:], w[:8] + "…" + w[len(w)-5:], w[:8] + "~" + w[len(w)-5:]} {
		if code, _, errs := runIn(t, sdir, append([]string{"replay", "--blast", form}, ev...)...); code == exitUsage {
			t.Errorf("replay --blast %s: %s", form, errs)
		}
		if code, _, errs := runIn(t, sdir, append([]string{"replay", "--without", form}, ev...)...); code == exitUsage {
			t.Errorf("replay --without %s: %s", form, errs)
		}
	}
	for _, form := range []string{"q-born-first", "born-first", "q-born"} {
		if code, _, errs := runIn(t, sdir, append([]string{"replay", "--as-of", form}, ev...)...); code == exitUsage {
			t.Errorf("replay --as-of %s: %s", form, errs)
		}
		if code, _, errs := runIn(t, sdir, append([]string{"replay", "--query", form}, ev...)...); code == exitUsage {
			t.Errorf("replay --query %s: %s", form, errs)
		}
	}
}

// TestErrorNamesTheCommandOnce: an error from a package that names itself
// as the command ("report: ...") is printed as "memscope report: ...".
func TestErrorNamesTheCommandOnce(t *testing.T) {
	sdir := filepath.Join(demoDir, "clean")
	existing := filepath.Join(t.TempDir(), "r.html")
	if err := os.WriteFile(existing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--out", existing},
		{"record", "--store", filepath.Join(t.TempDir(), "none"), "--", "true"},
	} {
		code, _, errs := runIn(t, sdir, args...)
		if code != exitUsage || !strings.HasPrefix(errs, "memscope "+args[0]+": ") || strings.Contains(errs, args[0]+": "+args[0]+": ") {
			t.Errorf("memscope %s: exit %d, stderr %q: want exit %d and the command named once", strings.Join(args, " "), code, errs, exitUsage)
		}
	}
}
