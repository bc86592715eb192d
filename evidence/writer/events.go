package writer

import (
	"context"
	"crypto/ed25519"

	"github.com/memscope/memscope/evidence/record"
)

// Signer is who signs an event record: the principal that produced it, its
// key, and the record's nonce (the record's time is the event's own).
type Signer struct {
	Principal string
	Key       ed25519.PrivateKey
	Nonce     [16]byte
}

// signEvent signs an event record and appends its leaf (SignedEvent's
// two steps at once) and returns the encoding and leaf index.
func (s *Store) signEvent(ctx context.Context, kind, name string, rec any, sg Signer, set func(record.KeyID)) ([]byte, *uint64, error) {
	raw, err := signRecord(rec, sg.Key, set)
	if err != nil {
		return nil, nil, err
	}
	idx, err := s.appendEvent(ctx, kind, name, rec)
	if err != nil {
		return nil, nil, err
	}
	return raw, idx, nil
}

// signRecord fills in a record's key id (through the setter), signs it
// with key and returns its encoding. It touches no store.
func signRecord(rec any, key ed25519.PrivateKey, set func(record.KeyID)) ([]byte, error) {
	set(record.KeyIDOf(key.Public().(ed25519.PublicKey)))
	if err := record.Sign(rec, key); err != nil {
		return nil, err
	}
	return record.Encode(rec)
}

// appendEvent appends a signed event record's kind-tagged leaf.
func (s *Store) appendEvent(ctx context.Context, kind, name string, rec any) (*uint64, error) {
	if ts, ok := eventTS(rec); ok {
		s.saw(ts)
	}
	idx, err := s.AppendLeaf(ctx, record.EventLeaf(kind, record.EventID(kind, name), reflectSig(rec)))
	if err != nil {
		return nil, err
	}
	return &idx, nil
}

// SignedEvent is an event record (a node declaration, a query, an action)
// signed by SignNode, SignQuery or SignAction, which touch no store: a
// writer serving many callers signs in each caller's goroutine and adds
// the records in log order with AddSignedEvent, with the same result as
// DeclareNode, RecordQuery and RecordAction.
type SignedEvent struct {
	kind, name string
	rec        any
	raw        []byte
	insert     func(s *Store, leaf *uint64, raw []byte) error
}

// AddSignedEvent appends the leaf of a signed event record and stores its
// row.
func (s *Store) AddSignedEvent(ctx context.Context, ev *SignedEvent) error {
	idx, err := s.appendEvent(ctx, ev.kind, ev.name, ev.rec)
	if err != nil {
		return err
	}
	return ev.insert(s, idx, ev.raw)
}

// eventTS reads an event record's time.
func eventTS(rec any) (uint64, bool) {
	switch r := rec.(type) {
	case *record.Query:
		return r.TS, true
	case *record.Action:
		return r.TS, true
	case *record.GateEvent:
		return r.TS, true
	case *record.Node:
		return r.TS, true
	}
	return 0, false
}

// reflectSig reads the Sig field record.Sign filled in.
func reflectSig(rec any) []byte {
	switch r := rec.(type) {
	case *record.Query:
		return r.Sig
	case *record.Action:
		return r.Sig
	case *record.GateEvent:
		return r.Sig
	case *record.Node:
		return r.Sig
	}
	return nil
}
