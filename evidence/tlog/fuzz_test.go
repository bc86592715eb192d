package tlog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
)

// FuzzParseCheckpoint: never panics, and whatever it accepts satisfies the
// format's invariants. Seeds: testdata/fuzz/FuzzParseCheckpoint (valid
// notes, truncations, bad base64, extra lines, huge sizes).
func FuzzParseCheckpoint(f *testing.F) {
	_, verifier := testKey(f, testOrigin, 1)
	f.Fuzz(func(t *testing.T, raw []byte) {
		cp, err := ParseCheckpoint(raw, verifier)
		bare, bareErr := ParseCheckpoint(raw)
		if (err == nil) != (bareErr == nil) {
			// Only the verifier-dependent branch may differ: note.Open
			// errors other than unverified/invalid are reported as errors.
			if err == nil {
				t.Fatalf("accepted with a verifier, rejected without: %v", bareErr)
			}
		}
		if bareErr == nil && bare.Status != Unanchored {
			t.Fatalf("status %v without any verifier", bare.Status)
		}
		if err != nil {
			return
		}
		if len(cp.Root) != HashSize {
			t.Fatalf("root of %d bytes accepted", len(cp.Root))
		}
		if cp.Origin == "" || strings.Contains(cp.Origin, "\n") {
			t.Fatalf("origin %q accepted", cp.Origin)
		}
		if !bytes.HasPrefix(raw, []byte(cp.Text)) || !strings.HasSuffix(cp.Text, "\n") {
			t.Fatal("Text is not the signed prefix")
		}
		lines := strings.Split(cp.Text, "\n")
		if lines[1] != strconv.FormatUint(cp.Size, 10) {
			t.Fatalf("size line %q parsed as %d", lines[1], cp.Size)
		}
		if len(cp.Signatures) == 0 {
			t.Fatal("accepted without signatures")
		}
		if cp.Status == Verified {
			if _, err := note.Open(raw, note.VerifierList(verifier)); err != nil {
				t.Fatalf("reported verified, note.Open says %v", err)
			}
		}
	})
}

// FuzzSplitBundle: never panics; accepted bundles re-encode to the input.
func FuzzSplitBundle(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw []byte) {
		entries, err := splitBundle(raw, 3)
		if err != nil {
			return
		}
		if len(entries) > 256 {
			t.Fatalf("%d entries accepted", len(entries))
		}
		var again []byte
		for _, e := range entries {
			again = append(again, byte(len(e)>>8), byte(len(e)))
			again = append(again, e...)
		}
		if !bytes.Equal(again, raw) {
			t.Fatal("entries do not re-encode to the bundle")
		}
	})
}

// FuzzCheckDetectsCorruption: flipping bits in, or truncating, any file
// the tree of the published size uses is always reported by Check, and
// Check never panics or fails outright on such input.
func FuzzCheckDetectsCorruption(f *testing.F) {
	signer, _ := testKey(f, testOrigin, 1)
	const n = 300 // full bundle 000, partial 001.p/44, tile/1/000.p/1
	pristine, cpRaw := writeLog(f, signer, testLeaves(n))
	cp, err := ParseCheckpoint(cpRaw)
	if err != nil {
		f.Fatal(err)
	}
	files := []string{"tile/0/000", "tile/0/001.p/44", "tile/1/000.p/1", "tile/entries/000", "tile/entries/001.p/44"}
	f.Fuzz(func(t *testing.T, which uint8, offset uint32, xor byte, truncate bool) {
		if !truncate && xor == 0 {
			return // no change at all
		}
		dir := copyTreeTB(t, pristine)
		name := filepath.Join(dir, files[int(which)%len(files)])
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		off := int(offset % uint32(len(b)))
		if truncate {
			b = b[:off]
		} else {
			b[off] ^= xor
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		probs, err := r.Check(context.Background(), n, cp.Root)
		if err != nil {
			t.Fatal(err)
		}
		if len(probs) == 0 {
			t.Fatalf("corrupting %s at %d (truncate=%v) went unnoticed", files[int(which)%len(files)], off, truncate)
		}
	})
}
