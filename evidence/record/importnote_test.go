package record_test

import (
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/memscope/memscope/evidence/record"
)

// signedImportNote is an import note as the importer writes it.
func signedImportNote(t testing.TB, inputID, declared string) *record.ImportNote {
	t.Helper()
	key := testKey(13)
	n := &record.ImportNote{V: record.FormatVersion, Kind: record.KindImportNote, Name: v7(2).String(), InputID: inputID, Declared: declared,
		Writer: "tool:graphrag", KID: record.KeyIDOf(key.Public().(ed25519.PublicKey)), TS: 1767225600001000000, Nonce: [16]byte{9}}
	if err := record.Sign(n, key); err != nil {
		t.Fatal(err)
	}
	return n
}

// A note decodes when it names a write by canonical id and says something
// (an input id, a declared label or both); every other shape is refused
// naming the field.
func TestDecodeImportNote(t *testing.T) {
	for _, c := range []struct {
		inputID, declared string
		field             string // "" accepted
	}{
		{"rel-1", "authenticated", ""},
		{"", "unauthenticated", ""},
		{"rel-1", "", ""},
		{"", "", ""}, // says nothing: refused as a whole
		{"rel-1", "trusted", "declared"},
	} {
		n := signedImportNote(t, c.inputID, c.declared)
		_, err := record.DecodeImportNote(mustEncode(t, n))
		var fe *record.FieldError
		switch {
		case c.inputID == "" && c.declared == "":
			if !errors.As(err, &fe) || fe.Field != "" {
				t.Errorf("empty note: %v", err)
			}
		case c.field == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%+v: err %v, want field %s", c, err, c.field)
		}
	}
	n := signedImportNote(t, "x", "")
	n.Name = "not-a-write-id"
	if _, err := record.DecodeImportNote(mustEncode(t, n)); err == nil {
		t.Error("a note naming no write id decoded")
	}
}

func FuzzDecodeImportNote(f *testing.F) {
	f.Add(mustEncode(f, signedImportNote(f, "rel-1", "unauthenticated")))
	fuzzDecoder(f, record.KindImportNote, mustEncode(f, signedImportNote(f, "", "authenticated")), record.DecodeImportNote)
}
