package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"

	"github.com/memscope/memscope/internal/evidencetest"
)

var demoDir string

func TestMain(m *testing.M) {
	// Every demo scenario (what `memscope demo` writes, seed 1), from the
	// scenario cache shared with the other packages' tests; tests that
	// edit evidence copy it first. TestDemoWritesTheCachedScenarios checks
	// the command writes the same.
	dir, err := scenariocache.Path(1)
	if err != nil {
		panic(err)
	}
	demoDir = dir
	os.Exit(m.Run())
}

func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// Every scenario's verify_args, run from its directory, give exit status 0
// exactly when no error is expected, and the --json object has the
// documented keys and the expected codes.
func TestVerifyScenariosJSON(t *testing.T) {
	for _, spec := range scenario.Specs {
		sdir := filepath.Join(demoDir, spec.Name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		code, out, errs := runIn(t, sdir, append([]string{"verify", "--json"}, m.VerifyArgs...)...)
		wantCode := exitOK
		for _, c := range m.ExpectedFindings {
			if c != "SOURCE_MISSING" && c != "TABLE_UNSIGNED" { // the warning-only codes
				wantCode = exitFindings
			}
		}
		if code != wantCode {
			t.Errorf("%s: exit %d, want %d (%s)", spec.Name, code, wantCode, errs)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatalf("%s: --json output: %v", spec.Name, err)
		}
		for _, k := range []string{"snapshot", "log", "tree_size", "root_hash", "records", "entries", "edges", "anchors", "findings", "ok"} {
			if _, ok := obj[k]; !ok {
				t.Errorf("%s: --json lacks %q", spec.Name, k)
			}
		}
		// The manifest's anchor files lie in the scenario directory, beside
		// the evidence: pinned, but from files the evidence could have
		// supplied (issue 23 item 10).
		var anchors map[string]string
		json.Unmarshal(obj["anchors"], &anchors)
		if anchors["log_key"] != verify.PinnedFromEvidence || anchors["registry"] != verify.PinnedFromEvidence {
			t.Errorf("%s: anchors %v with pinned files inside the evidence", spec.Name, anchors)
		}
		var findings []map[string]string
		json.Unmarshal(obj["findings"], &findings)
		codes := map[string]bool{}
		for _, f := range findings {
			for _, k := range []string{"severity", "code", "subject", "message"} {
				if f[k] == "" {
					t.Errorf("%s: finding without %s: %v", spec.Name, k, f)
				}
			}
			codes[f["code"]] = true
		}
		if !codes["ANCHOR_FROM_EVIDENCE"] {
			t.Errorf("%s: no ANCHOR_FROM_EVIDENCE for anchors read from the scenario directory", spec.Name)
		}
		delete(codes, "ANCHOR_FROM_EVIDENCE")
		if len(codes) != len(m.ExpectedFindings) {
			t.Errorf("%s: codes %v, want %v", spec.Name, codes, m.ExpectedFindings)
		}
	}
}

func TestVerifyUnanchoredAndBadInput(t *testing.T) {
	sdir := filepath.Join(demoDir, "clean")
	code, out, _ := runIn(t, sdir, "verify", "snapshot.db", "--log", "log")
	if code != exitOK || !strings.Contains(out, "log key unanchored, registry unanchored") {
		t.Errorf("unanchored run: exit %d\n%s", code, out)
	}
	cases := map[string][]string{
		"missing --log":   {"verify", "snapshot.db"},
		"missing file":    {"verify", "nope.db", "--log", "log"},
		"not a snapshot":  {"verify", "scenario.json", "--log", "log"},
		"bad log key":     {"verify", "snapshot.db", "--log", "log", "--log-key", "not-a-key"},
		"bad trust key":   {"verify", "snapshot.db", "--log", "log", "--trust", "abcd"},
		"unknown command": {"frobnicate"},
	}
	for name, args := range cases {
		code, _, errs := runIn(t, sdir, args...)
		if code != exitUsage || errs == "" || strings.Contains(errs, "goroutine") {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
	}
	_, _, errs := runIn(t, sdir, "verify", "nope.db", "--log", "log")
	if !strings.Contains(errs, "nope.db") {
		t.Errorf("error does not name the file: %q", errs)
	}
	// A readable --trust file that holds no key is said to be one (it
	// was called "not a readable file").
	keys := filepath.Join(t.TempDir(), "trust.keys")
	if err := os.WriteFile(keys, []byte("hi\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runIn(t, sdir, "verify", "snapshot.db", "--log", "log", "--trust", keys)
	if code != exitUsage || !strings.Contains(errs, "--trust "+keys+": the file holds \"hi\"") || strings.Contains(errs, "not a readable file") {
		t.Errorf("--trust file without a key: exit %d, stderr %q", code, errs)
	}
}

func TestLineageJSON(t *testing.T) {
	sdir := filepath.Join(demoDir, "memorygraft")
	anchors := []string{"--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	// Without the log the labels are unverified: the structure, and "not
	// checked" where a verdict would be (issue 23, item 7).
	code, out, errs := runIn(t, sdir, "lineage", "snapshot.db", "--json")
	if code != exitOK || !strings.Contains(out, `"verdicts": "not checked"`) || strings.Contains(out, `"verdict": "deny"`) || strings.Contains(out, `"verdict": "allow"`) {
		t.Errorf("unverified lineage: exit %d %s\n%s", code, errs, out)
	}
	code, out, _ = runIn(t, sdir, "lineage", "snapshot.db")
	if code != exitOK || !strings.Contains(out, "laundering (recorded trust safer than lineage gives): not checked") || strings.Contains(out, "allow") || strings.Contains(out, "should have been refused") {
		t.Errorf("unverified lineage text: exit %d\n%s", code, out)
	}
	code, out, errs = runIn(t, sdir, append([]string{"lineage", "snapshot.db", "--json"}, anchors...)...)
	// Laundering and a refused dispatched action are critical: exit 1.
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runIn(t, filepath.Join(demoDir, "clean"), append([]string{"lineage", "snapshot.db", "--json"}, anchors...)...); code != exitOK {
		t.Errorf("clean store: lineage exit %d: %s", code, errs)
	}
	var sum struct {
		Laundering []struct {
			Entry, Recorded, Recomputed string
		} `json:"laundering"`
		RefusedActions []struct {
			Action, Verdict string
			Reasons         []string
		} `json:"refused_actions"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Laundering) != 2 || sum.Laundering[0].Recomputed != "Derived-Untrusted" {
		t.Errorf("laundering %+v", sum.Laundering)
	}
	if len(sum.RefusedActions) != 1 || sum.RefusedActions[0].Action != "act-pay-7731" || len(sum.RefusedActions[0].Reasons) == 0 {
		t.Errorf("refused actions %+v", sum.RefusedActions)
	}
	// One entry: text drawing, DOT, and the explanation.
	entry := sum.Laundering[1].Entry
	code, out, _ = runIn(t, sdir, "lineage", "snapshot.db", entry)
	if code != exitOK || !strings.Contains(out, "External ancestors: 1") {
		t.Errorf("entry view: exit %d\n%s", code, out)
	}
	// The entry's session, with verify's label: "not checked" without the
	// log, none when verification covers it (the session is signed in the
	// entry record).
	if !regexp.MustCompile(`(?m)^session session-\d+ \[not checked\]$`).MatchString(out) {
		t.Errorf("entry view without --log: no labelled session\n%s", out)
	}
	// Verified, the laundered entry is an error finding: exit 1, as the
	// store-wide summary exits (one exit-code contract).
	code, out, errs = runIn(t, sdir, append([]string{"lineage", "snapshot.db", entry}, anchors...)...)
	if code != exitFindings || !regexp.MustCompile(`(?m)^session session-\d+$`).MatchString(out) {
		t.Errorf("entry view verified: exit %d %s\n%s", code, errs, out)
	}
	code, out, _ = runIn(t, sdir, append([]string{"lineage", "snapshot.db", entry, "--json"}, anchors...)...)
	var ev struct {
		Session         *string `json:"session"`
		SessionCoverage *string `json:"session_coverage"`
	}
	if err := json.Unmarshal([]byte(out), &ev); code != exitFindings || err != nil || ev.Session == nil || *ev.Session == "" || ev.SessionCoverage == nil || *ev.SessionCoverage != "" {
		t.Errorf("entry JSON: exit %d, %v, %+v", code, err, ev)
	}
	code, out, _ = runIn(t, sdir, "lineage", "snapshot.db", entry, "--dot")
	if code != exitOK || !strings.HasPrefix(out, "digraph") {
		t.Errorf("--dot: exit %d\n%s", code, out)
	}
	code, _, errs = runIn(t, sdir, "lineage", "snapshot.db", "no-such-entry")
	if code != exitUsage || !strings.Contains(errs, "no-such-entry") {
		t.Errorf("unknown entry: exit %d, %q", code, errs)
	}
}

func TestSweepJSON(t *testing.T) {
	// A store with no sleeper chain sweeps nothing, which is an answer
	// (exit 0), not a failure to run (it exited 2).
	clean := filepath.Join(demoDir, "clean")
	if code, out, errs := runIn(t, clean, "lineage", "sweep", "snapshot.db"); code != exitOK || !strings.Contains(out, "no sleeper chains in snapshot.db") {
		t.Errorf("sweep of a store without sleeper chains: exit %d %s\n%s", code, errs, out)
	}
	if code, out, _ := runIn(t, clean, "lineage", "sweep", "snapshot.db", "--json"); code != exitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("sweep --json of a store without sleeper chains: exit %d\n%s", code, out)
	}
	code, out, errs := runIn(t, filepath.Join(demoDir, "sleeper"), "lineage", "sweep", "snapshot.db", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 56 {
		t.Fatalf("%d rows, want 56", len(rows))
	}
	for _, k := range []string{"schedule", "tau", "k", "propagated"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("sweep row lacks %q: %v", k, rows[0])
		}
	}
}

func TestReplayJSON(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	m, _ := evidence.ReadManifest(sdir)
	code, out, errs := runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--query", m.Attack.Query, "--json")
	// A diverging row is an error-severity result: exit 1, as verify.
	if code != exitFindings {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []struct {
		Query string `json:"query"`
		TopKG []struct {
			Node  string  `json:"node"`
			Score float64 `json:"score"`
			Rank  int     `json:"rank"`
		} `json:"topk_g"`
		TopKAuth []map[string]any `json:"topk_auth"`
		Class    string           `json:"class"`
		IFCBlind bool             `json:"ifc_blind"`
		Tie      *bool            `json:"tie"`
		Culprits []string         `json:"culprits"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Class != "DIVERGE" || !rows[0].IFCBlind || rows[0].Tie == nil {
		t.Fatalf("rows %+v", rows)
	}
	// --query runs the eviction probe: every target selected on G has a
	// margin and a probe result.
	var lemma []struct {
		Node     string           `json:"node"`
		RankG    int              `json:"rank_g"`
		Margin   *float64         `json:"margin"`
		Eviction *json.RawMessage `json:"eviction"`
	}
	var raw []map[string]json.RawMessage
	json.Unmarshal([]byte(out), &raw)
	json.Unmarshal(raw[0]["lemma1"], &lemma)
	selected := 0
	for _, l := range lemma {
		if l.RankG > 0 {
			selected++
			if l.Margin == nil || *l.Margin < 0 || l.Eviction == nil {
				t.Errorf("selected target %s: margin %v, eviction %v", l.Node, l.Margin, l.Eviction)
			}
		}
	}
	if selected != 5 {
		t.Errorf("%d Lemma 1 targets selected on G, want 5", selected)
	}
	if len(rows[0].TopKG) != 5 || rows[0].TopKG[0].Rank != 1 || len(rows[0].TopKAuth) != 5 {
		t.Errorf("top-k lists %+v", rows[0])
	}
	if strings.Join(rows[0].Culprits, ",") != strings.Join(m.Attack.Edges, ",") {
		t.Errorf("culprits %v, manifest attack edges %v", rows[0].Culprits, m.Attack.Edges)
	}
	// Removing the culprits restores the G_auth selection.
	code, out, _ = runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--query", m.Attack.Query,
		"--without", strings.Join(m.Attack.Edges, ","), "--json")
	if code != exitFindings || !strings.Contains(out, `"class_vs_auth": "SAME"`) {
		t.Errorf("what-if without the culprits: exit %d\n%s", code, out)
	}
}

func TestReplayLabelsAndRestore(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	m, _ := evidence.ReadManifest(sdir)
	labels := replayLabels(t, sdir)
	var unauth []string
	for _, l := range labels {
		if l.Rule == "" {
			t.Errorf("edge %s has no deciding rule", l.Edge)
		}
		if !l.Authenticated {
			unauth = append(unauth, l.Edge)
		}
	}
	if strings.Join(unauth, ",") != strings.Join(m.Attack.Edges, ",") {
		t.Errorf("unauthenticated edges %v, want exactly the injected %v", unauth, m.Attack.Edges)
	}
	// Restoring every injected edge into G_auth gives G's selection back.
	code, out, _ := runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--query", m.Attack.Query,
		"--restore", strings.Join(m.Attack.Edges, ","), "--json")
	if code != exitFindings || !strings.Contains(out, `"class_vs_g": "SAME"`) {
		t.Errorf("restore all injected edges: exit %d\n%s", code, out)
	}
}

// The log can be read over HTTP as well as from a directory.
func TestVerifyOverHTTP(t *testing.T) {
	sdir := filepath.Join(demoDir, "clean")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(sdir, "log"))))
	defer srv.Close()
	code, out, errs := runIn(t, sdir, "verify", "snapshot.db", "--log", srv.URL+"/", "--anchors", "scenario.json")
	if code != exitOK || !strings.Contains(out, "result: PASS") {
		t.Errorf("verify over HTTP: exit %d\n%s\n%s", code, out, errs)
	}
}

// Every scenario's actions reach the verdicts its manifest expects, and on
// structural-write act-pay-fowler is the headline: IFC allows it, AuthSelect
// substitutes, and the row names the query it followed.
func TestActionsScenariosJSON(t *testing.T) {
	for _, spec := range scenario.Specs {
		sdir := filepath.Join(demoDir, spec.Name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"actions", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--json"}
		if m.HMACKeyFile != "" {
			args = append(args, "--hmac-key", m.HMACKeyFile)
		}
		code, out, errs := runIn(t, sdir, args...)
		if code == exitUsage {
			t.Fatalf("%s: exit %d: %s", spec.Name, code, errs)
		}
		var rows []struct {
			Action   string `json:"action"`
			Query    string `json:"query"`
			Headline bool   `json:"headline"`
			Verdicts map[string]struct {
				Decision string `json:"decision"`
				Reason   string `json:"reason"`
			} `json:"verdicts"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("%s: %v\n%s", spec.Name, err, out)
		}
		if len(rows) != len(m.ExpectedActions) {
			t.Errorf("%s: %d actions, manifest expects %d", spec.Name, len(rows), len(m.ExpectedActions))
		}
		for _, r := range rows {
			want := m.ExpectedActions[r.Action]
			for _, d := range []string{"none", "ifc", "memlineage", "authselect", "smsr"} {
				v, ok := r.Verdicts[d]
				if !ok || v.Reason == "" {
					t.Errorf("%s/%s: no %s verdict with a reason", spec.Name, r.Action, d)
				}
				if v.Decision != want[d] {
					t.Errorf("%s/%s: %s says %s (%s), manifest expects %s", spec.Name, r.Action, d, v.Decision, v.Reason, want[d])
				}
			}
			if spec.Name == "structural-write" && r.Action == "act-pay-fowler" && (!r.Headline || r.Query != scenario.AttackedQuery) {
				t.Errorf("act-pay-fowler: headline %v, query %q", r.Headline, r.Query)
			}
		}
	}
}

// Closure min-inheritance on a generated store: the peer's sourced edges
// cite an External entry, so they and only they are unauthenticated, each
// label naming the source that decided it, and they are the culprits.
func TestPeerCitingExternalIsUnauthenticated(t *testing.T) {
	sdir := filepath.Join(demoDir, "peer-cites-external")
	m, _ := evidence.ReadManifest(sdir)
	labels := replayLabels(t, sdir)
	var unauth []string
	for _, l := range labels {
		if !l.Authenticated {
			unauth = append(unauth, l.Edge)
			if l.Sources == 0 || !strings.HasPrefix(l.Rule, "source untrusted: ") || !strings.Contains(l.Rule, "External") {
				t.Errorf("edge %s: %d sources, rule %q", l.Edge, l.Sources, l.Rule)
			}
		}
	}
	if strings.Join(unauth, ",") != strings.Join(m.Attack.Edges, ",") {
		t.Errorf("unauthenticated %v, want the peer's %v", unauth, m.Attack.Edges)
	}
	_, out, _ := runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--query", m.Attack.Query, "--json")
	if !strings.Contains(out, `"class": "DIVERGE"`) || !strings.Contains(out, m.Attack.Edges[0]) {
		t.Errorf("attacked query does not diverge on the peer's edges:\n%s", out)
	}
}

// The CLI never changes the evidence it reads: memscope verify, with and
// without --json, leaves every file of the scenario directories it ran on
// with the same bytes (no -journal, -wal or -shm appears), and exits 1
// exactly when an error-severity finding is expected. (Moved here from the
// loader's tests, which built the binary for it.)
func TestVerifyNeverChangesEvidence(t *testing.T) {
	names := []string{"clean", "tampered", "tombstone", "smsr"}
	before := map[string]map[string]string{}
	for _, name := range names {
		before[name] = evidencetest.HashTree(t, filepath.Join(demoDir, name))
	}
	for _, name := range names {
		sdir := filepath.Join(demoDir, name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		wantCode := exitOK
		for _, c := range m.ExpectedFindings {
			if spec, ok := finding.Lookup(finding.Code(c)); ok && spec.Severity == finding.SevError {
				wantCode = exitFindings
			}
		}
		for _, extra := range [][]string{nil, {"--json"}} {
			code, _, errs := runIn(t, sdir, append(append([]string{"verify"}, m.VerifyArgs...), extra...)...)
			if code != wantCode {
				t.Errorf("%s: memscope verify %v exited %d, want %d\n%s", name, extra, code, wantCode, errs)
			}
		}
	}
	for _, name := range names {
		after := evidencetest.HashTree(t, filepath.Join(demoDir, name))
		for f, h := range after {
			if b, ok := before[name][f]; !ok {
				t.Errorf("%s: new file %s appeared", name, f)
			} else if b != h {
				t.Errorf("%s: %s changed", name, f)
			}
		}
		for f := range before[name] {
			if _, ok := after[f]; !ok {
				t.Errorf("%s: %s disappeared", name, f)
			}
		}
	}
}

// edgeLabel is one row of `replay --labels --json`.
type edgeLabel struct {
	Edge          string `json:"edge"`
	Authenticated bool   `json:"authenticated"`
	Rule          string `json:"rule"`
	Sources       int    `json:"sources"`
}

// replayLabels runs `replay --labels --json` on a generated scenario and
// decodes its rows; the command must exit 0.
func replayLabels(t *testing.T, sdir string) []edgeLabel {
	t.Helper()
	code, out, errs := runIn(t, sdir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--labels", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var labels []edgeLabel
	if err := json.Unmarshal([]byte(out), &labels); err != nil {
		t.Fatal(err)
	}
	return labels
}

// memscope demo writes, byte for byte, the scenarios the tests read from
// the cache.
func TestDemoWritesTheCachedScenarios(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo")
	if code, _, errs := runIn(t, demoDir, "demo", "--out", out, "--scenario", "clean,tampered"); code != exitOK {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	for _, name := range []string{"clean", "tampered"} {
		got, want := evidencetest.HashTree(t, filepath.Join(out, name)), evidencetest.HashTree(t, filepath.Join(demoDir, name))
		if len(got) != len(want) {
			t.Fatalf("%s: demo wrote %d files, the cache holds %d", name, len(got), len(want))
		}
		for f, h := range want {
			if got[f] != h {
				t.Errorf("%s/%s differs from the cache's", name, f)
			}
		}
	}
}
