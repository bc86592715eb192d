package writer

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/memscope/memscope/evidence/record"
)

// Query is a retrieval the agent ran, with the reset vector its selector used.
type Query struct {
	ID    string
	Text  string
	K     int
	Reset map[string]float64 // node id -> reset mass
	// Dense holds per-passage dense retrieval scores, for replaying with a
	// selector that does not walk the graph.
	Dense    map[string]float64
	Selected []string // the selection the agent saw, if recorded
	TS       int64
}

// AddQuery stores a query as an unsigned row (imports); an agent runtime
// records queries with RecordQuery.
func (s *Store) AddQuery(q Query) error { return s.insertQuery(q, nil, nil) }

// RecordQuery signs a query as the principal that ran it (the record's
// time is q.TS), logs it and stores its row.
func (s *Store) RecordQuery(ctx context.Context, q Query, sg Signer) error {
	ev, err := SignQuery(q, sg)
	if err != nil {
		return err
	}
	return s.AddSignedEvent(ctx, ev)
}

// SignQuery signs a query as RecordQuery does, touching no store; add it
// with AddSignedEvent.
func SignQuery(q Query, sg Signer) (*SignedEvent, error) {
	if q.Reset == nil {
		q.Reset = map[string]float64{}
	}
	if q.K < 0 {
		return nil, fmt.Errorf("writer: query %s: k %d is negative", q.ID, q.K)
	}
	rec := &record.Query{V: record.FormatVersion, Kind: record.KindQuery, Name: q.ID, Text: q.Text, K: uint(q.K), Reset: q.Reset,
		Dense: q.Dense, Selected: q.Selected, Writer: sg.Principal, TS: uint64(q.TS), Nonce: sg.Nonce}
	raw, err := signRecord(rec, sg.Key, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return nil, err
	}
	return &SignedEvent{kind: record.KindQuery, name: q.ID, rec: rec, raw: raw,
		insert: func(s *Store, leaf *uint64, raw []byte) error { return s.insertQuery(q, leaf, raw) }}, nil
}

func (s *Store) insertQuery(q Query, leaf *uint64, raw []byte) error {
	reset, err := json.Marshal(q.Reset)
	if err != nil {
		return err
	}
	var dense, sel any
	if q.Dense != nil {
		b, _ := json.Marshal(q.Dense)
		dense = string(b)
	}
	if q.Selected != nil {
		b, _ := json.Marshal(q.Selected)
		sel = string(b)
	}
	return s.exec("queries", s.nextSeq("queries"), q.ID, q.Text, q.K, string(reset), dense, sel, q.TS, nullIndex(leaf), nullBlob(raw))
}
