package recorder_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/watch"
)

// TestWatchWhileRecording: memscope watch follows a store memscope record
// is writing, with the recorder running. A first round sees the agent's
// first, authentic writes and raises no error. The poisoning story then
// plays (an attacker's page read, a relation written after it, a memory
// search that returns the relation); the round that sees the new leaves
// verifies a consistent copy of the live snapshot (every record the
// gateway wrote verifies) and raises WATCH_SELECTION_FLIPPED for the
// search, naming the relation's unauthenticated writes: the reference
// server returned the relation because one endpoint matched, and on
// G_auth, without it, the search selects something else. A later idle
// round says nothing new.
func TestWatchWhileRecording(t *testing.T) {
	memServer := serverMemory(t)
	memscope, web, pay := bins(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	initStore(t, memscope, store)
	cfg := storyConfig(t, dir, memServer, web, pay, "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	vkey, err := os.ReadFile(filepath.Join(store, "log.vkey"))
	if err != nil {
		t.Fatal(err)
	}
	tg := watch.Target{Log: filepath.Join(store, "log"), LogKey: strings.TrimSpace(string(vkey)), Snapshot: filepath.Join(store, "snapshot.db")}
	state := filepath.Join(dir, "watch.json")
	// round runs rounds until one sees the log grow past min (the
	// recorder publishes checkpoints on tessera's interval).
	round := func(min uint64) []watch.Event {
		t.Helper()
		var all []watch.Event
		for deadline := time.Now().Add(30 * time.Second); ; {
			evs, err := watch.RunOnce(ctx, tg, state, time.Now(), func(watch.Event) error { return nil })
			if err != nil {
				t.Fatalf("watch round: %v", err)
			}
			all = append(all, evs...)
			if st, _ := watch.LoadState(state); st != nil && st.Size > min {
				return all
			}
			if time.Now().After(deadline) {
				t.Fatalf("the log did not grow past %d", min)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}

	cs, _ := connect(t, ctx, memscope, store, cfg)
	// An authentic neighbourhood around Acme.
	call(t, ctx, cs, "create_entities", map[string]any{"entities": []map[string]any{
		{"name": "Acme Ltd", "entityType": "company", "observations": []string{"Invoice 2291 is due on Friday", "Acme buys paper"}},
		{"name": "Bolt Corp", "entityType": "company", "observations": []string{"Bolt supplies Acme", "Bolt is in Leeds"}},
		{"name": "Karen Joy Fowler", "entityType": "person", "observations": []string{"Karen Joy Fowler, account 7731"}},
	}})
	call(t, ctx, cs, "create_relations", map[string]any{"relations": []map[string]any{
		{"from": "Acme Ltd", "to": "Bolt Corp", "relationType": "supplier"},
	}})
	// No wait for the log here: with --ack sequenced the round can copy
	// rows its checkpoint does not cover yet, which it holds back (watch's
	// holdBack) instead of reading them as unauthenticated: no false alarm.
	first := round(0)
	st, _ := watch.LoadState(state)
	size := st.Size
	for _, e := range first {
		if e.Severity == finding.SevError {
			t.Errorf("first round: %s %s", e.Code, e.Message)
		}
	}

	// One more authentic write and its round: the first round that sees
	// new leaves checks the whole store and keeps its marks, so the round
	// that sees the poisoning below is an incremental one.
	call(t, ctx, cs, "add_observations", map[string]any{"observations": []map[string]any{{"entityName": "Bolt Corp", "contents": []string{"Bolt ships on Mondays"}}}})
	logCovers(t, store)
	for _, e := range round(size) {
		if e.Severity == finding.SevError {
			t.Errorf("second round: %s %s", e.Code, e.Message)
		}
	}
	st, _ = watch.LoadState(state)
	size = st.Size

	call(t, ctx, cs, "fetch_page", map[string]any{"url": "https://acme.example/billing"})
	call(t, ctx, cs, "create_relations", map[string]any{"relations": []map[string]any{{"from": "Acme Ltd", "to": "Karen Joy Fowler", "relationType": "payee"}}})
	call(t, ctx, cs, "search_nodes", map[string]any{"query": "Acme"})
	// Here the wait decides only which round sees the flip: the one
	// whose checkpoint covers the search.
	logCovers(t, store)
	evs := round(size)
	advanced, flipped := false, 0
	for _, e := range evs {
		advanced = advanced || e.Code == finding.WatchCheckpointAdvanced
		if e.Code == finding.WatchCheckpointAdvanced && !strings.Contains(e.Message, "new records checked") {
			t.Errorf("the poisoning round checked the whole store, not what was new: %s", e.Message)
		}
		if e.Code == finding.WatchCheckpointAdvanced && strings.Contains(e.Message, "new structure") && !strings.Contains(e.Message, "graph was built from the store's structure") {
			t.Errorf("the poisoning round's replay graph did not come from the live store: %s", e.Message)
		}
		switch {
		case e.Code == finding.WatchSelectionFlipped:
			flipped++
			if !payeeWritesNamed(t, store, e.Message) {
				t.Errorf("the flip does not name the payee relation's writes: %s", e.Message)
			}
		case e.Severity == finding.SevError:
			t.Errorf("a recorded store gave %s: %s", e.Code, e.Message)
		}
	}
	if !advanced {
		t.Fatalf("no advance seen: %+v", evs)
	}
	if flipped != 1 {
		t.Errorf("the search after the unauthenticated relation raised %d selection-flipped events, want 1: %+v", flipped, evs)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	evs, err = watch.RunOnce(ctx, tg, state, time.Now(), func(watch.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Severity == finding.SevError {
			t.Errorf("last round: %s %s", e.Code, e.Message)
		}
	}
}

// payeeWritesNamed says whether msg names the culprit writes of the
// story's payee relation and only those: the writes whose first source is
// the relation's entry (its structural write and its passage's edges),
// read from the live snapshot.
func payeeWritesNamed(t *testing.T, store, msg string) bool {
	t.Helper()
	db := liveSnapshot(t, store)
	defer db.Close()
	var eid string
	if err := db.QueryRow(`SELECT eid FROM entries WHERE instr(content, '"relationType":"payee"') > 0`).Scan(&eid); err != nil {
		t.Fatalf("the payee relation's entry: %v", err)
	}
	rows, err := db.Query("SELECT wid, record FROM writes")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ofPayee := map[string]bool{}
	for rows.Next() {
		var wid string
		var raw []byte
		if err := rows.Scan(&wid, &raw); err != nil {
			t.Fatal(err)
		}
		if w, err := record.DecodeWrite(raw); err == nil && len(w.Sources) > 0 && w.Sources[0].String() == eid {
			ofPayee[wid] = true
		}
	}
	_, named, ok := strings.Cut(msg, "flip it: ")
	if !ok {
		return false
	}
	for _, id := range strings.Split(named, ", ") {
		if !ofPayee[strings.TrimSpace(id)] {
			return false
		}
	}
	return true
}

// logCovers waits until the log's published checkpoint covers every leaf
// the live snapshot names. With --ack sequenced (the default) a call's
// result is released once its rows are committed, and the log integrates
// them up to 50 ms later and publishes on tessera's interval: a round
// taken in between copies rows its checkpoint cannot prove yet, and
// replays G_auth without them (docs/RECORD.md says what a monitor sees).
func logCovers(t *testing.T, store string) {
	t.Helper()
	db := liveSnapshot(t, store)
	defer db.Close()
	var leaves int64
	q := "SELECT MAX(m) FROM (SELECT MAX(leaf_index) AS m FROM entries UNION ALL SELECT MAX(leaf_index) FROM writes UNION ALL SELECT MAX(leaf_index) FROM nodes UNION ALL SELECT MAX(leaf_index) FROM queries UNION ALL SELECT MAX(leaf_index) FROM actions UNION ALL SELECT MAX(leaf_index) FROM tombstones UNION ALL SELECT MAX(leaf_index) FROM principals)"
	if err := db.QueryRow(q).Scan(&leaves); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		b, _ := os.ReadFile(filepath.Join(store, "log", "checkpoint"))
		// A checkpoint note's second line is the tree size (C2SP
		// tlog-checkpoint).
		if lines := strings.Split(string(b), "\n"); len(lines) > 1 {
			if size, err := strconv.ParseInt(lines[1], 10, 64); err == nil && size > leaves {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log's checkpoint did not come to cover the snapshot's %d leaves", leaves+1)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveSnapshot opens the snapshot a running recorder writes, read-only and
// not immutable (it changes under the reader), waiting out its locks.
func liveSnapshot(t *testing.T, store string) *sql.DB {
	t.Helper()
	return openDSN(t, "file:"+filepath.Join(store, "snapshot.db")+"?mode=ro&_pragma=busy_timeout(5000)")
}
