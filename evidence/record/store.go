package record

import (
	"fmt"
	"strconv"
)

// Kinds of the records a store's operator signs about the store itself:
// a configuration value (a meta row), a checkpoint the store saw, and a
// vector of its index. Without them the meta, checkpoints and vectors
// tables would be claims anyone could edit, and meta's
// gate_mediated_since decides which writes the MWP audit checks.
const (
	KindConfig     = "config"
	KindCheckpoint = "checkpoint"
	KindVector     = "vector"
)

// MaxConfigValue bounds a configuration value (as the meta table does).
const MaxConfigValue = 1 << 16

// Config signs one meta row: key Name has Value. A key can change while
// the store runs (store_version after every phase), so each signing is a
// revision: Rev counts them from 1, and the log id (ConfigID) names the
// key and the revision, so every revision has a leaf of its own and the
// verifier can tell the latest from a rolled-back earlier one.
type Config struct {
	V      uint     `cbor:"v"`
	Kind   string   `cbor:"kind"`
	Name   string   `cbor:"name"` // the meta key
	Rev    uint64   `cbor:"rev"`
	Value  string   `cbor:"value"`
	Writer string   `cbor:"writer"`
	KID    KeyID    `cbor:"kid"`
	TS     uint64   `cbor:"ts"`
	Nonce  [16]byte `cbor:"nonce"`
	Sig    []byte   `cbor:"sig"`
}

// ConfigID is the log id of revision rev of meta key: EventID of kind
// "config" and the name key 0x00 rev (decimal). A key is a name, which
// holds no 0x00 byte, so no two (key, rev) pairs share an id.
func ConfigID(key string, rev uint64) ID {
	return EventID(KindConfig, key+"\x00"+strconv.FormatUint(rev, 10))
}

// CheckpointSeen signs a checkpoints row: the store saw the checkpoint
// note whose SHA-256 is NoteHash at SeenAt (ns). Name is the row's seq in
// decimal. The note's own signature is the log's; this record binds the
// store's claim of when it saw it.
type CheckpointSeen struct {
	V        uint     `cbor:"v"`
	Kind     string   `cbor:"kind"`
	Name     string   `cbor:"name"`
	NoteHash [32]byte `cbor:"note_hash"`
	SeenAt   uint64   `cbor:"seen_at"`
	Writer   string   `cbor:"writer"`
	KID      KeyID    `cbor:"kid"`
	TS       uint64   `cbor:"ts"`
	Nonce    [16]byte `cbor:"nonce"`
	Sig      []byte   `cbor:"sig"`
}

// Vector signs a vectors row: the embedding of entry EID's signed bytes
// (whose SHA-256 is ContentHash), Dim float32 values whose little-endian
// bytes hash to VecHash. Name is the row's seq in decimal.
type Vector struct {
	V           uint     `cbor:"v"`
	Kind        string   `cbor:"kind"`
	Name        string   `cbor:"name"`
	EID         ID       `cbor:"eid"`
	ContentHash [32]byte `cbor:"content_hash"`
	Dim         uint     `cbor:"dim"`
	VecHash     [32]byte `cbor:"vec_hash"`
	Writer      string   `cbor:"writer"`
	KID         KeyID    `cbor:"kid"`
	TS          uint64   `cbor:"ts"`
	Nonce       [16]byte `cbor:"nonce"`
	Sig         []byte   `cbor:"sig"`
}

// DecodeConfig decodes and validates a configuration record.
func DecodeConfig(raw []byte) (*Config, error) {
	var c Config
	if err := decodeEvent(KindConfig, raw, &c); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindConfig, c.V, c.Kind, c.Name, c.Writer, c.Sig); err != nil {
		return nil, err
	}
	if c.Rev == 0 || c.Rev > 1<<53 {
		return nil, &FieldError{Kind: KindConfig, ID: c.Name, Field: "rev", Reason: fmt.Sprintf("%d is outside 1..2^53", c.Rev)}
	}
	if err := checkText(KindConfig, c.Name, "value", c.Value, MaxConfigValue); err != nil {
		return nil, err
	}
	return &c, nil
}

// seqName checks that a record's name is a row seq in decimal.
func seqName(kind, name string) error {
	n, err := strconv.ParseInt(name, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != name {
		return &FieldError{Kind: kind, ID: name, Field: "name", Reason: "want the row's seq in decimal"}
	}
	return nil
}

// DecodeCheckpointSeen decodes and validates a checkpoint sighting.
func DecodeCheckpointSeen(raw []byte) (*CheckpointSeen, error) {
	var c CheckpointSeen
	if err := decodeEvent(KindCheckpoint, raw, &c); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindCheckpoint, c.V, c.Kind, c.Name, c.Writer, c.Sig); err != nil {
		return nil, err
	}
	if err := seqName(KindCheckpoint, c.Name); err != nil {
		return nil, err
	}
	if c.SeenAt > 1<<63-1 {
		return nil, &FieldError{Kind: KindCheckpoint, ID: c.Name, Field: "seen_at", Reason: "beyond 2^63-1"}
	}
	return &c, nil
}

// DecodeVector decodes and validates a vector record.
func DecodeVector(raw []byte) (*Vector, error) {
	var v Vector
	if err := decodeEvent(KindVector, raw, &v); err != nil {
		return nil, err
	}
	if err := checkEventHead(KindVector, v.V, v.Kind, v.Name, v.Writer, v.Sig); err != nil {
		return nil, err
	}
	if err := seqName(KindVector, v.Name); err != nil {
		return nil, err
	}
	if v.Dim == 0 || v.Dim > 1<<16 {
		return nil, &FieldError{Kind: KindVector, ID: v.Name, Field: "dim", Reason: fmt.Sprintf("%d is outside 1..65536", v.Dim)}
	}
	return &v, nil
}
