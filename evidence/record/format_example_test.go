package record

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// TestFormatExampleMatchesDocs rebuilds the worked example of docs/FORMAT.md
// from the values the document states and requires every hex line there to
// match, so the document cannot drift from the code.
func TestFormatExampleMatchesDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin, end := strings.Index(text, "<!-- example:begin -->"), strings.Index(text, "<!-- example:end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/FORMAT.md has no example block")
	}
	want := map[string]string{}
	for _, line := range strings.Split(text[begin:end], "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			want[strings.Join(f[:len(f)-1], " ")] = f[len(f)-1]
		}
	}
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	pub := priv.Public().(ed25519.PublicKey)
	eid, _ := ParseID("019cadc6-ccd9-7710-a72a-5ee5b987d9d9")
	parent, _ := ParseID("019cadc6-c2b9-728d-9b2b-96cf756d008f")
	e := &Entry{V: 1, Kind: KindEntry, EID: eid, Content: "hi", Writer: "agent:planner", KID: KeyIDOf(pub),
		Trust: DerivedTrusted, Parents: []ID{parent}, Weights: []float64{0.5}, TS: 1772442000000000000}
	for i := range e.HSrc {
		e.HSrc[i], e.HCtx[i] = 0xaa, 0xbb
	}
	for i := range e.Nonce {
		e.Nonce[i] = byte(i)
	}
	if err := Sign(e, priv); err != nil {
		t.Fatal(err)
	}
	signing, err := SigningBytes(e)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{
		"public key":    hex.EncodeToString(pub),
		"kid":           hex.EncodeToString(e.KID[:]),
		"signing bytes": hex.EncodeToString(signing),
		"signature":     hex.EncodeToString(e.Sig),
		"record":        hex.EncodeToString(full),
		"leaf":          hex.EncodeToString(RecordLeaf(e.EID, e.Sig)),
	}
	for k, v := range got {
		if want[k] != v {
			t.Errorf("docs/FORMAT.md %s:\n doc  %s\n code %s", k, want[k], v)
		}
	}
	if _, err := DecodeEntry(full); err != nil {
		t.Errorf("the documented record does not decode: %v", err)
	}
}

// TestSigningBytesOfMatchesReencoding: the splice of the canonical bytes
// equals the signing bytes computed by re-encoding, for every record kind.
func TestSigningBytesOfMatchesReencoding(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	eid, _ := ParseID("019cadc6-ccd9-7710-a72a-5ee5b987d9d9")
	recs := []any{
		&Entry{V: 1, Kind: KindEntry, EID: eid, Content: "text with \x63sig\x58\x40 inside", Writer: "user", Parents: []ID{}, Weights: []float64{}},
		&Write{V: 1, Kind: KindEdge, WID: eid, Src: "a", Dst: "b", Rel: "r", Weight: 60, Writer: "agent:x", Sources: []ID{}},
		&PrincipalEvent{V: 1, Kind: KindPrincipal, RID: eid, Op: OpRegister, Principal: "user", Channel: ChannelAuthenticated},
		&Tombstone{V: 1, Kind: KindTombstone, Target: eid, Reason: "r", Writer: "user"},
	}
	for _, r := range recs {
		if err := Sign(r, priv); err != nil {
			t.Fatal(err)
		}
		raw, err := Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := SigningBytes(r)
		sig := reflectSig(r)
		got, err := SigningBytesOf(raw, sig)
		if err != nil {
			t.Fatalf("%T: %v", r, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%T: splice %x\n re-encode %x", r, got, want)
		}
		if !ed25519.Verify(priv.Public().(ed25519.PublicKey), got, sig) {
			t.Errorf("%T: signature does not verify over the spliced bytes", r)
		}
		other := append([]byte{}, sig...)
		other[0] ^= 1
		if _, err := SigningBytesOf(raw, other); err == nil {
			t.Errorf("%T: a signature not in the record was found", r)
		}
	}
}

func reflectSig(r any) []byte {
	switch v := r.(type) {
	case *Entry:
		return v.Sig
	case *Write:
		return v.Sig
	case *PrincipalEvent:
		return v.Sig
	case *Tombstone:
		return v.Sig
	}
	return nil
}
