package seedgen

import (
	"bytes"
	"testing"
)

func TestSameSeedSameOutputs(t *testing.T) {
	a, b, c := New(1, "d"), New(1, "d"), New(2, "d")
	ida, idb, idc := a.ID(1772442000123456789), b.ID(1772442000123456789), c.ID(1772442000123456789)
	if ida != idb || ida == idc {
		t.Errorf("ids: %s %s %s", ida, idb, idc)
	}
	if !ida.IsV7() {
		t.Errorf("%s is not a UUIDv7", ida)
	}
	// The first 48 bits are the millisecond timestamp.
	if got := uint64(ida[0])<<40 | uint64(ida[1])<<32 | uint64(ida[2])<<24 | uint64(ida[3])<<16 | uint64(ida[4])<<8 | uint64(ida[5]); got != 1772442000123 {
		t.Errorf("timestamp bits %d", got)
	}
	if !bytes.Equal(a.Key("user"), b.Key("user")) || bytes.Equal(a.Key("user"), a.Key("agent:x")) || bytes.Equal(a.Key("user"), c.Key("user")) {
		t.Error("keys are not per seed and principal")
	}
	if New(1, "d").Derive("x") == New(1, "other").Derive("x") {
		t.Error("domains are not separated")
	}
	sa, va, err := a.NoteKey("o")
	if err != nil {
		t.Fatal(err)
	}
	_, vb, _ := b.NoteKey("o")
	if va != vb || sa.Name() != "o" {
		t.Errorf("note keys differ for the same seed: %s %s", va, vb)
	}
}
