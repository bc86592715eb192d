package writer

import (
	"context"
	"encoding/json"

	"github.com/memscope/memscope/evidence/record"
)

// Action is a tool call the agent made, with the entries that justified it.
type Action struct {
	ID            string
	Tool          string
	Params        map[string]string
	Justification []record.ID
	Dispatched    bool
	TS            int64
	// Query is the query whose selection the action followed ("": none).
	Query string
	// Sources says, per parameter, which entries its value came from
	// (From) and which other entries offered a value for it (Alt): what
	// MemLineage's parameter-level gate needs. nil: not recorded.
	Sources map[string]ParamSources
}

// ParamSources are the entries behind one action parameter.
type ParamSources struct {
	From []record.ID
	Alt  []record.ID
}

// AddAction stores an action as an unsigned row (imports); an agent runtime
// records actions with RecordAction.
func (s *Store) AddAction(a Action) error { return s.insertAction(a, nil, nil) }

// RecordAction signs an action as the agent that made it (the record's
// time is a.TS), logs it and stores its row.
func (s *Store) RecordAction(ctx context.Context, a Action, sg Signer) error {
	ev, err := SignAction(a, sg)
	if err != nil {
		return err
	}
	return s.AddSignedEvent(ctx, ev)
}

// SignAction signs an action as RecordAction does, touching no store; add
// it with AddSignedEvent.
func SignAction(a Action, sg Signer) (*SignedEvent, error) {
	if a.Params == nil {
		a.Params = map[string]string{}
	}
	if a.Justification == nil {
		a.Justification = []record.ID{}
	}
	rec := &record.Action{V: record.FormatVersion, Kind: record.KindAction, Name: a.ID, Tool: a.Tool, Params: a.Params,
		Justification: a.Justification, Query: a.Query, Dispatched: a.Dispatched, Writer: sg.Principal, TS: uint64(a.TS), Nonce: sg.Nonce}
	if a.Sources != nil {
		rec.Sources = map[string]record.ParamSources{}
		for p, ps := range a.Sources {
			rec.Sources[p] = record.ParamSources{From: nonNilIDs(ps.From), Alt: nonNilIDs(ps.Alt)}
		}
	}
	raw, err := signRecord(rec, sg.Key, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return nil, err
	}
	return &SignedEvent{kind: record.KindAction, name: a.ID, rec: rec, raw: raw,
		insert: func(s *Store, leaf *uint64, raw []byte) error { return s.insertAction(a, leaf, raw) }}, nil
}

func nonNilIDs(ids []record.ID) []record.ID {
	if ids == nil {
		return []record.ID{}
	}
	return ids
}

func (s *Store) insertAction(a Action, leaf *uint64, raw []byte) error {
	params, _ := json.Marshal(a.Params)
	just, _ := json.Marshal(idStrings(a.Justification))
	var query, sources any
	if a.Query != "" {
		query = a.Query
	}
	if a.Sources != nil {
		m := map[string]map[string][]string{}
		for p, ps := range a.Sources {
			m[p] = map[string][]string{"from": idStrings(ps.From), "alt": idStrings(ps.Alt)}
		}
		b, _ := json.Marshal(m)
		sources = string(b)
	}
	return s.exec("actions", s.nextSeq("actions"), a.ID, a.Tool, string(params), string(just), boolInt(a.Dispatched), a.TS, query, sources, nullIndex(leaf), nullBlob(raw))
}

func idStrings(ids []record.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
