package record_test

import (
	"crypto/ed25519"
	"testing"

	"github.com/memscope/memscope/evidence/record"
)

// signedStoreRecords are one signed record of each store-record kind, as
// the writer's operator signs them (seeds for the fuzzers below).
func signedStoreRecords(t testing.TB) (*record.Config, *record.CheckpointSeen, *record.Vector) {
	t.Helper()
	key := testKey(13)
	kid := record.KeyIDOf(key.Public().(ed25519.PublicKey))
	c := &record.Config{V: record.FormatVersion, Kind: record.KindConfig, Name: "gate_mediated_since", Rev: 1, Value: "1772442100000000000",
		Writer: "tool:commit-gate", KID: kid, TS: 1772442200000000000, Nonce: [16]byte{8}}
	cp := &record.CheckpointSeen{V: record.FormatVersion, Kind: record.KindCheckpoint, Name: "3", NoteHash: [32]byte{1}, SeenAt: 1772442150000000000,
		Writer: "tool:commit-gate", KID: kid, TS: 1772442200000000000, Nonce: [16]byte{9}}
	v := &record.Vector{V: record.FormatVersion, Kind: record.KindVector, Name: "1", EID: v7(1), ContentHash: [32]byte{2}, Dim: 8, VecHash: [32]byte{3},
		Writer: "tool:commit-gate", KID: kid, TS: 1772442200000000000, Nonce: [16]byte{10}}
	for _, r := range []any{c, cp, v} {
		if err := record.Sign(r, key); err != nil {
			t.Fatal(err)
		}
	}
	return c, cp, v
}

// The seeds decode as their kinds, and the checks on names and bounds
// refuse what the writer never writes.
func TestStoreRecordsDecode(t *testing.T) {
	c, cp, v := signedStoreRecords(t)
	if _, err := record.DecodeConfig(mustEncode(t, c)); err != nil {
		t.Error(err)
	}
	if _, err := record.DecodeCheckpointSeen(mustEncode(t, cp)); err != nil {
		t.Error(err)
	}
	if _, err := record.DecodeVector(mustEncode(t, v)); err != nil {
		t.Error(err)
	}
	c.Rev = 0
	if _, err := record.DecodeConfig(mustEncode(t, c)); err == nil {
		t.Error("revision 0 accepted")
	}
	cp.Name = "03"
	if _, err := record.DecodeCheckpointSeen(mustEncode(t, cp)); err == nil {
		t.Error("a name that is not a seq in decimal accepted")
	}
	v.Dim = 0
	if _, err := record.DecodeVector(mustEncode(t, v)); err == nil {
		t.Error("dim 0 accepted")
	}
	if record.ConfigID("a", 1) == record.ConfigID("a", 2) || record.ConfigID("a", 1) == record.EventID(record.KindConfig, "a") {
		t.Error("config revisions share a log id")
	}
	pl, err := record.ParseLeaf(record.EventLeaf(record.KindCheckpoint, record.EventID(record.KindCheckpoint, "3"), make([]byte, 64)))
	if err != nil || pl.Kind != record.LeafEvent || pl.EventKind != record.KindCheckpoint {
		t.Errorf("checkpoint leaf parsed as %+v, %v", pl, err)
	}
}

func FuzzDecodeConfig(f *testing.F) {
	c, _, _ := signedStoreRecords(f)
	fuzzDecoder(f, record.KindConfig, mustEncode(f, c), record.DecodeConfig)
}

func FuzzDecodeCheckpointSeen(f *testing.F) {
	_, cp, _ := signedStoreRecords(f)
	fuzzDecoder(f, record.KindCheckpoint, mustEncode(f, cp), record.DecodeCheckpointSeen)
}

func FuzzDecodeVector(f *testing.F) {
	_, _, v := signedStoreRecords(f)
	fuzzDecoder(f, record.KindVector, mustEncode(f, v), record.DecodeVector)
}
