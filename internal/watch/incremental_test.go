package watch

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// stateAt is the state a monitor holds after a round at leaf size: the
// checkpoint root at size and, per table, the mark of the last row whose
// claimed leaf is before size (what that round's copy would have left).
func stateAt(t *testing.T, dir string, m *evidence.Manifest, size uint64) *State {
	t.Helper()
	ctx := context.Background()
	logDir := filepath.Join(dir, m.Log)
	r, err := tlog.Open(ctx, logDir)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	root, err := r.RootAt(ctx, size)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, m.Snapshot)+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	marks := verify.Marks{}
	for _, tb := range markTables {
		var mk sql.NullInt64
		if err := db.QueryRow(fmt.Sprintf("SELECT max(seq) FROM %s WHERE leaf_index < ? OR leaf_index IS NULL", tb), size).Scan(&mk); err != nil {
			t.Fatal(err)
		}
		marks[tb] = mk.Int64
	}
	return &State{Version: stateVersion, Log: logDir, Origin: cp.Origin, Size: size, Root: root, Snapshot: &SnapshotState{Marks: marks}}
}

// TestIncrementalRoundOnTamperedRecords: a round whose new leaves carry
// the tampered scenario's records (a bad signature, a revoked key's
// records, rows that do not match their leaves, an entry whose parent is
// gone) reports each, through the incremental path, as an error event
// with the subject verify gives it; the whole-store path is not taken.
func TestIncrementalRoundOnTamperedRecords(t *testing.T) {
	ctx := context.Background()
	dir, m := copyOfScenario(t, "tampered")
	logDir := filepath.Join(dir, m.Log)
	evidencetest.MendLevel0Tile(t, logDir)
	st := stateAt(t, dir, m, 1)
	state := filepath.Join(t.TempDir(), "state.json")
	if err := SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	tg := Target{Log: logDir, LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
	evs, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	full, err := verify.Run(ctx, verify.Options{Snapshot: tg.Snapshot, Log: logDir, LogKey: m.Anchors.LogKey, TrustRoots: tg.TrustRoots})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	incremental := false
	for _, e := range evs {
		got[string(e.Code)+" "+e.Subject] = true
		if e.Code == finding.WatchCheckpointAdvanced {
			incremental = strings.Contains(e.Message, "new records checked")
			t.Log(e.Message)
		}
	}
	if !incremental {
		t.Fatal("the round did not take the incremental path")
	}
	for _, c := range []finding.Code{finding.SigInvalid, finding.KeyOutsideValidity, finding.InclusionFailed, finding.ParentMissing, finding.WriterUnregistered} {
		n := 0
		for _, f := range full.Findings {
			if f.Code == c && strings.HasPrefix(f.Subject, "entry ") {
				n++
				if !got[string(c)+" "+f.Subject] {
					t.Errorf("verify reports %s on %s; the round did not", c, f.Subject)
				}
			}
		}
		if n == 0 {
			t.Errorf("verify reports no %s on an entry: the test shows nothing for it", c)
		}
	}
}

// TestIncrementalRoundWorkFollowsNewLeaves: a round over the same number
// of new leaves reads the same number of snapshot rows on a store ten
// times larger: what it reads follows what is new, not the store. The
// count is of rows, not time.
func TestIncrementalRoundWorkFollowsNewLeaves(t *testing.T) {
	ctx := context.Background()
	spec, _ := scenario.Lookup("clean")
	const newEntries = 40
	read := map[int]int64{}
	// Each store's new entries cite parents of their own, so the
	// context differs; what else a round reads must not.
	for _, entries := range []int{300, 3000} {
		sdir, m, tg := generatedStore(t, spec, entries)
		db, err := sql.Open("sqlite", "file:"+filepath.Join(sdir, m.Snapshot)+"?mode=ro&immutable=1")
		if err != nil {
			t.Fatal(err)
		}
		var from int64
		err = db.QueryRow("SELECT leaf_index FROM entries ORDER BY leaf_index DESC LIMIT 1 OFFSET ?", newEntries-1).Scan(&from)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		st := stateAt(t, sdir, m, uint64(from))
		nl := provedLeaves(t, tg.Log, st.Size)
		o, fallback, err := incrementalRound(ctx, tg, st, nl)
		if err != nil || fallback != "" {
			t.Fatalf("%d entries: %v %s", entries, err, fallback)
		}
		if len(o.findings) != 0 {
			t.Errorf("%d entries: an honest store gave %+v", entries, o.findings)
		}
		t.Logf("%d entries, leaves [%d, %d): %s", entries, nl.From, nl.Size, o.note)
		if !strings.Contains(o.note, fmt.Sprintf("%d new records checked", newEntries)) {
			t.Errorf("%d entries: %s, want %d new records checked", entries, o.note, newEntries)
		}
		if o.checked != newEntries {
			t.Errorf("%d entries: %d rows checked, want %d", entries, o.checked, newEntries)
		}
		// Besides the rows checked and their context (the registry, the
		// new entries' parents), only the meta table is read.
		read[entries] = o.rowsRead - int64(o.checked+o.context)
	}
	if read[3000] != read[300] || read[300] > 20 {
		t.Errorf("rows read besides the new rows and their context: %d on the store of 300 entries, %d on the one of 3000: the round reads more than what is new", read[300], read[3000])
	}
}

// generatedStore generates the scenario spec with entries entries into
// a new directory and returns it, its manifest and its target.
func generatedStore(t *testing.T, spec scenario.Spec, entries int) (string, *evidence.Manifest, Target) {
	t.Helper()
	dir := t.TempDir()
	m, err := scenario.Generate(context.Background(), dir, spec, scenario.Options{Seed: 1, Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	sdir := filepath.Join(dir, m.Name)
	return sdir, m, Target{Log: filepath.Join(sdir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(sdir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
}

// provedLeaves reads and proves the leaves past size, as a round does.
func provedLeaves(t *testing.T, logDir string, size uint64) verify.NewLeaves {
	t.Helper()
	ctx := context.Background()
	r, err := tlog.Open(ctx, logDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	cp, err := r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	nl := verify.NewLeaves{From: size, Size: cp.Size, Root: cp.Root, Log: r}
	for leaf, err := range r.Leaves(ctx, size, cp.Size) {
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := r.CheckLeaf(ctx, leafHash(leaf.Data), leaf.Index, cp.Size, cp.Root); err != nil || !ok {
			t.Fatalf("leaf %d does not prove: %v", leaf.Index, err)
		}
		nl.Leaves = append(nl.Leaves, leaf.Data)
	}
	return nl
}

// TestReachedQueries: on the structural-write store, the compromised
// peer's writes reach the two queries they flip, and a round with no new
// write replays none; every query the writes do not reach gives the same
// class on G and G_auth as it would have without them.
func TestReachedQueries(t *testing.T) {
	ctx := context.Background()
	dir, m := copyOfScenario(t, "structural-write")
	tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot)}
	c, rp := copyReplayer(ctx, t, tg, 1<<62)
	qs := c.session.ReplayQueries()
	rows, err := rp.ReplayAll(ctx, qs, 1)
	if err != nil {
		t.Fatal(err)
	}
	var culprits []string
	diverging := []string{}
	for _, r := range rows {
		if r.Class == "DIVERGE" {
			diverging = append(diverging, r.QueryID)
			for _, cu := range r.Culprits.Set {
				culprits = append(culprits, cu.EdgeID)
			}
		}
	}
	slices.Sort(diverging)
	if strings.Join(diverging, ",") != "q-born-first,q-patagonia" {
		t.Fatalf("diverging %v, want the scenario's two", diverging)
	}
	var reached []string
	for _, q := range reachedQueries(rp, qs, replayNeed{writes: culprits}) {
		reached = append(reached, q.ID)
	}
	for _, id := range diverging {
		if !slices.Contains(reached, id) {
			t.Errorf("the culprit writes do not reach %s, which they flip (reached %v)", id, reached)
		}
	}
	if got := reachedQueries(rp, qs, replayNeed{}); len(got) != 0 {
		t.Errorf("no new write reached %d queries", len(got))
	}
	if got := reachedQueries(rp, qs, replayNeed{queries: []string{qs[0].ID}}); len(got) != 1 || got[0].ID != qs[0].ID {
		t.Errorf("a new stored query is replayed alone; got %d", len(got))
	}
}

// TestIncrementalRoundHoldsBack: in an incremental round whose
// checkpoint lags the snapshot (memscope record --ack sequenced), the rows
// past the marks that claim leaves the checkpoint does not cover are held
// back (transient, no error event) and the marks stay before the first of
// them; the round whose checkpoint covers them checks them and still
// raises nothing, and moves the marks past them.
func TestIncrementalRoundHoldsBack(t *testing.T) {
	ctx := context.Background()
	const name = "clean"
	sdir, m := copyOfScenario(t, name)
	logDir := filepath.Join(sdir, m.Log)
	_, full, cpEarly, fullRaw := lagging(t, name, logDir)
	start := full.Size / 4
	state := filepath.Join(t.TempDir(), "state.json")
	st := stateAt(t, sdir, m, start)
	if err := SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	tg := Target{Log: logDir, LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(sdir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
	for i, cp := range [][]byte{cpEarly, fullRaw} {
		for _, e := range roundAt(ctx, t, tg, state, logDir, cp, i+1) {
			if e.Code == finding.WatchCheckpointAdvanced && !strings.Contains(e.Message, "new records checked") {
				t.Errorf("round %d took the whole-store path: %s", i+1, e.Message)
			}
		}
		after, err := LoadState(state)
		if err != nil {
			t.Fatal(err)
		}
		want := stateAt(t, sdir, m, after.Size).Snapshot.Marks
		if i == 0 {
			if len(after.Suspect) == 0 {
				t.Error("round 1 held nothing back: the test shows nothing")
			}
			// Before the first row the early checkpoint does not cover.
			if after.Snapshot.Marks["entries"] > want["entries"] {
				t.Errorf("round 1: entries mark %d is past the first held-back row (want at most %d)", after.Snapshot.Marks["entries"], want["entries"])
			}
		} else if after.Snapshot.Marks["entries"] != want["entries"] {
			t.Errorf("round 2: entries mark %d, want %d", after.Snapshot.Marks["entries"], want["entries"])
		}
	}
}

// TestIncrementalRoundWithoutIndex: a snapshot whose writes table lacks
// the UNIQUE index on wid (a store memscope's writer did not make) cannot
// be read by id: the round checks the whole store and says why.
func TestIncrementalRoundWithoutIndex(t *testing.T) {
	ctx := context.Background()
	dir, m := copyOfScenario(t, "clean")
	r, err := tlog.Open(ctx, filepath.Join(dir, m.Log))
	if err != nil {
		t.Fatal(err)
	}
	cp, err := r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	st := stateAt(t, dir, m, cp.Size/2)
	snap := filepath.Join(dir, m.Snapshot)
	db, err := sql.Open("sqlite", snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE w2 AS SELECT * FROM writes", "DROP TABLE writes", "ALTER TABLE w2 RENAME TO writes"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	state := filepath.Join(t.TempDir(), "state.json")
	if err := SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: snap, TrustRoots: evidencetest.Roots(t, m)}
	evs, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Code == finding.WatchCheckpointAdvanced {
			if !strings.Contains(e.Message, "the whole store was checked (table writes has no unique index on wid") {
				t.Errorf("the round did not say it fell back: %s", e.Message)
			}
			return
		}
	}
	t.Fatalf("no advance: %+v", evs)
}

// TestIncrementalRoundReportsFlip: the structural-write store seen by a
// monitor whose last round was at leaf 10 (marks there, nothing
// diverging): the incremental round checks the compromised peer's writes,
// replays the queries they reach (here every stored query is new as well),
// and reports the two the scenario says they flip, naming the writes.
func TestIncrementalRoundReportsFlip(t *testing.T) {
	ctx := context.Background()
	dir, m := copyOfScenario(t, "structural-write")
	st := stateAt(t, dir, m, 10)
	state := filepath.Join(t.TempDir(), "state.json")
	if err := SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
	evs, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var flipped []string
	for _, e := range evs {
		switch {
		case e.Code == finding.WatchSelectionFlipped:
			flipped = append(flipped, e.Subject)
			if !strings.Contains(e.Message, "the unauthenticated write(s) that flip it") {
				t.Errorf("flip names no write: %s", e.Message)
			}
		case e.Severity == finding.SevError:
			t.Errorf("an honest store gave %s: %s", e.Code, e.Message)
		case e.Code == finding.WatchCheckpointAdvanced:
			t.Log(e.Message)
			if !strings.Contains(e.Message, "new records checked") || !strings.Contains(e.Message, "stored queries replayed") {
				t.Errorf("not an incremental round that replayed: %s", e.Message)
			}
		}
	}
	slices.Sort(flipped)
	if strings.Join(flipped, ",") != "query q-born-first,query q-patagonia" {
		t.Fatalf("flipped %v, want the two queries the scenario's description names", flipped)
	}
	after, err := LoadState(state)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(after.Snapshot.Diverged, ",") != "q-born-first,q-patagonia" {
		t.Errorf("diverged %v in the state", after.Snapshot.Diverged)
	}
}
