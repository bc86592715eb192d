package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// coverageOfScenario is verify --json's per-table coverage status.
func coverageOfScenario(t *testing.T, sdir string) map[string]string {
	t.Helper()
	_, out, errs := runIn(t, sdir, "verify", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--json")
	var rep struct {
		Coverage []struct {
			Table, Status string
		} `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Coverage) == 0 {
		t.Fatalf("verify --json: %v %s", err, errs)
	}
	m := map[string]string{}
	for _, c := range rep.Coverage {
		m[c.Table] = c.Status
	}
	return m
}

// coverageValues collects every "coverage" and "query_coverage" value in
// a JSON document, by the key's parent path kind.
func coverageValues(v any, out map[string]int) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && (k == "coverage" || k == "query_coverage") {
				out[s]++
			}
			coverageValues(val, out)
		}
	case []any:
		for _, e := range x {
			coverageValues(e, out)
		}
	}
}

// TestUnsignedLabelsFollowCoverage runs every command that shows query,
// action or node rows on a generated store, text and --json. Whether a
// label appears follows verify's coverage of the tables: when the table is
// not fully covered every row says "unsigned", and when it is covered no
// row does. Nothing unsigned is called verified.
func TestUnsignedLabelsFollowCoverage(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	cov := coverageOfScenario(t, sdir)
	ev := []string{"--log", "log", "--anchors", "scenario.json"}
	cases := []struct {
		args   []string
		tables []string // tables whose rows the output shows
		rows   string   // JSON path kind that must carry one label per row
	}{
		{[]string{"replay", "snapshot.db"}, []string{"queries", "nodes"}, ""},
		{[]string{"replay", "snapshot.db", "--query", "q-born-first"}, []string{"queries", "nodes", "actions"}, ""},
		{[]string{"actions", "snapshot.db"}, []string{"actions", "queries"}, ""},
		{[]string{"lineage", "snapshot.db"}, []string{"actions"}, ""},
		{[]string{"timeline", "snapshot.db"}, []string{"queries", "actions"}, ""},
		{[]string{"exposure", "snapshot.db", "--draws", "4", "--curve-draws", "1", "--curve-max", "2", "--selectors", "ppr"}, []string{"queries"}, ""},
	}
	for _, c := range cases {
		unsigned := false
		for _, tb := range c.tables {
			if cov[tb] == "unsigned" || cov[tb] == "partial" {
				unsigned = true
			}
		}
		args := append(append([]string{}, c.args...), ev...)
		code, text, errs := runIn(t, sdir, args...)
		if code == exitUsage {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if got := strings.Contains(text, "unsigned"); got != unsigned {
			t.Errorf("%v: text says unsigned %v, coverage of %v is %v\n%s", c.args, got, c.tables, cov, text)
		}
		_, js, errs := runIn(t, sdir, append(args, "--json")...)
		var doc any
		if err := json.Unmarshal([]byte(js), &doc); err != nil {
			t.Fatalf("%v --json: %v %s", c.args, err, errs)
		}
		labels := map[string]int{}
		coverageValues(doc, labels)
		if unsigned && labels["unsigned"] == 0 {
			t.Errorf("%v --json: no unsigned label while %v are not covered (%v)", c.args, c.tables, cov)
		}
		if !unsigned && len(labels) != 0 {
			t.Errorf("%v --json: labels %v on covered tables %v", c.args, labels, c.tables)
		}
		if labels["not checked"] != 0 {
			t.Errorf("%v --json: verification ran, yet rows say not checked", c.args)
		}
	}
	// The structural-write store as generated signs no query and no
	// action row today: the labels must be there.
	if cov["queries"] == "unsigned" {
		_, js, _ := runIn(t, sdir, append([]string{"replay", "snapshot.db", "--query", "q-born-first", "--json"}, ev...)...)
		var rows []struct {
			Coverage string `json:"coverage"`
			TopKG    []struct {
				Coverage string `json:"coverage"`
			} `json:"topk_g"`
			Actions []struct {
				Action        string `json:"action"`
				Coverage      string `json:"coverage"`
				QueryCoverage string `json:"query_coverage"`
			} `json:"actions"`
		}
		if err := json.Unmarshal([]byte(js), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("replay --query --json: %v", err)
		}
		if rows[0].Coverage != "unsigned" || len(rows[0].Actions) != 1 || rows[0].Actions[0].QueryCoverage != "unsigned" {
			t.Errorf("query row %+v", rows[0])
		}
		if cov["nodes"] == "unsigned" && (len(rows[0].TopKG) == 0 || rows[0].TopKG[0].Coverage != "unsigned") {
			t.Errorf("selected items carry no node coverage: %+v", rows[0].TopKG)
		}
	}
	// Without --log lineage did not verify: its action rows say so.
	_, js, _ := runIn(t, sdir, "lineage", "snapshot.db", "--json")
	labels := map[string]int{}
	var doc any
	json.Unmarshal([]byte(js), &doc)
	coverageValues(doc, labels)
	if labels["not checked"] == 0 || labels["unsigned"] != 0 {
		t.Errorf("lineage without --log: labels %v", labels)
	}
}

// A native store signs nothing: every node its replay shows is unsigned.
func TestNativeReplayLabelsUnsigned(t *testing.T) {
	store := filepath.Join(hippoFixtures, "poisoned")
	queries := filepath.Join(hippoFixtures, "queries.jsonl")
	_, out, errs := runCmd("replay", store, "--queries", queries, "--json")
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v %s", err, errs)
	}
	labels := map[string]int{}
	coverageValues(doc, labels)
	if labels["unsigned"] == 0 || len(labels) != 1 {
		t.Errorf("native replay labels %v", labels)
	}
	_, text, _ := runCmd("replay", store, "--queries", queries)
	if !strings.Contains(text, "nodes: unsigned") {
		t.Errorf("native replay text has no unsigned note:\n%s", text)
	}
}
