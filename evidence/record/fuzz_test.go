package record_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/memscope/memscope/evidence/record"
)

// Seed corpora: testdata/fuzz/<Name>/, written by
// `go run ./record/testdata/genseeds` from generated scenarios.

// checkDecoded is the property every decoder must have: a rejection is a
// FieldError of the right kind, and an accepted record re-encodes to exactly
// the input bytes (the encoding is canonical, so nothing was dropped or
// normalised).
// fuzzDecoder fuzzes one record decoder from seed: every input either
// fails cleanly or decodes to a record that checkDecoded accepts.
func fuzzDecoder[T any](f *testing.F, kind string, seed []byte, decode func([]byte) (*T, error)) {
	f.Add(seed)
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := decode(raw)
		checkDecoded(t, kind, raw, rec, err)
	})
}

func checkDecoded[T any](t *testing.T, kind string, raw []byte, rec *T, err error) {
	t.Helper()
	if err != nil {
		if rec != nil {
			t.Fatalf("record returned with error %v", err)
		}
		var fe *record.FieldError
		if !errors.As(err, &fe) || fe.Kind != kind {
			t.Fatalf("error %v (%T) is not a %s FieldError", err, err, kind)
		}
		return
	}
	again, err := record.Encode(rec)
	if err != nil {
		t.Fatalf("accepted record does not re-encode: %v", err)
	}
	if !bytes.Equal(again, raw) {
		t.Fatalf("accepted record re-encodes differently\n  in %x\n out %x", raw, again)
	}
	if _, err := record.SigningBytes(rec); err != nil {
		t.Fatalf("accepted record has no signing bytes: %v", err)
	}
}

func FuzzDecodeEntry(f *testing.F) {
	e, _ := signedEntry(f)
	f.Add(mustEncode(f, e))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := record.DecodeEntry(raw)
		checkDecoded(t, record.KindEntry, raw, rec, err)
		if err == nil && (rec.Trust > record.External || !rec.EID.IsV7() || len(rec.Sig) != record.SignatureSize) {
			t.Fatalf("accepted an invalid entry: %+v", rec)
		}
	})
}

func FuzzDecodeWrite(f *testing.F) {
	w, _ := signedWrite(f)
	f.Add(mustEncode(f, w))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := record.DecodeWrite(raw)
		checkDecoded(t, "write", raw, rec, err)
		if err == nil && !(rec.Weight >= 0) {
			t.Fatalf("accepted weight %v", rec.Weight)
		}
	})
}

func FuzzDecodePrincipalEvent(f *testing.F) {
	p, _ := signedPrincipal(f)
	f.Add(mustEncode(f, p))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := record.DecodePrincipalEvent(raw)
		checkDecoded(t, record.KindPrincipal, raw, rec, err)
	})
}

func FuzzDecodeTombstone(f *testing.F) {
	ts, _ := signedTombstone(f)
	f.Add(mustEncode(f, ts))
	f.Fuzz(func(t *testing.T, raw []byte) {
		rec, err := record.DecodeTombstone(raw)
		checkDecoded(t, record.KindTombstone, raw, rec, err)
	})
}

// FuzzParseLeaf: every accepted leaf is rebuilt byte for byte from what
// ParseLeaf returned.
func FuzzParseLeaf(f *testing.F) {
	e, _ := signedEntry(f)
	f.Add(record.RecordLeaf(e.EID, e.Sig))
	ts, _ := signedTombstone(f)
	tl, err := record.TombstoneLeaf(ts)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tl)
	f.Fuzz(func(t *testing.T, leaf []byte) {
		pl, err := record.ParseLeaf(leaf)
		switch {
		case err != nil:
			if pl.Kind != record.LeafMalformed {
				t.Fatalf("error %v with kind %v", err, pl.Kind)
			}
		case pl.Kind == record.LeafRecord:
			if !bytes.Equal(record.RecordLeaf(pl.ID, pl.Sig), leaf) || !pl.ID.IsV7() {
				t.Fatalf("record leaf %x does not rebuild", leaf)
			}
		case pl.Kind == record.LeafTombstone:
			again, err := record.TombstoneLeaf(pl.Tombstone)
			if err != nil || !bytes.Equal(again, leaf) || pl.ID != pl.Tombstone.Target {
				t.Fatalf("tombstone leaf %x does not rebuild: %v", leaf, err)
			}
		default:
			t.Fatalf("no error but kind %v", pl.Kind)
		}
	})
}
