package assemble

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/importer"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/verify"
)

var scenarioDir string

func TestMain(m *testing.M) {
	dir, err := scenariocache.Path(1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	scenarioDir = dir
	os.Exit(m.Run())
}

// open loads a generated scenario with its pinned anchors.
func open(t *testing.T, name string) (*Session, *evidence.Manifest) {
	t.Helper()
	s, m := openUnloaded(t, name)
	if err := s.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return s, m
}

// mustVerify runs the verification lineage verdicts are drawn from.
func mustVerify(t *testing.T, s *Session) *verify.Report {
	t.Helper()
	rep, err := s.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// openUnloaded opens a generated scenario without loading its entries.
func openUnloaded(t *testing.T, name string) (*Session, *evidence.Manifest) {
	t.Helper()
	sdir := filepath.Join(scenarioDir, name)
	m, err := evidence.ReadManifest(sdir)
	if err != nil {
		t.Fatal(err)
	}
	return openStore(t, sdir, filepath.Join(sdir, m.Snapshot), m, ""), m
}

func TestCleanHasNoLaunderingNoRefusalNoDivergence(t *testing.T) {
	s, _ := open(t, "clean")
	mustVerify(t, s)
	for _, tau := range lineage.SweepTaus {
		sum, err := s.LineageSummary(tau, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Laundering) != 0 || len(sum.RefusedActions) != 0 {
			t.Errorf("tau %g: clean store has laundering %v, refused actions %v", tau, sum.Laundering, sum.RefusedActions)
		}
	}
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rp.ReplayAll(context.Background(), s.ReplayQueries(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("clean store replays %d queries, want 3", len(rows))
	}
	for _, r := range rows {
		if r.Class != diff.Same || r.IFCBlind {
			t.Errorf("clean query %s is %s (IFC-blind %v)", r.QueryID, r.Class, r.IFCBlind)
		}
	}
	if f := ReplayFindings(rows); len(f) != 0 {
		t.Errorf("clean replay findings: %v", f)
	}
}

// Memorygraft: the agent's summaries of the forum post are signed by an
// honest agent, recorded Derived-Trusted, and must come out
// Derived-Untrusted at tau 0; the transfer they justify is refused.
func TestMemoryGraftIsLaunderingAndRefused(t *testing.T) {
	s, _ := open(t, "memorygraft")
	mustVerify(t, s)
	sum, err := s.LineageSummary(0, false)
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := s.Labels(0, false)
	graft := 0
	for i, e := range held(s) {
		if e.Writer != "agent:planner" || !strings.Contains(e.Content, "7731") {
			continue
		}
		graft++
		j, _ := s.Lineage.Index(e.ID)
		if labels[j] != lineage.DerivedUntrusted {
			t.Errorf("graft entry %d (%s) recomputed %s, want Derived-Untrusted", i, e.ID, labels[j])
		}
		if !slices.ContainsFunc(sum.Laundering, func(l LaunderingRow) bool { return l.Entry == e.ID }) {
			t.Errorf("graft entry %s is not a laundering finding", e.ID)
		}
	}
	if graft != 2 {
		t.Fatalf("found %d graft entries, want 2", graft)
	}
	if len(sum.RefusedActions) != 1 || sum.RefusedActions[0].Action != "act-pay-7731" {
		t.Errorf("refused actions %+v, want exactly act-pay-7731", sum.RefusedActions)
	}
}

// Sleeper: every chain entry is Derived-Untrusted at tau 0, every
// dispatched email is refused, and the sweep over the generated chains
// reproduces MemLineage's (arXiv:2605.14421) Tables 5 and 6 cell by cell.
func TestSleeperChainsAndSweep(t *testing.T) {
	s, _ := open(t, "sleeper")
	mustVerify(t, s)
	labels, err := s.Labels(0, false)
	if err != nil {
		t.Fatal(err)
	}
	chains, err := s.SweepChains()
	if err != nil {
		t.Fatal(err)
	}
	if len(chains) != 8 {
		t.Fatalf("found %d sleeper chains, want 8 (2 schedules x K in 1,2,3,5)", len(chains))
	}
	for _, ch := range chains {
		for _, e := range ch.Entries[1:] {
			j, _ := s.Lineage.Index(e.ID)
			if labels[j] != lineage.DerivedUntrusted {
				t.Errorf("chain entry %s recomputed %s at tau 0", e.ID, labels[j])
			}
		}
	}
	sum, err := s.LineageSummary(0, false)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	for _, r := range sum.RefusedActions {
		refused[r.Action] = true
	}
	for _, sched := range []string{"coarse", "judge"} {
		for _, k := range scenario.SleeperK {
			if a := fmt.Sprintf("act-email-%s-K%d", sched, k); !refused[a] {
				t.Errorf("%s was dispatched and not listed as should-have-been-refused", a)
			}
		}
	}
	if len(refused) != 8 {
		t.Errorf("refused %d actions, want the 8 sleeper emails", len(refused))
	}

	// Transcribed from MemLineage, arXiv:2605.14421: Table 5 (Coarse) and Table 6 (judge
	// schedule 0.9 * 0.7^(k-1)); rows tau 0, 0.1, 0.3, 0.5, 0.9, 0.99, 1.0,
	// columns K = 1, 2, 3, 5.
	tables := map[string][7][4]int{
		"coarse": {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 0}},
		"judge":  {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 0}, {1, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}},
	}
	rows, _, err := s.Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 56 {
		t.Fatalf("sweep has %d cells, want 56", len(rows))
	}
	for _, r := range rows {
		ti := slices.Index(lineage.SweepTaus, r.Tau)
		ki := slices.Index(scenario.SleeperK, r.K)
		if ti < 0 || ki < 0 {
			t.Fatalf("unexpected cell %+v", r)
		}
		if want := tables[r.Schedule][ti][ki] == 1; r.Propagated != want {
			t.Errorf("%s tau %g K %d: propagated %v, paper says %v", r.Schedule, r.Tau, r.K, r.Propagated, want)
		}
	}
}

// Structural write: the attacked query diverges and is IFC-blind, its
// culprits are exactly the injected no-source edges, and the dense-score
// selector (immune by construction) shows no change.
func TestStructuralWriteReplay(t *testing.T) {
	s, m := open(t, "structural-write")
	if m.Attack == nil {
		t.Fatal("manifest names no attack")
	}
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	q, ok := s.Query(m.Attack.Query)
	if !ok {
		t.Fatalf("no query %s", m.Attack.Query)
	}
	row, err := rp.Replay(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if row.Class != diff.Diverge || !row.IFCBlind {
		t.Fatalf("attacked query is %s, IFC-blind %v; want DIVERGE and IFC-blind", row.Class, row.IFCBlind)
	}
	if row.Culprits == nil || !row.Culprits.Restores {
		t.Fatalf("no restoring culprit set: %+v", row.Culprits)
	}
	var got []string
	for _, c := range row.Culprits.Set {
		got = append(got, c.EdgeID)
	}
	want := slices.Clone(m.Attack.Edges)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("culprits %v, want the injected edges %v", got, want)
	}
	dense := false
	for _, im := range row.Immune {
		if im.Selector == "dense-score" {
			dense = true
			if im.Class != diff.Same {
				t.Errorf("dense-score selector changed: %s", im.Class)
			}
		}
	}
	if !dense {
		t.Error("no dense-score immune row")
	}
	// Verify and lineage see nothing but the unsigned-table warnings:
	// only replay finds this attack.
	rep, _ := s.Verify(context.Background(), nil)
	other := 0
	for _, f := range rep.Findings {
		if f.Code != "TABLE_UNSIGNED" {
			other++
		}
	}
	if !rep.OK || other != 0 {
		t.Errorf("verify reports %v on the structural-write store", rep.Findings)
	}
	sum, _ := s.LineageSummary(0, false)
	if len(sum.Laundering) != 0 || len(sum.RefusedActions) != 0 {
		t.Errorf("lineage flags the structural write: %+v %+v", sum.Laundering, sum.RefusedActions)
	}
}

func TestEntryLineageExplainsBreakAtTau(t *testing.T) {
	s, _ := open(t, "sleeper")
	chains, _ := s.SweepChains()
	var judge5 lineage.Chain
	for _, c := range chains {
		if c.Schedule == lineage.ScheduleJudge && len(c.Entries) == 6 {
			judge5 = c
		}
	}
	tip := judge5.Entries[5].ID
	v, err := s.EntryLineage(tip, 0.3, false, 6)
	if err != nil {
		t.Fatal(err)
	}
	if v.Recomputed != "Trusted" || len(v.Explanation.Origins) != 1 {
		t.Fatalf("judge K=5 tip at tau 0.3: %s with %d origins", v.Recomputed, len(v.Explanation.Origins))
	}
	o := v.Explanation.Origins[0]
	// w_5 = 0.9 * 0.7^4 = 0.216 is the first weight at or below 0.3.
	if o.Break != 4 || o.Path[o.Break].Weight > 0.3 {
		t.Errorf("break at %d (%+v), want the 5th edge", o.Break, o.Path)
	}
	if len(v.Rows) < 6 || v.DOT == "" {
		t.Errorf("drawing has %d rows, DOT %d bytes", len(v.Rows), len(v.DOT))
	}
}

// Queries record the selection the agent saw; the replay on G matches it on
// honest stores, and a store whose recording was altered is reported.
func TestRecordedSelections(t *testing.T) {
	for _, name := range []string{"clean", "structural-write"} {
		s, _ := open(t, name)
		rp, err := s.Replayer(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		rows, err := rp.ReplayAll(context.Background(), s.ReplayQueries(), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.Recorded == nil || r.Recorded.Mismatch {
				t.Errorf("%s %s: recorded check %+v", name, r.QueryID, r.Recorded)
			}
		}
	}

	// A copy of the clean store whose first query claims another selection.
	src := filepath.Join(scenarioDir, "clean")
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dst, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE queries SET selected = '["passage:argentina","passage:celtics"]' WHERE seq = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	scenarioDirSaved := scenarioDir
	scenarioDir = filepath.Dir(dst)
	defer func() { scenarioDir = scenarioDirSaved }()
	s, _ := open(t, filepath.Base(dst))
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rp.ReplayAll(context.Background(), s.ReplayQueries(), 1)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range ReplayFindings(rows) {
		if f.Code == finding.ReplayRecordedMismatch && f.Subject == "query "+rows[0].QueryID {
			found = true
		}
	}
	if !found {
		t.Errorf("an altered recording is not reported: %+v", ReplayFindings(rows))
	}
}

// An imported store's labels come from the importer's declarations and its
// own signatures: every label is shown as declared, never as verified.
func TestImportedStoreLabelsAreDeclared(t *testing.T) {
	out := filepath.Join(t.TempDir(), "imp")
	small := "../generators/importer/testdata/small/"
	if _, err := importer.Import(context.Background(), importer.Options{Nodes: small + "nodes.csv", Edges: small + "edges.csv", Queries: small + "queries.csv", Out: out, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	scenarioDirSaved := scenarioDir
	scenarioDir = filepath.Dir(out)
	defer func() { scenarioDir = scenarioDirSaved }()
	s, _ := open(t, "imp")
	if !s.Imported() {
		t.Fatal("the imported store is not recognised as imported")
	}
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	unauth := 0
	for i, l := range rp.Labels() {
		if !l.Declared {
			t.Errorf("edge %s: label %+v not marked declared", rp.Graph().Edges()[i].ID, l)
		}
		if !l.Authenticated {
			unauth++
		}
	}
	if unauth == 0 {
		t.Error("the fixture's declared-unauthenticated edges are labelled authenticated")
	}
}
