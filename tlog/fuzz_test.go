package tlog

import (
	"bytes"
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
