package record

import (
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
	doc, err := os.ReadFile("../docs/FORMAT.md")
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
