package recorder_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/watch"
)

// TestWatchWhileRecording: memscope watch follows a store memscope record
// is writing, with the recorder running. A first round sees the agent's
// first writes; the poisoning story then plays (an attacker's page read, a
// relation written after it, a memory search); the round that sees the new
// leaves verifies a consistent copy of the live snapshot and raises no
// error: every record the gateway wrote verifies. A later idle round says
// nothing.
//
// The story's relation does not flip the recorded search's selection, and
// cannot: the gateway records a search's k as the number of passages the
// server returned, which are the seeds' own passages, so G and G_auth
// select the same set (replay says SAME or REORDER). The selection-flip
// event is tested on the structural-write scenario (internal/watch).
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
	first := round(0)
	st, _ := watch.LoadState(state)
	size := st.Size
	for _, e := range first {
		if e.Severity == finding.SevError {
			t.Errorf("first round: %s %s", e.Code, e.Message)
		}
	}

	call(t, ctx, cs, "fetch_page", map[string]any{"url": "https://acme.example/billing"})
	call(t, ctx, cs, "create_relations", map[string]any{"relations": []map[string]any{{"from": "Acme Ltd", "to": "Karen Joy Fowler", "relationType": "payee"}}})
	call(t, ctx, cs, "search_nodes", map[string]any{"query": "Acme"})
	evs := round(size)
	advanced := false
	for _, e := range evs {
		advanced = advanced || e.Code == finding.WatchCheckpointAdvanced
		if e.Severity == finding.SevError {
			t.Errorf("a recorded store gave %s: %s", e.Code, e.Message)
		}
	}
	if !advanced {
		t.Fatalf("no advance seen: %+v", evs)
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
