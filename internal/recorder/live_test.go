package recorder_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/recorder"
	"github.com/memscope/memscope/tui/tuisource"
)

// TestInspectorFollowsRecording: the inspector's source over a store
// memscope record is writing (its snapshot in WAL mode) follows it: the
// records that land after the store was opened are counted, the log's
// monitor round raises no error on honest writes, and a forged checkpoint
// the log then shows raises one. The analyses keep the store as opened.
func TestInspectorFollowsRecording(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := recorder.Init(ctx, dir, nil, ""); err != nil {
		t.Fatal(err)
	}
	rec, err := recorder.Open(ctx, recorder.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			rec.Close(ctx)
		}
	}()
	if second, err := recorder.Open(ctx, recorder.Options{Dir: dir}); err == nil {
		second.Close(ctx)
		t.Fatal("a second gateway opened a store one is recording")
	}
	write := func(text string) {
		t.Helper()
		if err := rec.Do(ctx, func(tx *recorder.Tx) error {
			_, err := tx.Entry(recorder.EntryIn{Writer: rec.Agents()[0], Content: text, Trust: record.Trusted, Session: "s1"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	write("first memory")
	vkey, _ := os.ReadFile(filepath.Join(dir, "log.vkey"))
	snap := filepath.Join(dir, "snapshot.db")
	src, err := tuisource.New(ctx, assemble.Options{Snapshot: snap, Log: filepath.Join(dir, "log"), LogKey: strings.TrimSpace(string(vkey))}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if !src.Following() {
		t.Fatal("a store memscope record is writing does not look live (no -wal beside the snapshot)")
	}
	if l, err := src.Live(ctx); err != nil || l.NewRecords != 0 || len(l.Errors) != 0 {
		t.Fatalf("first poll: %+v %v", l, err)
	}
	write("second memory")
	write("third memory")
	l, err := src.Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.NewRecords != 2 || len(l.Errors) != 0 {
		t.Fatalf("after two writes: %+v", l)
	}
	// The log's checkpoint replaced by one the log key did not sign, once
	// the recorder has stopped: a running one republishes its checkpoint
	// on tessera's interval and could overwrite the forgery first.
	closed = true
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "log", "checkpoint")
	raw, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	forged := strings.Replace(string(raw), "\n\n", "\n\n", 1)
	lines := strings.SplitN(forged, "\n", 3)
	lines[1] = lines[1] + "0" // another size, same signature: invalid
	if err := os.WriteFile(cp, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = src.Live(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Errors) != 1 || l.Errors[0].Code != "CHECKPOINT_SIG_INVALID" {
		t.Fatalf("a forged checkpoint raised %+v", l.Errors)
	}
}
