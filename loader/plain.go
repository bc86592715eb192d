package loader

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math"

	"github.com/memscope/memscope/record"
	"github.com/memscope/memscope/snapshot"
)

// Node is a vertex of the graph memory.
type Node struct {
	ID    string
	Kind  string
	Label string
	EID   string // passage nodes: the entry they show
}

// Query is a recorded retrieval with its selector input.
type Query struct {
	ID       string
	Text     string
	K        int
	Reset    map[string]float64
	Dense    map[string]float64 // nil when not recorded
	Selected []string           // nil when not recorded
	TS       int64
}

// Action is a recorded tool call.
type Action struct {
	ID            string
	Tool          string
	Params        map[string]string
	Justification []string
	Dispatched    bool
	TS            int64
	// Query is the query whose selection the action followed; "" when the
	// store does not record it.
	Query string
	// Sources maps a parameter to the entries its value came from (From)
	// and the other entries that offered a value (Alt); nil when the store
	// does not record them (older stores, imports).
	Sources map[string]ParamSources
}

// ParamSources are the entries behind one action parameter.
type ParamSources struct {
	From []string `json:"from"`
	Alt  []string `json:"alt"`
}

// GateEvent is a recorded commit-gate decision.
type GateEvent struct {
	ID            string
	CandidateEID  string
	CandidateHash [32]byte
	Verdict       string
	Reason        string
	VersionBefore int64
	VersionAfter  int64
	TS            int64
}

// CheckpointRow is a checkpoint the store saw.
type CheckpointRow struct {
	Seq    int64
	SeenAt int64
	Note   []byte
}

// Nodes reads every graph vertex.
func (s *Snapshot) Nodes(ctx context.Context) ([]Node, error) {
	var out []Node
	err := s.stream(ctx, "nodes", "SELECT id, kind, label, eid FROM nodes ORDER BY seq", func(rows *sql.Rows) error {
		var n Node
		var eid sql.NullString
		if err := rows.Scan(&n.ID, &n.Kind, &n.Label, &eid); err != nil {
			return s.errf("nodes", "", "", err)
		}
		n.EID = eid.String
		switch n.Kind {
		case snapshot.NodePassage, snapshot.NodeEntity:
		default:
			return s.errf("nodes", n.ID, "kind", fmt.Errorf("%q is not passage or entity", n.Kind))
		}
		if n.EID != "" {
			if _, err := record.ParseID(n.EID); err != nil {
				return s.errf("nodes", n.ID, "eid", err)
			}
		}
		out = append(out, n)
		return nil
	})
	return out, err
}

func finiteScores(m map[string]float64) error {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value for %q is not finite", k)
		}
	}
	return nil
}

// Queries reads every recorded query.
func (s *Snapshot) Queries(ctx context.Context) ([]Query, error) {
	var out []Query
	err := s.stream(ctx, "queries", "SELECT id, text, k, reset, dense, selected, ts FROM queries ORDER BY seq", func(rows *sql.Rows) error {
		var q Query
		var reset string
		var dense, sel sql.NullString
		if err := rows.Scan(&q.ID, &q.Text, &q.K, &reset, &dense, &sel, &q.TS); err != nil {
			return s.errf("queries", "", "", err)
		}
		if err := decodeJSON(reset, &q.Reset); err != nil {
			return s.errf("queries", q.ID, "reset", err)
		}
		if err := finiteScores(q.Reset); err != nil {
			return s.errf("queries", q.ID, "reset", err)
		}
		if dense.Valid {
			if err := decodeJSON(dense.String, &q.Dense); err != nil {
				return s.errf("queries", q.ID, "dense", err)
			}
			if err := finiteScores(q.Dense); err != nil {
				return s.errf("queries", q.ID, "dense", err)
			}
		}
		if sel.Valid {
			if err := decodeJSON(sel.String, &q.Selected); err != nil {
				return s.errf("queries", q.ID, "selected", err)
			}
		}
		if q.K <= 0 || q.K > 1000 {
			return s.errf("queries", q.ID, "k", fmt.Errorf("%d is outside 1..1000", q.K))
		}
		out = append(out, q)
		return nil
	})
	return out, err
}

// Actions reads every recorded action. The query and sources columns are
// newer than the table: a store without them reads as not recording them.
func (s *Snapshot) Actions(ctx context.Context) ([]Action, error) {
	cols, err := s.columns(ctx, "actions")
	if err != nil {
		return nil, err
	}
	extra := ", NULL, NULL"
	if cols["query"] && cols["sources"] {
		extra = ", query, sources"
	}
	var out []Action
	err = s.stream(ctx, "actions", "SELECT id, tool, params, justification, dispatched, ts"+extra+" FROM actions ORDER BY seq", func(rows *sql.Rows) error {
		var a Action
		var params, just string
		var query, sources sql.NullString
		var dispatched int
		if err := rows.Scan(&a.ID, &a.Tool, &params, &just, &dispatched, &a.TS, &query, &sources); err != nil {
			return s.errf("actions", "", "", err)
		}
		if err := decodeJSON(params, &a.Params); err != nil {
			return s.errf("actions", a.ID, "params", err)
		}
		if err := decodeJSON(just, &a.Justification); err != nil {
			return s.errf("actions", a.ID, "justification", err)
		}
		a.Query = query.String
		if sources.Valid {
			if err := decodeJSON(sources.String, &a.Sources); err != nil {
				return s.errf("actions", a.ID, "sources", err)
			}
			for p, ps := range a.Sources {
				for _, id := range append(append([]string(nil), ps.From...), ps.Alt...) {
					if _, err := record.ParseID(id); err != nil {
						return s.errf("actions", a.ID, "sources", fmt.Errorf("parameter %q: %v", p, err))
					}
				}
			}
		}
		a.Dispatched = dispatched != 0
		out = append(out, a)
		return nil
	})
	return out, err
}

// columns lists a table's column names.
func (s *Snapshot) columns(ctx context.Context, table string) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, s.errf(table, "", "", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, s.errf(table, "", "", err)
		}
		out[n] = true
	}
	return out, rows.Err()
}

// GateEvents reads every commit-gate decision.
func (s *Snapshot) GateEvents(ctx context.Context) ([]GateEvent, error) {
	var out []GateEvent
	err := s.stream(ctx, "gate_events", "SELECT id, candidate_eid, candidate_hash, verdict, reason, version_before, version_after, ts FROM gate_events ORDER BY seq", func(rows *sql.Rows) error {
		var g GateEvent
		var h string
		if err := rows.Scan(&g.ID, &g.CandidateEID, &h, &g.Verdict, &g.Reason, &g.VersionBefore, &g.VersionAfter, &g.TS); err != nil {
			return s.errf("gate_events", "", "", err)
		}
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 32 {
			return s.errf("gate_events", g.ID, "candidate_hash", fmt.Errorf("want 64 hex digits, got %q", h))
		}
		copy(g.CandidateHash[:], b)
		if g.Verdict != snapshot.GateAccept && g.Verdict != snapshot.GateReject {
			return s.errf("gate_events", g.ID, "verdict", fmt.Errorf("%q is not accept or reject", g.Verdict))
		}
		out = append(out, g)
		return nil
	})
	return out, err
}

// Checkpoints reads every checkpoint the store recorded, oldest first.
func (s *Snapshot) Checkpoints(ctx context.Context) ([]CheckpointRow, error) {
	var out []CheckpointRow
	err := s.stream(ctx, "checkpoints", "SELECT seq, seen_at, note FROM checkpoints ORDER BY seq", func(rows *sql.Rows) error {
		var c CheckpointRow
		var n string
		if err := rows.Scan(&c.Seq, &c.SeenAt, &n); err != nil {
			return s.errf("checkpoints", "", "", err)
		}
		c.Note = []byte(n)
		out = append(out, c)
		return nil
	})
	return out, err
}
