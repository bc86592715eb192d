package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/evidencetest"
	_ "modernc.org/sqlite"
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
	labelsFollowCoverage(t, sdir)
	// The same store with the action rows' signatures stripped (as an
	// older store or an import has them): the actions table is unsigned
	// whatever the generator signs, and every output says so.
	stripped := strippedCopy(t, sdir, "actions")
	if cov := labelsFollowCoverage(t, stripped); cov["actions"] != "unsigned" {
		t.Errorf("stripped actions table: coverage %q", cov["actions"])
	}
}

// strippedCopy copies a generated scenario and removes the signed record
// (and log position) of every row of table, where the store has them.
func strippedCopy(t *testing.T, src, table string) string {
	t.Helper()
	dst := evidencetest.CopyTree(t, src)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dst, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		t.Fatal(err)
	}
	cols := map[string]bool{}
	for rows.Next() {
		var c string
		rows.Scan(&c)
		cols[c] = true
	}
	rows.Close()
	if cols["record"] {
		if _, err := db.Exec("UPDATE " + table + " SET record = NULL, leaf_index = NULL"); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// labelsFollowCoverage runs the commands on one scenario directory and
// returns verify's coverage of it.
func labelsFollowCoverage(t *testing.T, sdir string) map[string]string {
	t.Helper()
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
	return cov
}

// The generated store's details: the query view with the action that
// followed it, and lineage without verification.
func TestUnsignedLabelsInQueryView(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	cov := coverageOfScenario(t, sdir)
	ev := []string{"--log", "log", "--anchors", "scenario.json"}
	// replay --query lists the action that followed the query with every
	// defence's verdict; each row's label follows coverage.
	_, js, errs := runIn(t, sdir, append([]string{"replay", "snapshot.db", "--query", "q-born-first", "--json"}, ev...)...)
	var rows []struct {
		Coverage string `json:"coverage"`
		TopKG    []struct {
			Coverage string `json:"coverage"`
		} `json:"topk_g"`
		Actions []struct {
			Action        string `json:"action"`
			Headline      bool   `json:"headline"`
			Coverage      string `json:"coverage"`
			QueryCoverage string `json:"query_coverage"`
			Verdicts      map[string]struct {
				Decision string `json:"decision"`
			} `json:"verdicts"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(js), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("replay --query --json: %v %s", err, errs)
	}
	label := func(table string) string {
		if cov[table] == "unsigned" || cov[table] == "partial" {
			return "unsigned"
		}
		return ""
	}
	r := rows[0]
	if r.Coverage != label("queries") || len(r.Actions) != 1 {
		t.Fatalf("query row %+v, coverage %v", r, cov)
	}
	a := r.Actions[0]
	if a.Action != "act-pay-fowler" || !a.Headline || a.QueryCoverage != label("queries") || a.Coverage != label("actions") {
		t.Errorf("following action %+v", a)
	}
	if a.Verdicts["ifc"].Decision != "allow" || a.Verdicts["authselect"].Decision != "substitute" || len(a.Verdicts) != 5 {
		t.Errorf("following action's verdicts %+v", a.Verdicts)
	}
	if len(r.TopKG) == 0 || r.TopKG[0].Coverage != label("nodes") {
		t.Errorf("selected items' node coverage %+v, coverage %v", r.TopKG, cov)
	}
	_, text, _ := runIn(t, sdir, append([]string{"replay", "snapshot.db", "--query", "q-born-first"}, ev...)...)
	if !strings.Contains(text, "actions that followed this query's selection: 1") || !strings.Contains(text, "act-pay-fowler") {
		t.Errorf("replay --query text lacks the following action:\n%s", text)
	}
	// Without --log lineage did not verify: its action rows say so.
	_, js, _ = runIn(t, sdir, "lineage", "snapshot.db", "--json")
	labels := map[string]int{}
	var doc any
	json.Unmarshal([]byte(js), &doc)
	coverageValues(doc, labels)
	if labels["not checked"] == 0 || labels["unsigned"] != 0 {
		t.Errorf("lineage without --log: labels %v", labels)
	}
}

// A native store signs nothing: every node its replay shows is unsigned,
// and the queries, read from the user's file, say so (never "signed").
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
	if labels["unsigned"] == 0 || labels[assemble.LabelUserInput] == 0 || len(labels) != 2 {
		t.Errorf("native replay labels %v", labels)
	}
	_, text, _ := runCmd("replay", store, "--queries", queries)
	if !strings.Contains(text, "nodes: unsigned") || !strings.Contains(text, "queries: read from your --queries file") {
		t.Errorf("native replay text has no unsigned or user-input note:\n%s", text)
	}
	if strings.Contains(text, " signed ") {
		t.Errorf("native replay calls a row signed:\n%s", text)
	}
}
