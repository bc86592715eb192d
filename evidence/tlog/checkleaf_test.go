package tlog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
)

// CheckLeaf must answer exactly what a per-leaf inclusion proof answers,
// for every leaf, on an intact log and on logs whose tiles were altered.
func TestCheckLeafAgreesWithProofs(t *testing.T) {
	t.Parallel()
	const n = 3*256 + 77 // three full tiles and a partial one
	signer, _ := testKey(t, testOrigin, 1)
	leaves := testLeaves(n)
	pristine, cpRaw := writeLog(t, signer, leaves)
	cp, err := ParseCheckpoint(cpRaw)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		tamper func(dir string)
	}{
		{"intact", func(string) {}},
		{"flipped leaf hash in a full tile", func(d string) { flipByte(t, filepath.Join(d, "tile/0/001"), 40*HashSize+3) }},
		{"flipped hash in the level-1 tile", func(d string) { flipByte(t, filepath.Join(d, "tile/1/000.p/3"), HashSize+1) }},
		{"missing full tile", func(d string) { os.Remove(filepath.Join(d, "tile/0/002")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, pristine)
			tc.tamper(dir)
			r, err := Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			fails := 0
			for i := uint64(0); i < n; i++ {
				h := rfc6962.DefaultHasher.HashLeaf(leaves[i])
				p, perr := r.InclusionProof(ctx, i, n)
				want := perr == nil && VerifyInclusionHash(h, i, n, p, cp.Root) == nil
				ok, err := r.CheckLeaf(ctx, h, i, n, cp.Root)
				if (err != nil) != (perr != nil) || ok != want {
					t.Fatalf("leaf %d: CheckLeaf ok=%v err=%v, proof ok=%v err=%v", i, ok, err, want, perr)
				}
				if !ok {
					fails++
				}
				// Another leaf's hash is never included at i.
				other := rfc6962.DefaultHasher.HashLeaf(leaves[(i+1)%n])
				if ok, _ := r.CheckLeaf(ctx, other, i, n, cp.Root); ok {
					t.Fatalf("leaf %d: a foreign leaf hash passes", i)
				}
			}
			if (tc.name == "intact") != (fails == 0) {
				t.Fatalf("%d of %d leaves fail", fails, n)
			}
		})
	}
}
