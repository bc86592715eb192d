package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// Node is a vertex of the graph memory.
type Node struct {
	ID    string
	Kind  string
	Label string
	EID   string // passage nodes: the entry they show
	// Record is the signed declaration behind the row (Raw nil: unsigned).
	Record *RowRecord
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
	// Record is the signed query behind the row (Raw nil: unsigned); its
	// Writer is the principal that ran the query.
	Record *RowRecord
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
	// Record is the signed action behind the row (Raw nil: unsigned).
	Record *RowRecord
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
	// Record is the signed gate decision behind the row (Raw nil: unsigned).
	Record *RowRecord
}

// CheckpointRow is a checkpoint the store saw.
type CheckpointRow struct {
	Seq    int64
	SeenAt int64
	Note   []byte
	// Record is the operator's signed sighting behind the row (nil or Raw
	// nil: unsigned).
	Record *RowRecord
}

var nodeCols = []column{{"id", maxIDCell, false}, {"kind", maxIDCell, false}, {"label", maxTextCell, false}, {"eid", maxIDCell, true}}

// Nodes reads every graph vertex. A malformed row is skipped and listed in
// the returned RowErrors; every other row is returned with it.
func (s *Snapshot) Nodes(ctx context.Context) ([]Node, error) {
	const t = "nodes"
	cols, signed, err := s.signedCols(ctx, t, nodeCols)
	if err != nil {
		return nil, err
	}
	var out []Node
	bad := rowErrs{s: s, table: t}
	err = s.streamBounded(ctx, t, cols, "", nil, func(r *row) error {
		n := Node{ID: r.str(s, t, 0), Kind: r.str(s, t, 1), Label: r.str(s, t, 2), EID: r.str(s, t, 3)}
		if signed {
			n.Record = s.rowRecord(r, t, record.KindNode, n.ID, nodeDiff(&n))
		}
		switch {
		case r.err != nil:
		case n.Kind != snapshot.NodePassage && n.Kind != snapshot.NodeEntity:
			r.fail(s, t, n.ID, "kind", "\"%s\" is not passage or entity", n.Kind)
		case n.EID != "":
			if _, err := record.ParseID(n.EID); err != nil {
				r.fail(s, t, n.ID, "eid", "%v", err)
			}
		}
		if r.err != nil {
			bad.add(r.err)
			return nil
		}
		out = append(out, n)
		return nil
	})
	return out, bad.result(err)
}

func finiteScores(m map[string]float64) error {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("value for \"%s\" is not finite", k)
		}
	}
	return nil
}

var queryCols = []column{{"id", maxIDCell, false}, {"text", maxTextCell, false}, {"k", maxNumCell, false}, {"reset", maxJSONCell, false},
	{"dense", maxJSONCell, true}, {"selected", maxJSONCell, true}, {"ts", maxNumCell, false}}

// Queries reads every recorded query. A malformed row is skipped and
// listed in the returned RowErrors; every other row is returned with it.
func (s *Snapshot) Queries(ctx context.Context) ([]Query, error) {
	const t = "queries"
	return signedRows(ctx, s, t, queryCols, func(r *row) Query {
		return s.queryOf(r)
	}, func(r *row, q *Query) {
		q.Record = s.rowRecord(r, t, record.KindQuery, q.ID, queryDiff(q))
	})
}

var actionCols = []column{{"id", maxIDCell, false}, {"tool", maxIDCell, false}, {"params", maxJSONCell, false}, {"justification", maxJSONCell, false},
	{"dispatched", maxNumCell, false}, {"ts", maxNumCell, false}}

// Actions reads every recorded action. A malformed row is skipped and
// listed in the returned RowErrors; every other row is returned with it.
// The query and sources columns are newer than the table: a store without
// them reads as not recording them.
func (s *Snapshot) Actions(ctx context.Context) ([]Action, error) {
	const t = "actions"
	cols := actionCols
	if have, err := s.columns(ctx, t); err != nil {
		return nil, err
	} else if have["query"] && have["sources"] {
		cols = append(append([]column(nil), actionCols...), column{"query", maxIDCell, true}, column{"sources", maxJSONCell, true})
	}
	withSources := len(cols) > len(actionCols)
	return signedRows(ctx, s, t, cols, func(r *row) Action {
		a := Action{ID: r.str(s, t, 0), Tool: r.str(s, t, 1), Dispatched: r.int(s, t, 4, 0) != 0, TS: r.int(s, t, 5, 0)}
		params, just := r.str(s, t, 2), r.str(s, t, 3)
		var sources string
		if withSources {
			a.Query, sources = r.str(s, t, 6), r.str(s, t, 7)
		}
		if r.err == nil {
			if err := decodeJSON(params, &a.Params); err != nil {
				r.fail(s, t, a.ID, "params", "%v", err)
			} else if err := decodeJSON(just, &a.Justification); err != nil {
				r.fail(s, t, a.ID, "justification", "%v", err)
			} else if sources != "" {
				if err := decodeJSON(sources, &a.Sources); err != nil {
					r.fail(s, t, a.ID, "sources", "%v", err)
				}
				for p, ps := range a.Sources {
					for _, id := range append(append([]string(nil), ps.From...), ps.Alt...) {
						if _, err := record.ParseID(id); err != nil {
							r.fail(s, t, a.ID, "sources", "parameter \"%s\": %v", p, err)
						}
					}
				}
			}
		}
		return a
	}, func(r *row, a *Action) {
		a.Record = s.rowRecord(r, t, record.KindAction, a.ID, actionDiff(a))
	})
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

var gateCols = []column{{"id", maxIDCell, false}, {"candidate_eid", maxIDCell, false}, {"candidate_hash", maxIDCell, false}, {"verdict", maxIDCell, false},
	{"reason", maxTextCell, false}, {"version_before", maxNumCell, false}, {"version_after", maxNumCell, false}, {"ts", maxNumCell, false}}

// GateEvents reads every commit-gate decision. A malformed row is skipped
// and listed in the returned RowErrors; every other row is returned with it.
func (s *Snapshot) GateEvents(ctx context.Context) ([]GateEvent, error) {
	const t = "gate_events"
	return signedRows(ctx, s, t, gateCols, func(r *row) GateEvent {
		return s.gateOf(r)
	}, func(r *row, g *GateEvent) {
		g.Record = s.rowRecord(r, t, record.KindGate, g.ID, gateDiff(g, g.CandidateEID))
	})
}

var checkpointCols = []column{{"seen_at", maxNumCell, false}, {"note", maxNoteCell, false}}

// Checkpoints reads every checkpoint the store recorded, oldest first. A
// malformed row is skipped and listed in the returned RowErrors.
func (s *Snapshot) Checkpoints(ctx context.Context) ([]CheckpointRow, error) {
	const t = "checkpoints"
	return signedRows(ctx, s, t, checkpointCols, func(r *row) CheckpointRow {
		return CheckpointRow{Seq: r.seq, SeenAt: r.int(s, t, 0, 0), Note: r.blob(s, t, 1)}
	}, func(r *row, c *CheckpointRow) {
		c.Record = s.rowRecord(r, t, record.KindCheckpoint, strconv.FormatInt(c.Seq, 10), checkpointDiff(c))
	})
}

// queryOf decodes one queries row; problems are recorded on r.
func (s *Snapshot) queryOf(r *row) Query {
	const t = "queries"
	q := Query{ID: r.str(s, t, 0), Text: r.str(s, t, 1), K: int(r.int(s, t, 2, 0)), TS: r.int(s, t, 6, 0)}
	reset, dense, sel := r.str(s, t, 3), r.vals[4], r.vals[5]
	if r.err == nil {
		if err := decodeJSON(reset, &q.Reset); err != nil {
			r.fail(s, t, q.ID, "reset", "%v", err)
		} else if err := finiteScores(q.Reset); err != nil {
			r.fail(s, t, q.ID, "reset", "%v", err)
		}
	}
	if r.err == nil && dense != nil {
		if err := decodeJSON(r.str(s, t, 4), &q.Dense); err != nil {
			r.fail(s, t, q.ID, "dense", "%v", err)
		} else if err := finiteScores(q.Dense); err != nil {
			r.fail(s, t, q.ID, "dense", "%v", err)
		}
	}
	if r.err == nil && sel != nil {
		if err := decodeJSON(r.str(s, t, 5), &q.Selected); err != nil {
			r.fail(s, t, q.ID, "selected", "%v", err)
		}
	}
	if r.err == nil && (q.K <= 0 || q.K > snapshot.MaxK) {
		r.fail(s, t, q.ID, "k", "%d is outside 1..%d", q.K, snapshot.MaxK)
	}
	return q
}

// gateOf decodes one gate_events row; problems are recorded on r.
func (s *Snapshot) gateOf(r *row) GateEvent {
	const t = "gate_events"
	g := GateEvent{ID: r.str(s, t, 0), CandidateEID: r.str(s, t, 1), Verdict: r.str(s, t, 3), Reason: r.str(s, t, 4),
		VersionBefore: r.int(s, t, 5, 0), VersionAfter: r.int(s, t, 6, 0), TS: r.int(s, t, 7, 0)}
	h := r.str(s, t, 2)
	if r.err == nil {
		if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
			r.fail(s, t, g.ID, "candidate_hash", "want 64 hex digits, got \"%s\"", h)
		} else {
			copy(g.CandidateHash[:], b)
		}
	}
	if r.err == nil && g.Verdict != snapshot.GateAccept && g.Verdict != snapshot.GateReject {
		r.fail(s, t, g.ID, "verdict", "\"%s\" is not accept or reject", g.Verdict)
	}
	return g
}

// Vector is one row of the optional vector index: the entry whose signed
// bytes were embedded and their SHA-256. The embedding itself is not read.
type Vector struct {
	Seq         int64
	EID         string
	ContentHash [32]byte
	Dim         int64
	// Record is the operator's signed vector behind the row (nil or Raw
	// nil: unsigned).
	Record *RowRecord
}

// maxVecCell bounds one embedding (64k float32 values).
const maxVecCell = 1 << 18

var vectorCols = []column{{"eid", maxIDCell, false}, {"content_hash", maxIDCell, false}, {"dim", maxNumCell, false}, {"vec", maxVecCell, false}}

// Vectors reads the optional vector index; nil with no error when the
// snapshot has no vector table (Has(snapshot.VectorTable) tells). A
// malformed row is skipped and listed in the returned RowErrors.
func (s *Snapshot) Vectors(ctx context.Context) ([]Vector, error) {
	const t = snapshot.VectorTable
	cols, signed, err := s.signedCols(ctx, t, vectorCols)
	if err != nil {
		return nil, err
	}
	var out []Vector
	bad := rowErrs{s: s, table: t}
	err = s.streamBounded(ctx, t, cols, "", nil, func(r *row) error {
		v := Vector{Seq: r.seq, EID: r.str(s, t, 0), Dim: r.int(s, t, 2, 0)}
		h := r.str(s, t, 1)
		vec := r.blob(s, t, 3)
		if r.err == nil {
			if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
				r.fail(s, t, v.EID, "content_hash", "want 64 hex digits, got \"%s\"", h)
			} else {
				copy(v.ContentHash[:], b)
			}
		}
		if r.err == nil && (v.Dim <= 0 || int64(len(vec)) != 4*v.Dim) {
			r.fail(s, t, v.EID, "vec", "%d bytes for dim %d, want 4 bytes per dimension", len(vec), v.Dim)
		}
		if signed && r.err == nil {
			v.Record = s.rowRecord(r, t, record.KindVector, strconv.FormatInt(v.Seq, 10), vectorDiff(&v, sha256.Sum256(vec)))
		}
		if r.err != nil {
			bad.add(r.err)
			return nil
		}
		out = append(out, v)
		return nil
	})
	return out, bad.result(err)
}
