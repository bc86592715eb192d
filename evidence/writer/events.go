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

// signEvent fills in the signer's fields of an event record (through the
// setters), signs it, appends its kind-tagged leaf and returns the encoding
// and leaf index.
func (s *Store) signEvent(ctx context.Context, kind, name string, rec any, sg Signer, set func(record.KeyID)) ([]byte, *uint64, error) {
	set(record.KeyIDOf(sg.Key.Public().(ed25519.PublicKey)))
	if err := record.Sign(rec, sg.Key); err != nil {
		return nil, nil, err
	}
	raw, err := record.Encode(rec)
	if err != nil {
		return nil, nil, err
	}
	if ts, ok := eventTS(rec); ok {
		s.saw(ts)
	}
	sig := reflectSig(rec)
	idx, err := s.AppendLeaf(ctx, record.EventLeaf(kind, record.EventID(kind, name), sig))
	if err != nil {
		return nil, nil, err
	}
	return raw, &idx, nil
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
