package tlog

import (
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/transparency-dev/tessera/api/layout"

	"github.com/memscope/memscope/evidence/tlog/appender"

	"github.com/memscope/memscope/internal/evidencetest"
)

// Same leaves and key give byte-identical directories, however the leaves
// were fed in (one by one, in batches, with Flushes that make Tessera
// write intermediate partial tiles).
func TestDeterministicDirectory(t *testing.T) {
	t.Parallel()
	// The appender hands leaves to Tessera in chunks of this many.
	const submitChunk = 8 * layout.EntryBundleWidth
	signer, _ := testKey(t, testOrigin, 1)
	const n = 2*submitChunk + 300
	leaves := testLeaves(n)
	ctx := context.Background()

	dirA := filepath.Join(t.TempDir(), "a")
	cpA := writeLogAt(t, dirA, signer, leaves)

	dirB := filepath.Join(t.TempDir(), "b")
	w, err := appender.Create(ctx, dirB, signer)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range leaves {
		idx, err := w.Append(ctx, l)
		if err != nil || idx != uint64(i) {
			t.Fatalf("Append %d: %d %v", i, idx, err)
		}
		// Flush at odd sizes: Tessera then writes partial bundles and
		// tiles (e.g. 100 entries) that the final tree does not use.
		if i == 99 || i == 1000 || i == submitChunk+7 {
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	cpB, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cpA, cpB) {
		t.Fatalf("checkpoints differ:\n%s\n%s", cpA, cpB)
	}
	a, b := evidencetest.HashTree(t, dirA), evidencetest.HashTree(t, dirB)
	if d := diffDigests(a, b); len(d) != 0 {
		sort.Strings(d)
		t.Fatalf("directories differ: %v", d)
	}
	// The comparison would be vacuous on an empty tree.
	if len(a) < 20 {
		t.Fatalf("only %d entries in the log directory", len(a))
	}
	// 4396 leaves = 17 full bundles + 44: the only partial resources the
	// final tree uses are these three; Flush made Tessera write others.
	want := map[string]bool{"tile/0/017.p/44": true, "tile/entries/017.p/44": true, "tile/1/000.p/17": true}
	for p, kind := range a {
		if kind != "dir" && filepath.Ext(filepath.Dir(p)) == ".p" && !want[filepath.ToSlash(p)] {
			t.Errorf("stale partial %s kept", p)
		}
	}
	for p := range want {
		if _, ok := a[filepath.FromSlash(p)]; !ok {
			t.Errorf("final partial %s missing", p)
		}
	}
}

// The checkpoint Close returns is exactly SignCheckpoint over the writer's
// own root: the two code paths (Tessera's publisher and ours) agree.
func TestCloseCheckpointMatchesSignCheckpoint(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 1)
	leaves := testLeaves(1000)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "log")
	w, err := appender.Create(ctx, dir, signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendAll(ctx, leaves[:400]); err != nil {
		t.Fatal(err)
	}
	size400, root400, err := w.Root()
	if err != nil || size400 != 400 || !bytes.Equal(root400, naiveRoot(leaves[:400])) {
		t.Fatalf("Root at 400: %d %x %v", size400, root400, err)
	}
	hist, err := SignCheckpoint(signer, signer.Name(), size400, root400)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendAll(ctx, leaves[400:]); err != nil {
		t.Fatal(err)
	}
	size, root, _ := w.Root()
	cp, err := w.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := SignCheckpoint(signer, signer.Name(), size, root)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(cp, mine) {
		t.Fatalf("Close returned\n%s\nSignCheckpoint gives\n%s", cp, mine)
	}
	if _, err := w.Append(ctx, []byte("late")); err == nil {
		t.Error("Append after Close succeeded")
	}
	if _, err := w.Close(ctx); err == nil {
		t.Error("second Close succeeded")
	}
	// The historical checkpoint is consistent with the final one.
	h, err := ParseCheckpoint(hist, verifier)
	if err != nil || h.Status != Verified {
		t.Fatal(h, err)
	}
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.ConsistencyProof(ctx, 400, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyConsistency(400, 1000, p, h.Root, root); err != nil {
		t.Fatal(err)
	}
}

func TestCreateRefusesNonEmptyDir(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	dir, _ := writeLog(t, signer, testLeaves(3))
	if _, err := appender.Create(context.Background(), dir, signer); err == nil {
		t.Fatal("Create over an existing log succeeded")
	}
}

func TestAppendRejectsOversizedLeaf(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	ctx := context.Background()
	w, err := appender.Create(ctx, filepath.Join(t.TempDir(), "log"), signer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, make([]byte, appender.MaxLeafSize+1)); err == nil {
		t.Fatal("oversized leaf accepted")
	}
	if _, err := w.Append(ctx, make([]byte, appender.MaxLeafSize)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
}
