package writer

import (
	"context"

	"github.com/memscope/memscope/evidence/record"
)

// Node is a vertex of the graph memory. Vertices carry no authority of their
// own: every vertex stays in G_auth, and a passage names the entry it shows.
type Node struct {
	ID    string
	Kind  string // snapshot.NodePassage or snapshot.NodeEntity
	Label string
	EID   *record.ID
	// TS is when the node was declared; only a signed declaration
	// (DeclareNode) carries it.
	TS int64
}

// AddNode stores a graph vertex as an unsigned row (imports of stores that
// sign nothing); an agent runtime declares nodes with DeclareNode.
func (s *Store) AddNode(n Node) error { return s.insertNode(n, nil, nil) }

func (s *Store) insertNode(n Node, leaf *uint64, raw []byte) error {
	var eid any
	if n.EID != nil {
		eid = n.EID.String()
	}
	return s.exec("nodes", s.nextSeq("nodes"), n.ID, n.Kind, n.Label, eid, nullIndex(leaf), nullBlob(raw))
}

// DeclareNode signs a graph vertex's declaration (by the writer of the
// passage's entry, or of the write that introduced the entity), logs it and
// stores its row.
func (s *Store) DeclareNode(ctx context.Context, n Node, sg Signer) error {
	ev, err := SignNode(n, sg)
	if err != nil {
		return err
	}
	return s.AddSignedEvent(ctx, ev)
}

// SignNode signs a vertex's declaration as DeclareNode does, touching no
// store; add it with AddSignedEvent.
func SignNode(n Node, sg Signer) (*SignedEvent, error) {
	rec := &record.Node{V: record.FormatVersion, Kind: record.KindNode, Name: n.ID, NodeKind: n.Kind, Label: n.Label, EID: n.EID,
		Writer: sg.Principal, TS: uint64(n.TS), Nonce: sg.Nonce}
	raw, err := signRecord(rec, sg.Key, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return nil, err
	}
	return &SignedEvent{kind: record.KindNode, name: n.ID, rec: rec, raw: raw,
		insert: func(s *Store, leaf *uint64, raw []byte) error { return s.insertNode(n, leaf, raw) }}, nil
}
