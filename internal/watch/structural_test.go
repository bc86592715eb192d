package watch

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
)

// structuralScenarios are the demo stores the structural round is held to
// the copy on: honest ones, ones whose writes flip selections, and the
// tampered ones (bad signatures, revoked keys, rows that do not match
// their leaves, tombstones).
var structuralScenarios = []string{"clean", "structural-write", "peer-cites-external", "tampered", "tombstone", "tombstoned-root", "channel-promotion", "incident"}

// replayDump is everything a round's replay decides from a replayer: the
// nodes and their labels, every edge with its provenance and label, and
// every stored query's replay row (selections on G and G_auth, class,
// culprits), as JSON.
func replayDump(ctx context.Context, t *testing.T, rp *replay.Replayer, qs []replay.Query) string {
	t.Helper()
	g := rp.Graph()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	must := func(v any) {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	must(g.Nodes())
	for i := range g.EdgeCount() {
		must(g.Edge(i))
		must(rp.Label(i))
	}
	rows, err := rp.ReplayAll(ctx, qs, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		errText := ""
		if r.Err != nil {
			errText = r.Err.Error()
		}
		// Lemma 1's margin is NaN for a target not selected on G, which
		// JSON cannot carry: the targets are printed apart.
		targets := fmt.Sprintf("%+v", r.Targets)
		r.Err, r.Targets = nil, nil
		must(r)
		must(errText)
		must(targets)
	}
	return b.String()
}

// TestLiveGraphMatchesCopy: the replay graph a structural round builds
// from the live handle that hides the rows past a checkpoint
// (loader.OpenLiveBefore, the provenance pass reading cited entries by
// index) is the graph the copy with those rows deleted gives (the
// whole-store path, and the incremental path before it): the same nodes,
// edges, provenance and labels, and the same replay of every stored
// query, on honest and tampered stores, at checkpoints before, inside and
// after their structure. Where the pass declines, the round itself falls
// back to the copy; the test counts the stores that took the live path.
func TestLiveGraphMatchesCopy(t *testing.T) {
	ctx := context.Background()
	live := 0
	for _, name := range structuralScenarios {
		dir, m := copyOfScenario(t, name)
		tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
		before := evidencetest.HashTree(t, dir)
		leaves := logSize(t, tg.Log)
		for _, size := range []uint64{1, leaves / 4, leaves / 2, leaves - 1, leaves, 1 << 62} {
			c, rp := copyReplayer(ctx, t, tg, size)
			want := replayDump(ctx, t, rp, c.session.ReplayQueries())

			snap, err := loader.OpenLiveBefore(ctx, tg.Snapshot, size)
			if err != nil {
				t.Fatal(err)
			}
			s, err := assemble.OpenOn(ctx, assemble.Options{Snapshot: tg.Snapshot, Log: tg.Log, LogKey: tg.LogKey, TrustRoots: tg.TrustRoots, EntriesByIndex: true}, snap)
			if err != nil {
				t.Fatal(err)
			}
			lrp, err := s.PassReplayer(ctx)
			if errors.Is(err, assemble.ErrPassDeclined) {
				t.Logf("%s at %d: the pass declines (the round copies): %v", name, size, err)
				s.Close()
				continue
			}
			if err != nil {
				t.Fatalf("%s at %d: live: %v", name, size, err)
			}
			got := replayDump(ctx, t, lrp, s.ReplayQueries())
			s.Close()
			live++
			if got != want {
				t.Errorf("%s at leaf %d: the live graph differs from the copy's\nlive: %s\ncopy: %s", name, size, got, want)
			}
		}
		if !maps.Equal(evidencetest.HashTree(t, dir), before) {
			t.Fatalf("%s: the evidence changed", name)
		}
	}
	if live < 2*len(structuralScenarios) {
		t.Errorf("only %d checkpoints took the live path: the test shows little", live)
	}
}

// TestStructuralRoundMatchesWholeRound: from the same verified state (the
// checkpoint at an earlier size and the queries diverging there), an
// incremental round over new leaves that carry structural writes reports
// the same selection flips, naming the same writes, and leaves the same
// diverged set as a round that checks and replays the whole store.
func TestStructuralRoundMatchesWholeRound(t *testing.T) {
	ctx := context.Background()
	structural := 0
	for _, name := range []string{"structural-write", "peer-cites-external", "clean", "incident", "tampered"} {
		dir, m := copyOfScenario(t, name)
		tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
		leaves := logSize(t, tg.Log)
		for _, start := range []uint64{1, 10, leaves / 3, leaves / 2, leaves - 3} {
			diverged := divergedAt(ctx, t, tg, start)
			run := func(whole bool) ([]string, *State, string) {
				st := stateAt(t, dir, m, start)
				st.Snapshot.Diverged = diverged
				if whole {
					st.Snapshot.Marks = nil
				}
				return roundFlips(ctx, t, tg, st)
			}
			inc, incState, note := run(false)
			whole, wholeState, _ := run(true)
			if strings.Contains(note, "new structure") {
				structural++
				if !strings.Contains(note, "the store's structure") && !strings.Contains(note, "a copy of the whole store") {
					t.Errorf("%s from %d: the note does not say what the graph was built from: %s", name, start, note)
				}
			}
			if !slices.Equal(inc, whole) {
				t.Errorf("%s from %d: flips differ\nincremental: %q\nwhole:       %q", name, start, inc, whole)
			}
			if !slices.Equal(incState.Snapshot.Diverged, wholeState.Snapshot.Diverged) {
				t.Errorf("%s from %d: diverged %v, whole round %v", name, start, incState.Snapshot.Diverged, wholeState.Snapshot.Diverged)
			}
		}
	}
	if structural < 5 {
		t.Errorf("only %d rounds replayed new structure: the test shows little", structural)
	}
}

// divergedAt is the set of stored queries that diverge on the store as a
// round at leaf size sees it (the copy, rows past size removed).
func divergedAt(ctx context.Context, t *testing.T, tg Target, size uint64) []string {
	t.Helper()
	c, rp := copyReplayer(ctx, t, tg, size)
	_, diverged, err := replayQueries(ctx, rp, c.session.ReplayQueries(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return diverged
}

func logSize(t *testing.T, logDir string) uint64 {
	t.Helper()
	r, err := tlog.Open(context.Background(), logDir)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	return cp.Size
}

// TestStructuralRoundWorkFollowsStructure: a round whose new rows include
// a structural write builds the replay graph from the same number of
// rows on a store ten times larger (the same structure, more entries):
// it reads the structure and the entries it cites, not every entry. The
// count is of rows, not time.
func TestStructuralRoundWorkFollowsStructure(t *testing.T) {
	ctx := context.Background()
	spec, _ := scenario.Lookup("clean")
	read := map[int]int64{}
	for _, entries := range []int{300, 3000} {
		sdir, m, tg := generatedStore(t, spec, entries)
		leaves := logSize(t, tg.Log)
		st := stateAt(t, sdir, m, leaves-10)
		st.Snapshot.Marks["writes"]-- // the last write is new to this round
		nl := provedLeaves(t, tg.Log, st.Size)
		o, fallback, err := incrementalRound(ctx, tg, st, nl)
		if err != nil || fallback != "" {
			t.Fatalf("%d entries: %v %s", entries, err, fallback)
		}
		t.Logf("%d entries: %s", entries, o.note)
		if !strings.Contains(o.note, "the replay graph was built from the store's structure") {
			t.Fatalf("%d entries: the round did not build the graph from the live store: %s", entries, o.note)
		}
		read[entries] = o.replayRows
	}
	if read[300] == 0 || read[3000] != read[300] {
		t.Errorf("replay graph rows read: %d on the store of 300 entries, %d on the one of 3000: the round reads more than the structure", read[300], read[3000])
	}
}

// TestStructuralRoundFallsBackToCopy: where the provenance pass cannot
// decide a label from the live handle, the structural round builds the
// graph from a verified copy, says why, and reports the flips a
// whole-store round reports. Two tamperings of a passage's entry row:
// it claims a leaf its record is not on (only the full verification
// decides), and its id is stored as a blob, which the eid index does not
// find by text while a scan of the table sees the row.
func TestStructuralRoundFallsBackToCopy(t *testing.T) {
	ctx := context.Background()
	const passageEntry = "(SELECT eid FROM nodes WHERE eid IS NOT NULL AND eid <> '' ORDER BY seq LIMIT 1)"
	for _, tc := range []struct{ edit, why string }{
		{"UPDATE entries SET leaf_index = leaf_index + 1 WHERE eid = " + passageEntry, "a record's leaf is not proved where its row places it"},
		{"UPDATE entries SET eid = CAST(eid AS BLOB) WHERE eid = " + passageEntry, "was found by the eid index"},
	} {
		dir, m := copyOfScenario(t, "structural-write")
		tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
		db, err := sql.Open("sqlite", "file:"+tg.Snapshot)
		if err != nil {
			t.Fatal(err)
		}
		res, err := db.Exec(tc.edit)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("%s: %d rows changed", tc.edit, n)
		}
		flips := func(marks bool) ([]string, string) {
			st := stateAt(t, dir, m, 10)
			if !marks {
				st.Snapshot.Marks = nil
			}
			out, _, note := roundFlips(ctx, t, tg, st)
			return out, note
		}
		inc, note := flips(true)
		if !strings.Contains(note, "the replay graph was built from a copy of the whole store (") || !strings.Contains(note, tc.why) {
			t.Errorf("%s: the round did not fall back to the copy saying why: %s", tc.edit, note)
		}
		whole, _ := flips(false)
		if len(whole) == 0 || !slices.Equal(inc, whole) {
			t.Errorf("%s: flips differ\nincremental: %q\nwhole:       %q", tc.edit, inc, whole)
		}
	}
}

// roundFlips runs one round from state st and returns its selection
// flips (subject and message, sorted), the state it leaves and its
// advance message.
func roundFlips(ctx context.Context, t *testing.T, tg Target, st *State) (flips []string, after *State, note string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.json")
	if err := SaveState(path, st); err != nil {
		t.Fatal(err)
	}
	evs, err := RunOnce(ctx, tg, path, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		switch e.Code {
		case finding.WatchSelectionFlipped:
			flips = append(flips, e.Subject+": "+e.Message)
		case finding.WatchCheckpointAdvanced:
			note = e.Message
		}
	}
	slices.Sort(flips)
	after, err = LoadState(path)
	if err != nil {
		t.Fatal(err)
	}
	return flips, after, note
}

// copyReplayer is the replayer of the round's copy of the store before
// leaf size (liveCopy, the whole-store path); the copy goes at cleanup.
func copyReplayer(ctx context.Context, t *testing.T, tg Target, size uint64) (*storeCopy, *replay.Replayer) {
	t.Helper()
	c, err := liveCopy(ctx, tg, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	rp, err := c.session.Replayer(ctx)
	if err != nil {
		t.Fatalf("copy before leaf %d: %v", size, err)
	}
	return c, rp
}

// TestLiveReplayerChecksItsOwnIndex: the live handle the pass reads
// entries from by the eid index checks that index itself, on its own
// read transaction, since the store may have been rebuilt since the
// round's first handle checked it. With the entries table rebuilt
// without its UNIQUE eid (rows and every other column as they were), the
// live path declines, saying why, and the round would copy; on the
// honest store it does not decline.
func TestLiveReplayerChecksItsOwnIndex(t *testing.T) {
	ctx := context.Background()
	for _, rebuilt := range []bool{false, true} {
		dir, m := copyOfScenario(t, "structural-write")
		tg := Target{Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(dir, m.Snapshot), TrustRoots: evidencetest.Roots(t, m)}
		if rebuilt {
			db, err := sql.Open("sqlite", "file:"+tg.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			var schema string
			if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries'").Scan(&schema); err != nil {
				t.Fatal(err)
			}
			plain := strings.Replace(strings.Replace(schema, "eid        TEXT NOT NULL UNIQUE", "eid        TEXT NOT NULL", 1), "CREATE TABLE entries", "CREATE TABLE entries_plain", 1)
			if plain == schema || strings.Contains(plain, "UNIQUE") {
				t.Fatalf("the entries schema is not the one this test edits: %s", schema)
			}
			for _, q := range []string{plain, "INSERT INTO entries_plain SELECT * FROM entries", "DROP TABLE entries", "ALTER TABLE entries_plain RENAME TO entries"} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			db.Close()
		}
		var r reached
		_, _, err := liveReplayer(ctx, tg, logSize(t, tg.Log), &r)
		switch {
		case !rebuilt && err != nil:
			t.Errorf("honest store: %v", err)
		case rebuilt && (!errors.Is(err, assemble.ErrPassDeclined) || !strings.Contains(err.Error(), "no unique index on eid")):
			t.Errorf("entries without a unique eid: the live path did not decline for that: %v", err)
		}
	}
}
