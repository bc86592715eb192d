package record

import (
	"bytes"
	"fmt"
)

// TombstonePrefix starts every tombstone leaf (MemLineage section 3.4).
var TombstonePrefix = []byte("ts:")

// RecordLeafSize is the size of an entry, write or registry leaf: id || sig.
const RecordLeafSize = 16 + SignatureSize

// RecordLeaf is the log leaf of a signed entry, write or registry event: its
// 16-byte id followed by its 64-byte signature. The signature commits to the
// record's bytes, so the leaf commits to the whole record.
func RecordLeaf(id ID, sig []byte) []byte {
	leaf := make([]byte, 0, RecordLeafSize)
	leaf = append(leaf, id[:]...)
	return append(leaf, sig...)
}

// TombstoneLeaf is "ts:" followed by the tombstone's full encoding.
func TombstoneLeaf(t *Tombstone) ([]byte, error) {
	enc, err := Encode(t)
	if err != nil {
		return nil, err
	}
	return append(append([]byte{}, TombstonePrefix...), enc...), nil
}

// LeafKind classifies a log leaf without the snapshot's help.
type LeafKind int

const (
	LeafMalformed LeafKind = iota
	LeafRecord             // id || sig of an entry, write or registry event
	LeafTombstone
	LeafEvent // kind ":" || id || sig of a query, action, gate event or node
)

// ParsedLeaf is a classified log leaf.
type ParsedLeaf struct {
	Kind      LeafKind
	EventKind string     // record kind of a LeafEvent
	ID        ID         // record id, or the tombstone's target
	Sig       []byte     // record signature (LeafRecord, LeafEvent)
	Tombstone *Tombstone // decoded tombstone (LeafTombstone)
}

// ParseLeaf classifies a leaf. A record leaf is exactly 80 bytes whose id is
// a UUIDv7; a tombstone leaf starts with "ts:" and holds a canonical,
// well-formed tombstone record; an event leaf is its kind and ':' followed by
// an 80-byte id || sig (85 to 91 bytes in all). (An 80-byte leaf cannot start with "ts:" and
// be a UUIDv7: those bytes would be a timestamp thousands of years ahead.)
func ParseLeaf(leaf []byte) (ParsedLeaf, error) {
	if bytes.HasPrefix(leaf, TombstonePrefix) {
		t, err := DecodeTombstone(leaf[len(TombstonePrefix):])
		if err != nil {
			return ParsedLeaf{Kind: LeafMalformed}, fmt.Errorf("tombstone leaf: %w", err)
		}
		return ParsedLeaf{Kind: LeafTombstone, ID: t.Target, Tombstone: t}, nil
	}
	if pl, ok := parseEventLeaf(leaf); ok {
		return pl, nil
	}
	if len(leaf) != RecordLeafSize {
		return ParsedLeaf{Kind: LeafMalformed}, fmt.Errorf("leaf is %d bytes: neither a %d-byte record leaf, a ts: tombstone nor a kind-tagged leaf (query:, action:, gate:, node:, config:, checkpoint:, vector:, importnote:)", len(leaf), RecordLeafSize)
	}
	var id ID
	copy(id[:], leaf[:16])
	if !id.IsV7() {
		return ParsedLeaf{Kind: LeafMalformed}, fmt.Errorf("leaf id %s is not a UUIDv7", id)
	}
	return ParsedLeaf{Kind: LeafRecord, ID: id, Sig: leaf[16:]}, nil
}
