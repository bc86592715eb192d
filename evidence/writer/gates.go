package writer

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/memscope/memscope/evidence/record"
)

// GateEvent is one decision of a commit gate over a candidate write.
type GateEvent struct {
	ID            string
	CandidateEID  record.ID
	CandidateHash [32]byte // SHA-256 of the candidate record's encoding
	Verdict       string   // snapshot.GateAccept or snapshot.GateReject
	Reason        string
	VersionBefore uint64
	VersionAfter  uint64
	TS            int64
}

// AddGateEvent stores a commit-gate decision as an unsigned row (imports);
// a gate records its decisions with RecordGateEvent.
func (s *Store) AddGateEvent(g GateEvent) error { return s.insertGateEvent(g, nil, nil) }

// RecordGateEvent signs a commit-gate decision as the gate's principal (the
// record's time is g.TS), logs it and stores its row.
func (s *Store) RecordGateEvent(ctx context.Context, g GateEvent, sg Signer) error {
	rec := &record.GateEvent{V: record.FormatVersion, Kind: record.KindGate, Name: g.ID, Candidate: g.CandidateEID, CandidateHash: g.CandidateHash,
		Verdict: g.Verdict, Reason: g.Reason, VersionBefore: g.VersionBefore, VersionAfter: g.VersionAfter, Writer: sg.Principal, TS: uint64(g.TS), Nonce: sg.Nonce}
	raw, idx, err := s.signEvent(ctx, record.KindGate, g.ID, rec, sg, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return err
	}
	return s.insertGateEvent(g, idx, raw)
}

func (s *Store) insertGateEvent(g GateEvent, leaf *uint64, raw []byte) error {
	return s.exec("gate_events", s.nextSeq("gate_events"), g.ID, g.CandidateEID.String(), fmt.Sprintf("%x", g.CandidateHash[:]),
		g.Verdict, g.Reason, int64(g.VersionBefore), int64(g.VersionAfter), g.TS, nullIndex(leaf), nullBlob(raw))
}

// Version is the store's version counter: one step per accepted write.
func (s *Store) Version() uint64 { return s.version }

// BumpVersion advances the version without a write (a write-first gate that
// rolled back still advanced it).
func (s *Store) BumpVersion() { s.version++ }

// CandidateHash is the hash a gate event records for a candidate record.
func CandidateHash(raw []byte) [32]byte { return sha256.Sum256(raw) }
