package watch

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/seedgen"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
)

// TestSnapshotAheadOfCheckpoint: a store whose snapshot holds rows the
// log's checkpoint does not cover yet (what memscope record --ack
// sequenced leaves for up to a fraction of a second) raises no error
// event: the round holds those rows back, and the next round, whose
// checkpoint covers them, checks them and still raises nothing. Checked
// as they stand instead (no hold-back), the same rows read as not in the
// log and the authentic writes among them as unauthenticated, which
// flips selections: the failure this prevents.
func TestSnapshotAheadOfCheckpoint(t *testing.T) {
	ctx := context.Background()
	const name = "clean"
	sdir, m := copyOfScenario(t, name)
	logDir := filepath.Join(sdir, m.Log)
	r, full, cpEarly, fullRaw := lagging(t, name, logDir)
	early := full.Size / 2
	if err := os.WriteFile(filepath.Join(logDir, "checkpoint"), cpEarly, 0o644); err != nil {
		t.Fatal(err)
	}
	root10, err := r.RootAt(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	tg := Target{Log: logDir, LogKey: m.Anchors.LogKey, Snapshot: filepath.Join(sdir, m.Snapshot)}
	st := &State{Version: stateVersion, Log: logDir, Origin: full.Origin, Size: 10, Root: root10}

	// The failure held-back rows prevent: checked as they stand.
	asTheyStand, err := snapshotRound(ctx, tg, st, 1<<62)
	if err != nil {
		t.Fatal(err)
	}
	flips := 0
	for _, f := range asTheyStand.findings {
		if f.Code == finding.WatchSelectionFlipped {
			flips++
		}
	}
	if flips == 0 {
		t.Fatalf("no false flip without the hold-back at size %d of %d: the test shows nothing (%+v)", early, full.Size, asTheyStand)
	}

	state := filepath.Join(t.TempDir(), "state.json")
	if err := SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	for i, cp := range [][]byte{cpEarly, fullRaw} {
		roundAt(ctx, t, tg, state, logDir, cp, i+1)
	}
}

// roundAt publishes checkpoint cp in logDir, runs one round of the watch
// with the state file state, fails the test on every error event (the
// lagging-checkpoint tests expect none) and returns the round's events.
func roundAt(ctx context.Context, t *testing.T, tg Target, state, logDir string, cp []byte, round int) []Event {
	t.Helper()
	if err := os.WriteFile(filepath.Join(logDir, "checkpoint"), cp, 0o644); err != nil {
		t.Fatal(err)
	}
	evs, err := RunOnce(ctx, tg, state, time.Now(), func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Severity == finding.SevError {
			t.Errorf("round %d: %s %s: %s", round, e.Code, e.Subject, e.Message)
		}
	}
	return evs
}

// lagging prepares the scenario name's log at logDir to publish a
// checkpoint at half its size, as a log that has not integrated the
// newest rows yet would: it writes the partial tiles of that size and
// returns a reader, the full checkpoint, the early checkpoint's note and
// the full one's (the caller writes either as the log's checkpoint).
func lagging(t *testing.T, name, logDir string) (r *tlog.Reader, full tlog.Checkpoint, cpEarly, fullRaw []byte) {
	t.Helper()
	ctx := context.Background()
	r, err := tlog.Open(ctx, logDir)
	if err != nil {
		t.Fatal(err)
	}
	full, err = r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	fullRaw, err = os.ReadFile(filepath.Join(logDir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	// The scenario's log key is derived from its seed (seedgen): sign a
	// checkpoint at an earlier size.
	signer, _, err := seedgen.New(1, "scenario:"+name).NoteKey(full.Origin)
	if err != nil {
		t.Fatal(err)
	}
	early := full.Size / 2
	rootEarly, err := r.RootAt(ctx, early)
	if err != nil {
		t.Fatal(err)
	}
	cpEarly, err = tlog.SignCheckpoint(signer, full.Origin, early, rootEarly)
	if err != nil {
		t.Fatal(err)
	}
	partialTiles(t, logDir, full.Size, early)
	return r, full, cpEarly, fullRaw
}

// partialTiles writes the partial level-0 tile and entry bundle a log of
// size early would have published (C2SP tlog-tiles: a partial tile of
// width w holds the first w hashes, a partial bundle the first w entries,
// each a big-endian uint16 length and the entry), cut from the partial
// ones of the log's full size; both sizes are within the first tile.
func partialTiles(t *testing.T, logDir string, size, early uint64) {
	t.Helper()
	if size >= 256 {
		t.Fatalf("the log has %d leaves: more than one tile", size)
	}
	from := func(kind string) []byte {
		b, err := os.ReadFile(filepath.Join(logDir, "tile", kind, "000.p", strconv.FormatUint(size, 10)))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(kind string, b []byte) {
		p := filepath.Join(logDir, "tile", kind, "000.p", strconv.FormatUint(early, 10))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("0", from("0")[:early*32])
	bundle, off := from("entries"), 0
	for range early {
		off += 2 + int(binary.BigEndian.Uint16(bundle[off:]))
	}
	write("entries", bundle[:off])
}
