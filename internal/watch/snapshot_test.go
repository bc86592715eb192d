package watch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/present/finding"
)

// TestSnapshotRoundReportsFlipOnce: a monitor that had verified the first
// leaves of the structural-write store sees the rest arrive; with the
// snapshot, the round verifies the store and replays its stored queries,
// and reports each query the unauthenticated edges flip, naming the
// writes, once. The snapshot is unchanged by the round.
func TestSnapshotRoundReportsFlipOnce(t *testing.T) {
	ctx := context.Background()
	sdir, m := copyOfScenario(t, "structural-write")
	snap := filepath.Join(sdir, m.Snapshot)
	before := evidencetest.HashTree(t, sdir)
	logDir := filepath.Join(sdir, m.Log)
	r, err := tlog.Open(ctx, logDir)
	if err != nil {
		t.Fatal(err)
	}
	root10, err := r.RootAt(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.json")
	cp, err := r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	st := &State{Version: stateVersion, Log: logDir, Origin: cp.Origin, Size: 10, Root: root10}
	if err := SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	tg := Target{Log: logDir, LogKey: m.Anchors.LogKey, Snapshot: snap}
	evs, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var flipped []string
	for _, e := range evs {
		if e.Severity == finding.SevError && e.Code != finding.WatchSelectionFlipped {
			t.Errorf("an honest store gave %s: %s", e.Code, e.Message)
		}
		if e.Code == finding.WatchSelectionFlipped {
			flipped = append(flipped, e.Subject)
			if !strings.Contains(e.Message, "the unauthenticated write(s) that flip it") {
				t.Errorf("flip names no write: %s", e.Message)
			}
		}
	}
	if strings.Join(flipped, ",") != "query q-born-first,query q-patagonia" {
		t.Fatalf("flipped %v, want the two queries the scenario's description names", flipped)
	}
	// The same flips are not reported again.
	st2, _ := LoadState(state)
	st2.Size, st2.Root = 10, root10
	SaveState(state, st2)
	evs, err = RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Code == finding.WatchSelectionFlipped {
			t.Errorf("flip reported twice: %s", e.Subject)
		}
	}
	if after := evidencetest.HashTree(t, sdir); len(after) != len(before) {
		t.Fatalf("the evidence directory changed: %d files before, %d after", len(before), len(after))
	} else {
		for k, v := range before {
			if after[k] != v {
				t.Fatalf("%s changed", k)
			}
		}
	}
	if _, err := os.Stat(snap + "-wal"); err == nil {
		t.Fatal("a -wal file appeared beside the snapshot")
	}
}
