package tlog

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/transparency-dev/tessera/api/layout"

	"github.com/memscope/memscope/internal/evidencetest"
)

// 3000 leaves: 11 full bundles and tiles, partial bundle/tile of 184 at
// level 0, a partial level-1 tile of 11 hashes.
const tamperN = 3000

func copyTree(t *testing.T, src string) string {
	t.Helper()
	return copyTreeTB(t, src)
}

func copyTreeTB(t testing.TB, src string) string {
	t.Helper()
	return evidencetest.CopyTree(t, src)
}

func flipByte(t *testing.T, path string, offset int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[offset] ^= 0x01
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func truncateFile(t *testing.T, path string, n int64) {
	t.Helper()
	if err := os.Truncate(path, n); err != nil {
		t.Fatal(err)
	}
}

func TestCheckDetectsTampering(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 1)
	leaves := testLeaves(tamperN)
	pristine, cpRaw := writeLog(t, signer, leaves)
	cp, err := ParseCheckpoint(cpRaw, verifier)
	if err != nil || cp.Status != Verified {
		t.Fatal(cp, err)
	}
	ctx := context.Background()
	bundle3 := layout.EntriesPath(3, 0)
	lastPartialTile := layout.TilePath(0, 11, 184)
	lastPartialBundle := layout.EntriesPath(11, 184)

	for _, tc := range []struct {
		name   string
		tamper func(dir string)
		// every (resource prefix, text) pair must be reported
		want [][2]string
		// an inclusion proof of this leaf must fail (error or not verify)
		badProofLeaf int64
	}{
		{
			name:         "flipped byte in hash tile",
			tamper:       func(d string) { flipByte(t, filepath.Join(d, "tile/0/005"), 32*17+3) },
			want:         [][2]string{{"tile/0/005", "hash tile was altered"}, {"tile/0/005", "hash 17 is"}},
			badProofLeaf: 5*256 + 16, // leaf 17's sibling
		},
		{
			name:         "flipped byte in level-1 partial tile",
			tamper:       func(d string) { flipByte(t, filepath.Join(d, layout.TilePath(1, 0, 11)), 32*4) },
			want:         [][2]string{{layout.TilePath(1, 0, 11), "hash 4 (leaves 1024..1279)"}},
			badProofLeaf: 5 * 256,
		},
		{
			name: "flipped byte in entry bundle",
			// skip the 2-byte length prefix of entry 0
			tamper:       func(d string) { flipByte(t, filepath.Join(d, bundle3), 10) },
			want:         [][2]string{{"tile/0/003", "entry bundle differs"}, {"tile/0/003", bundle3}, {"tile/1/000.p/11", "hash 3"}, {"root", "recomputed from the entry bundles"}},
			badProofLeaf: -1,
		},
		{
			name:         "truncated full tile",
			tamper:       func(d string) { truncateFile(t, filepath.Join(d, "tile/0/002"), 100) },
			want:         [][2]string{{"tile/0/002", "not a multiple of 32"}},
			badProofLeaf: 2*256 + 1,
		},
		{
			name:         "truncated partial tile",
			tamper:       func(d string) { truncateFile(t, filepath.Join(d, lastPartialTile), 32*100) },
			want:         [][2]string{{lastPartialTile, "holds 100 hashes, tree needs 184"}},
			badProofLeaf: 11*256 + 150,
		},
		{
			name: "truncated entry bundle",
			// cut 5 bytes into the data of the bundle's second entry
			tamper:       func(d string) { truncateFile(t, filepath.Join(d, lastPartialBundle), int64(2+len(leaves[11*256])+2+5)) },
			want:         [][2]string{{lastPartialBundle, "leaf 2817: length"}, {lastPartialBundle, "runs past the end"}},
			badProofLeaf: -1,
		},
		{
			name: "padded full tile",
			tamper: func(d string) {
				f, _ := os.OpenFile(filepath.Join(d, "tile/0/004"), os.O_APPEND|os.O_WRONLY, 0)
				f.Write(make([]byte, 32))
				f.Close()
			},
			want:         [][2]string{{"tile/0/004", "holds 257 hashes, tree needs 256"}},
			badProofLeaf: 4 * 256,
		},
		{
			name:         "emptied full tile",
			tamper:       func(d string) { truncateFile(t, filepath.Join(d, "tile/0/001"), 0) },
			want:         [][2]string{{"tile/0/001", "holds 0 hashes"}},
			badProofLeaf: 256 + 9,
		},
		{
			name:         "emptied full bundle",
			tamper:       func(d string) { truncateFile(t, filepath.Join(d, "tile/entries/001"), 0) },
			want:         [][2]string{{"tile/entries/001", "holds 0 entries, its name says 256"}},
			badProofLeaf: -1,
		},
		{
			name:         "missing hash tile",
			tamper:       func(d string) { os.Remove(filepath.Join(d, "tile/0/007")) },
			want:         [][2]string{{"tile/0/007", "no such file"}},
			badProofLeaf: 7 * 256,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, pristine)
			tc.tamper(dir)
			r, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			probs, err := r.Check(ctx, tamperN, cp.Root)
			if err != nil {
				t.Fatal(err)
			}
			if len(probs) == 0 {
				t.Fatal("tampering not detected")
			}
			t.Logf("problems:\n%s", problemList(probs))
			for _, w := range tc.want {
				if !hasProblem(probs, w[0], w[1]) {
					t.Errorf("no problem on %s mentioning %q; got:\n%s", w[0], w[1], problemList(probs))
				}
			}
			if tc.badProofLeaf >= 0 {
				i := uint64(tc.badProofLeaf)
				proves := func(r *Reader) bool {
					p, err := r.InclusionProof(ctx, i, tamperN)
					return err == nil && VerifyInclusion(leaves[i], i, tamperN, p, cp.Root) == nil
				}
				fresh, err := Open(ctx, dir)
				if err != nil {
					t.Fatal(err)
				}
				if proves(fresh) {
					t.Errorf("inclusion proof of leaf %d from the stored tiles still verifies", i)
				}
				// After Check: when only hash tiles were damaged, the
				// bundles reached the root and the proof uses the
				// recomputed hashes (the leaf is in the signed tree);
				// otherwise nothing was repaired.
				tilesOnly := true
				for _, p := range probs {
					tilesOnly = tilesOnly && p.Level >= 0
				}
				if got := proves(r); got != tilesOnly {
					t.Errorf("after Check, inclusion proof of leaf %d verifies: %v; want %v (only hash tiles damaged: %v)", i, got, tilesOnly, tilesOnly)
				}
			}
		})
	}
}

func problemList(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

func TestCheckWrongRootAndForeignCheckpoint(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 1)
	other, _ := testKey(t, testOrigin, 99) // same name, different key
	leaves := testLeaves(600)
	dir, cpRaw := writeLog(t, signer, leaves)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	good, _ := ParseCheckpoint(cpRaw, verifier)

	// A properly signed checkpoint with a root the log does not have.
	wrongRoot := bytes.Clone(good.Root)
	wrongRoot[0] ^= 0xff
	bad, err := SignCheckpoint(signer, testOrigin, 600, wrongRoot)
	if err != nil {
		t.Fatal(err)
	}
	badCP, err := ParseCheckpoint(bad, verifier)
	if err != nil || badCP.Status != Verified {
		t.Fatalf("re-signed checkpoint: %v %v", badCP.Status, err)
	}
	probs, err := r.Check(ctx, 600, badCP.Root)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Resource != "root" {
		t.Fatalf("want exactly the root problem, got:\n%s", problemList(probs))
	}

	// Signed by another key with the same name: not verified by ours.
	foreign, err := SignCheckpoint(other, testOrigin, 600, good.Root)
	if err != nil {
		t.Fatal(err)
	}
	fcp, err := ParseCheckpoint(foreign, verifier)
	if err != nil || fcp.Status != Unanchored || len(fcp.VerifiedBy) != 0 {
		t.Fatalf("foreign checkpoint: %+v %v", fcp, err)
	}

	// Body edited after signing: our key's signature no longer verifies.
	edited := bytes.Replace(cpRaw, []byte("\n600\n"), []byte("\n599\n"), 1)
	ecp, err := ParseCheckpoint(edited, verifier)
	if err != nil || ecp.Status != SigInvalid {
		t.Fatalf("edited checkpoint: %v %v", ecp.Status, err)
	}
	// Without verifiers the edited one is merely unanchored.
	if ecp, err := ParseCheckpoint(edited); err != nil || ecp.Status != Unanchored {
		t.Fatalf("edited checkpoint without verifier: %v %v", ecp.Status, err)
	}
}

func TestReaderLeavesDirectoryUnchanged(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	leaves := testLeaves(700)
	dir, cpRaw := writeLog(t, signer, leaves)
	before := evidencetest.HashTree(t, dir)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := ParseCheckpoint(cpRaw)
	for _, err := range r.Leaves(ctx, 0, 700) {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.InclusionProof(ctx, 5, 700); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ConsistencyProof(ctx, 300, 700); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RootAt(ctx, 300); err != nil {
		t.Fatal(err)
	}
	if probs, err := r.Check(ctx, 700, cp.Root); err != nil || len(probs) != 0 {
		t.Fatal(probs, err)
	}
	if d := diffDigests(before, evidencetest.HashTree(t, dir)); len(d) != 0 {
		t.Fatalf("reading changed the log directory: %v", d)
	}
}

func TestReaderErrors(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	dir, cpRaw := writeLog(t, signer, testLeaves(300))
	ctx := context.Background()
	if _, err := Open(ctx, filepath.Join(dir, "nope")); err == nil {
		t.Error("Open of a missing directory succeeded")
	}
	if _, err := Open(ctx, filepath.Join(dir, "checkpoint")); err == nil {
		t.Error("Open of a file succeeded")
	}
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.InclusionProof(ctx, 300, 300); err == nil {
		t.Error("inclusion proof for a leaf outside the tree")
	}
	if _, err := r.InclusionProof(ctx, 1, 301); err == nil || !strings.Contains(err.Error(), "larger than the published") {
		t.Errorf("inclusion proof past the checkpoint: %v", err)
	}
	if _, err := r.ConsistencyProof(ctx, 0, 300); err == nil {
		t.Error("consistency proof from size 0")
	}
	if _, err := r.ConsistencyProof(ctx, 200, 100); err == nil {
		t.Error("consistency proof with smaller > larger")
	}
	cp, _ := ParseCheckpoint(cpRaw)
	if _, err := r.Check(ctx, 300, cp.Root[:31]); err == nil {
		t.Error("Check with a 31-byte root")
	}
	for _, err := range r.Leaves(ctx, 0, 301) {
		if err == nil {
			t.Error("streaming past the checkpoint")
		}
	}
	// A missing tile is reported with its path.
	os.Remove(filepath.Join(dir, "tile/0/000"))
	r2, _ := Open(ctx, dir)
	_, err = r2.InclusionProof(ctx, 3, 300)
	if err == nil || !strings.Contains(err.Error(), "tile/0/000") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing tile error does not name tile/0/000: %v", err)
	}
}

func TestHTTPErrorsNameTheURL(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	dir, _ := writeLog(t, signer, testLeaves(300))
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	ctx := context.Background()
	r, err := Open(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "tile/0/000"))
	truncateFile(t, filepath.Join(dir, "tile/entries/001.p/44"), 3)
	_, err = r.InclusionProof(ctx, 3, 300)
	if err == nil || !strings.Contains(err.Error(), srv.URL+"/tile/0/000") || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing tile over HTTP: %v", err)
	}
	var streamErr error
	for _, err := range r.Leaves(ctx, 0, 300) {
		streamErr = err
	}
	if streamErr == nil || !strings.Contains(streamErr.Error(), srv.URL+"/tile/entries/001.p/44") {
		t.Errorf("truncated bundle over HTTP: %v", streamErr)
	}
	if _, err := Open(ctx, srv.URL+"/nothing-here/"); err == nil {
		t.Error("Open of a URL without a checkpoint succeeded")
	}
}
