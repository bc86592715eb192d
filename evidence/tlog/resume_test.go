package tlog

import (
	"bytes"
	"context"
	"testing"

	"github.com/memscope/memscope/evidence/tlog/appender"
)

// TestAppenderResume writes a log, reopens it with appender.Open (as
// memscope record does after each restart) at sizes that end inside, at
// and just past an entry bundle, appends more, and requires the log to be
// exactly the log of all leaves in order: same root (an independent
// RFC 6962 computation), every leaf readable, every tile consistent.
func TestAppenderResume(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 3)
	ctx := context.Background()
	for _, split := range [][2]uint64{{1, 1}, {255, 2}, {256, 300}, {257, 255}, {700, 1}} {
		leaves := testLeaves(split[0] + split[1])
		dir, _ := writeLog(t, signer, leaves[:split[0]])
		w, err := appender.Open(ctx, dir, signer, appender.Options{})
		if err != nil {
			t.Fatalf("%v: open: %v", split, err)
		}
		if w.Size() != split[0] {
			t.Fatalf("%v: reopened log has size %d", split, w.Size())
		}
		idx, err := w.AppendAll(ctx, leaves[split[0]:])
		if err != nil || idx[0] != split[0] {
			t.Fatalf("%v: append after reopening: first index %v, %v", split, idx, err)
		}
		cpRaw, err := w.Close(ctx)
		if err != nil {
			t.Fatalf("%v: close: %v", split, err)
		}
		cp, err := ParseCheckpoint(cpRaw, verifier)
		if err != nil {
			t.Fatal(err)
		}
		if want := naiveRoot(leaves); cp.Status != Verified || cp.Size != uint64(len(leaves)) || !bytes.Equal(cp.Root, want) {
			t.Fatalf("%v: checkpoint %+v, want size %d root %x", split, cp, len(leaves), want)
		}
		checkReader(t, dir, leaves, cp.Root)
	}
}
