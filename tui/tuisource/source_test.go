package tuisource

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

func openScenario(t *testing.T, name string) (*Source, *evidence.Manifest) {
	t.Helper()
	return openScenarioWith(t, name, nil)
}

// openScenarioWith opens the generated scenario name (shared, read-only) with its anchors;
// edit, when set, changes the options first.
func openScenarioWith(t *testing.T, name string, edit func(*assemble.Options)) (*Source, *evidence.Manifest) {
	t.Helper()
	sdir, m := scenariocache.Scenario(t, 3, name)
	roots := evidencetest.Roots(t, m)
	opts := assemble.Options{Snapshot: filepath.Join(sdir, m.Snapshot), Log: filepath.Join(sdir, m.Log), LogKey: m.Anchors.LogKey, TrustRoots: roots}
	opts.HMACKey = evidencetest.HMACKey(t, sdir, m)
	if edit != nil {
		edit(&opts)
	}
	src, err := New(context.Background(), opts, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, m
}

func finish(t *testing.T, src *Source) tui.Progress {
	t.Helper()
	var last tui.Progress
	for p := range src.Verify(context.Background()) {
		last = p
	}
	if !last.Finished || last.Err != nil {
		t.Fatalf("verification did not finish: %+v", last)
	}
	return last
}

// The inspector sees every verify finding of the tampered store, with
// entry subjects it can jump to, and rows turn FAIL where verify failed.
func TestTamperedFindingsReachTheInspector(t *testing.T) {
	src, m := openScenario(t, "tampered")
	p := finish(t, src)
	codes := map[string]bool{}
	for _, f := range p.Findings {
		codes[string(f.Code)] = true
		if strings.HasPrefix(f.Subject, "entry ") {
			t.Errorf("subject %q is not a bare entry id", f.Subject)
		}
	}
	for _, c := range m.ExpectedFindings {
		if !codes[c] {
			t.Errorf("inspector lacks %s", c)
		}
	}
	requireFailedRow(t, src)
	if cps := src.Checkpoints(); !slices.ContainsFunc(cps, func(c tui.CheckpointRow) bool { return c.Consistent == tui.Failed }) {
		t.Errorf("no checkpoint marked inconsistent: %+v", cps)
	}
}

func TestDetailLineageReplayWhatIf(t *testing.T) {
	src, m := openScenario(t, "structural-write")
	finish(t, src)
	ctx := context.Background()
	d, err := src.EntryDetail(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Signature != tui.OK || d.Inclusion == nil || !d.Inclusion.Verified || len(d.Inclusion.Steps) == 0 {
		t.Fatalf("entry 0: signature %v, inclusion %+v", d.Signature, d.Inclusion)
	}
	if len(d.SignedBytes) == 0 || len(d.Fields) != 14 {
		t.Errorf("entry 0: %d signed bytes, %d fields", len(d.SignedBytes), len(d.Fields))
	}
	lv, err := src.Lineage(ctx, src.Entry(src.EntryCount()-1).ID, 0)
	if err != nil || len(lv.Rows) == 0 || lv.RowIDs[lv.Center] != lv.ID {
		t.Fatalf("lineage view: %+v, %v", lv, err)
	}
	rv, err := src.Replay(ctx)
	if err != nil {
		t.Fatal(err)
	}
	edges := rv.Unauthenticated[m.Attack.Query]
	if len(edges) < 2 || !edges[0].NoSource {
		t.Fatalf("what-if edges for %s: %+v", m.Attack.Query, edges)
	}
	w, err := src.WhatIf(ctx, m.Attack.Query, m.Attack.Edges)
	if err != nil {
		t.Fatal(err)
	}
	if w.VsGAuth.Class != diff.Same {
		t.Errorf("removing the culprits gives %s against G_auth, want SAME", w.VsGAuth.Class)
	}
}

// Big stores load in the background: rows published so far are readable
// while loading goes on (run with -race to check the publication).
func TestBackgroundLoading(t *testing.T) {
	old := syncLoadLimit
	syncLoadLimit = 0
	defer func() { syncLoadLimit = old }()
	src, _ := openScenario(t, "sleeper")
	// Open's estimate (the seq bounds, no count of the rows) is exact on a
	// store the writer made.
	total := src.Session().EntryTotal()
	seen := 0
	for src.EntryCount() < total {
		if n := src.EntryCount(); n > 0 {
			r := src.Entry(n - 1)
			if r.ID == "" {
				t.Fatalf("row %d published without an id", n-1)
			}
			seen = n
		}
		_ = src.Overview()
		_ = src.Leaf(0)
	}
	if err := src.WaitLoaded(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := finish(t, src)
	if src.EntryCount() != total || p.Err != nil {
		t.Fatalf("loaded %d of %d (seen %d while loading)", src.EntryCount(), total, seen)
	}
	if _, ok := src.EntryIndex(src.Entry(total - 1).ID); !ok {
		t.Error("the last entry cannot be found by id after loading")
	}
}

// The inspector's final list holds verify's findings exactly once each,
// the same as memscope verify reports for the same evidence and anchors:
// the unanchored warnings are not re-created next to verify's.
func TestInspectorShowsVerifyFindingsOnce(t *testing.T) {
	t.Parallel()
	src, _ := openScenarioWith(t, "tampered", func(o *assemble.Options) { o.LogKey, o.TrustRoots = "", nil })
	for _, f := range src.Findings() {
		if f.Family != finding.FamEncoding {
			t.Errorf("open-time finding %s re-creates what verify reports", f.Code)
		}
	}
	p := finish(t, src)
	sameFindingsAsVerify(t, src, p)
	unanchoredOnce(t, p)
}

// unanchoredOnce requires each unanchored warning exactly once.
func unanchoredOnce(t *testing.T, p tui.Progress) {
	t.Helper()
	for _, c := range []finding.Code{finding.CheckpointUnanchored, finding.RegistryRootUnanchored} {
		n := 0
		for _, f := range p.Findings {
			if f.Code == c {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s listed %d times", c, n)
		}
	}
}

// sameFindingsAsVerify requires the inspector's final list to hold
// verify's findings for the same evidence and anchors, each exactly once.
func sameFindingsAsVerify(t *testing.T, src *Source, p tui.Progress) {
	t.Helper()
	opts := src.Session().Opts
	rep, err := verify.Run(context.Background(), verify.Options{Snapshot: opts.Snapshot, Log: opts.Log, LogKey: opts.LogKey, TrustRoots: opts.TrustRoots, HMACKey: opts.HMACKey})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ code, subject, message string }
	want := map[key]int{}
	for _, f := range rep.Findings {
		want[key{string(f.Code), jumpSubject(f.Subject), f.Message}]++
	}
	got := map[key]int{}
	fams := map[finding.Family]int{}
	for _, f := range p.Findings {
		if slices.Contains(verify.Families, f.Family) {
			got[key{string(f.Code), f.Subject, f.Message}]++
			fams[f.Family]++
		}
	}
	if len(rep.Findings) == 0 {
		t.Fatal("the tampered store verified clean")
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("verify reports %v %d time(s), the inspector %d", k, n, got[k])
		}
	}
	for k, n := range got {
		if want[k] == 0 {
			t.Errorf("the inspector lists %v %d time(s), verify never", k, n)
		}
	}
	for fam, n := range rep.Families {
		if fams[fam] != n {
			t.Errorf("family %s: inspector %d, verify %d", fam, fams[fam], n)
		}
	}
}

// A store loaded in the background verifies as it loads when Verify is
// asked for before the load starts (the inspector asks at once): one read
// of the rows feeds both, and the findings are still verify's, each once,
// and the rows' status is set.
func TestVerifyAsItLoadsGivesVerifysFindings(t *testing.T) {
	old := syncLoadLimit
	syncLoadLimit = 0
	defer func() { syncLoadLimit = old }()
	for _, anchored := range []bool{false, true} {
		src, _ := openScenarioWith(t, "tampered", func(o *assemble.Options) {
			if !anchored {
				o.LogKey, o.TrustRoots = "", nil
			}
		})
		ch := src.Verify(context.Background())
		src.Shown()
		var p tui.Progress
		for p = range ch {
		}
		if !p.Finished || p.Err != nil {
			t.Fatalf("verification did not finish: %+v", p)
		}
		if src.checked.Load() == 0 {
			t.Fatal("the load did not ride on verification (no verification progress from it)")
		}
		sameFindingsAsVerify(t, src, p)
		if !anchored {
			unanchoredOnce(t, p)
		}
		requireFailedRow(t, src)
	}
}

// requireFailedRow requires some entry row to show a failed verification.
func requireFailedRow(t *testing.T, src *Source) {
	t.Helper()
	for i := 0; i < src.EntryCount(); i++ {
		if src.Entry(i).Status == tui.Failed {
			return
		}
	}
	t.Error("no entry row shows a failed verification")
}

// The inspector's root-cause groups are assemble.GroupFindings' and name
// every finding once; the tampered tile explains inclusion failures.
func TestRootCausesCoverEveryFindingOnce(t *testing.T) {
	src, _ := openScenario(t, "tampered")
	p := finish(t, src)
	groups := src.RootCauses(p.Findings)
	seen := map[int]bool{}
	tile := false
	for _, g := range groups {
		for _, i := range g.Members {
			if seen[i] || i < 0 || i >= len(p.Findings) {
				t.Fatalf("finding %d listed twice or out of range", i)
			}
			seen[i] = true
		}
		if g.HasCause && p.Findings[g.Members[0]].Code == finding.TileMismatch && len(g.Members) > 1 {
			tile = true
			for _, i := range g.Members[1:] {
				if p.Findings[i].Code != finding.InclusionFailed {
					t.Errorf("tile group holds %s", p.Findings[i].Code)
				}
			}
		}
	}
	if len(seen) != len(p.Findings) {
		t.Errorf("%d of %d findings grouped", len(seen), len(p.Findings))
	}
	if !tile {
		// verify reports the altered tile once (its first leaf named in
		// the message); inclusion failures it explains, when it reports
		// any, are folded under it.
		for _, g := range groups {
			tile = tile || g.HasCause && p.Findings[g.Members[0]].Code == finding.TileMismatch
		}
	}
	if !tile {
		t.Error("no TILE_MISMATCH root-cause group")
	}
}

// Close stops a background load, waits for it and releases the snapshot;
// a second Close is harmless. Run with -race.
func TestCloseWhileLoading(t *testing.T) {
	old := syncLoadLimit
	syncLoadLimit = 0
	defer func() { syncLoadLimit = old }()
	src, _ := openScenario(t, "sleeper")
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.done:
	default:
		t.Fatal("the background load still runs after Close")
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// The Actions view's defence verdicts: nothing before verification, then
// act-pay-fowler as the headline (IFC allows, AuthSelect substitutes), the
// same rows memscope actions prints.
func TestActionVerdictsAfterVerify(t *testing.T) {
	src, m := openScenario(t, "structural-write")
	if err := src.WaitLoaded(context.Background()); err != nil {
		t.Fatal(err)
	}
	if rows := src.ActionVerdicts(); rows != nil {
		t.Fatalf("verdicts before verification: %+v", rows)
	}
	finish(t, src)
	var found bool
	for _, r := range src.ActionVerdicts() {
		want := m.ExpectedActions[r.Action]
		for d, dec := range want {
			if r.Verdicts[d].Decision != dec {
				t.Errorf("%s: %s says %s, manifest %s", r.Action, d, r.Verdicts[d].Decision, dec)
			}
		}
		if r.Action == "act-pay-fowler" {
			found = r.Headline && r.Query == m.Attack.Query
		}
	}
	if !found {
		t.Error("act-pay-fowler is not the headline following the attacked query")
	}
}
