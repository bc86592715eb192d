package tlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"
)

func signedNote(t testing.TB, signer note.Signer, text string) []byte {
	t.Helper()
	b, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseCheckpointValid(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 1)
	other, otherV := testKey(t, "witness.example/w1", 7)
	root := sha256.Sum256([]byte("root"))
	b64 := base64.StdEncoding.EncodeToString(root[:])

	raw, err := SignCheckpoint(signer, testOrigin, 12345, root[:])
	if err != nil {
		t.Fatal(err)
	}
	wantText := testOrigin + "\n12345\n" + b64 + "\n"
	if !strings.HasPrefix(string(raw), wantText+"\n\u2014 "+testOrigin+" ") {
		t.Fatalf("unexpected checkpoint layout:\n%s", raw)
	}
	cp, err := ParseCheckpoint(raw, verifier)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Origin != testOrigin || cp.Size != 12345 || !bytes.Equal(cp.Root, root[:]) || cp.Text != wantText ||
		cp.Status != Verified || !cp.OriginMatchesKey || len(cp.Signatures) != 1 || cp.Signatures[0].KeyName != testOrigin {
		t.Fatalf("parsed %+v", cp)
	}
	if cp.Signatures[0].KeyHash != verifier.KeyHash() {
		t.Fatalf("key hash %08x, want %08x", cp.Signatures[0].KeyHash, verifier.KeyHash())
	}

	// No verifier: unanchored, never verified.
	if cp, err := ParseCheckpoint(raw); err != nil || cp.Status != Unanchored || cp.VerifiedBy != nil {
		t.Fatalf("no verifier: %v %v", cp.Status, err)
	}
	// Only an unrelated verifier: unanchored.
	if cp, err := ParseCheckpoint(raw, otherV); err != nil || cp.Status != Unanchored {
		t.Fatalf("unrelated verifier: %v %v", cp.Status, err)
	}

	// Extension lines and a cosignature by a second key.
	text := testOrigin + "\n7\n" + b64 + "\next one\next two\n"
	two, err := note.Sign(&note.Note{Text: text}, signer, other)
	if err != nil {
		t.Fatal(err)
	}
	cp, err = ParseCheckpoint(two, verifier, otherV)
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size != 7 || len(cp.Extensions) != 2 || cp.Extensions[1] != "ext two" || len(cp.Signatures) != 2 || len(cp.VerifiedBy) != 2 {
		t.Fatalf("parsed %+v", cp)
	}
	// Verified by the cosigner only: verified, but not by the origin's key.
	cp, err = ParseCheckpoint(two, otherV)
	if err != nil || cp.Status != Verified || cp.OriginMatchesKey {
		t.Fatalf("cosigner only: %+v %v", cp, err)
	}

	// Size 0 and the largest uint64.
	for _, s := range []string{"0", "18446744073709551615"} {
		raw := signedNote(t, signer, testOrigin+"\n"+s+"\n"+b64+"\n")
		if _, err := ParseCheckpoint(raw, verifier); err != nil {
			t.Errorf("size %s: %v", s, err)
		}
	}
}

func TestParseCheckpointRejects(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 1)
	root := sha256.Sum256([]byte("root"))
	b64 := base64.StdEncoding.EncodeToString(root[:])
	good := signedNote(t, signer, testOrigin+"\n10\n"+b64+"\n")
	sigBlock := good[bytes.Index(good, []byte("\n\n"))+1:] // "\n— name sig\n"

	body := func(lines ...string) []byte {
		return append([]byte(strings.Join(lines, "\n")+"\n"), sigBlock...)
	}
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "no blank line"},
		{"body only", []byte(testOrigin + "\n10\n" + b64 + "\n"), "no blank line"},
		{"truncated signature", good[:len(good)-10], "signature"},
		{"no signature lines", []byte(testOrigin + "\n10\n" + b64 + "\n\n"), "no signature lines"},
		{"two lines", body(testOrigin, "10"), "need origin, size and root"},
		{"empty origin", body("", "10", b64), "line 1 (origin)"},
		{"leading zero", body(testOrigin, "010", b64), "leading zero"},
		{"negative size", body(testOrigin, "-1", b64), "line 2 (size)"},
		{"plus size", body(testOrigin, "+1", b64), "line 2 (size)"},
		{"hex size", body(testOrigin, "0x10", b64), "line 2 (size)"},
		{"size with space", body(testOrigin, "10 ", b64), "line 2 (size)"},
		{"huge size", body(testOrigin, "18446744073709551616", b64), "64 bits"},
		{"empty size", body(testOrigin, "", b64), "line 2 (size): empty"},
		{"bad base64", body(testOrigin, "10", "!!!"+b64[3:]), "line 3 (root hash): bad base64"},
		{"unpadded base64", body(testOrigin, "10", strings.TrimRight(b64, "=")), "line 3 (root hash)"},
		{"short root", body(testOrigin, "10", base64.StdEncoding.EncodeToString(root[:31])), "31 bytes"},
		{"long root", body(testOrigin, "10", base64.StdEncoding.EncodeToString(append(root[:], 0))), "33 bytes"},
		{"url base64", body(testOrigin, "10", base64.URLEncoding.EncodeToString(bytes.Repeat([]byte{0xfb}, 32))), "line 3 (root hash)"},
		{"control char", body(testOrigin+"\x01", "10", b64), "control character"},
		{"carriage return", body(testOrigin, "10\r", b64), "control character"},
		{"invalid utf8", body(testOrigin+"\xff", "10", b64), "UTF-8"},
		{"sig without dash", []byte(testOrigin + "\n10\n" + b64 + "\n\n- " + testOrigin + " AAAAAAAA\n"), "line 5: signature line does not start"},
		{"sig bad base64", []byte(testOrigin + "\n10\n" + b64 + "\n\n\u2014 " + testOrigin + " ***\n"), "line 5: signature by"},
		{"sig too short", []byte(testOrigin + "\n10\n" + b64 + "\n\n\u2014 " + testOrigin + " AAAA\n"), "too short"},
		{"sig no newline", bytes.TrimSuffix(good, []byte("\n")), "does not end with a newline"},
		{"too big", append(bytes.Repeat([]byte("x"), maxCheckpointSize), good...), "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCheckpoint(tc.raw, verifier)
			if err == nil {
				t.Fatalf("accepted:\n%q", tc.raw)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestSignCheckpointRejects(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	root := make([]byte, 32)
	if _, err := SignCheckpoint(signer, testOrigin, 1, root[:31]); err == nil {
		t.Error("31-byte root accepted")
	}
	if _, err := SignCheckpoint(signer, "two\nlines", 1, root); err == nil {
		t.Error("multi-line origin accepted")
	}
	if _, err := SignCheckpoint(nil, testOrigin, 1, root); err == nil {
		t.Error("nil signer accepted")
	}
}

func TestVerifyRejectsBadHashSizesAndSizeZero(t *testing.T) {
	t.Parallel()
	leaves := testLeaves(5)
	root := naiveRoot(leaves)
	r3 := naiveRoot(leaves[:3])
	// Independent proof of leaf 4 in a 5-leaf tree: its sibling is the
	// root of leaves 0..3 (RFC 6962 section 2.1.1).
	p := [][]byte{naiveRoot(leaves[:4])}
	if err := VerifyInclusion(leaves[4], 4, 5, p, root); err != nil {
		t.Fatalf("hand-built proof: %v", err)
	}
	if err := VerifyInclusion(leaves[4], 4, 5, [][]byte{p[0][:31]}, root); err == nil {
		t.Error("31-byte proof element accepted")
	}
	if err := VerifyInclusion(leaves[4], 4, 5, p, root[:16]); err == nil {
		t.Error("16-byte root accepted")
	}
	if err := VerifyConsistency(0, 5, nil, naiveRoot(nil), root); err == nil {
		t.Error("consistency from size 0 accepted")
	}
	if err := VerifyConsistency(3, 3, nil, r3, r3); err != nil {
		t.Errorf("equal sizes, equal roots: %v", err)
	}
	if err := VerifyConsistency(3, 3, nil, r3, root); err == nil {
		t.Error("equal sizes, different roots accepted")
	}
	if err := VerifyConsistency(5, 3, nil, root, r3); err == nil {
		t.Error("shrinking tree accepted")
	}
}
