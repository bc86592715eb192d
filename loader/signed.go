package loader

import (
	"context"
	"maps"
	"slices"

	"github.com/memscope/memscope/evidence/record"
)

// RowRecord is the signed record behind a row of an event table (nodes,
// queries, actions, gate_events). A store written by a signing runtime has
// one for every row; older stores and imports have none (Raw nil), and
// their rows are unsigned claims.
type RowRecord struct {
	Kind string // record kind (record.KindQuery, ...)
	Name string // the row's id column
	// ID is the record's log id: record.EventID(Kind, Name), or for a
	// configuration record record.ConfigID of its key and revision.
	ID        record.ID
	Seq       int64
	LeafIndex int64 // -1 when the row names no leaf
	Raw       []byte
	// From the decoded record (zero when it could not be decoded): the
	// principal that signed it, its key id, time and signature.
	Writer string
	KID    record.KeyID
	TS     uint64
	Sig    []byte
	// Err is the strict decoding failure, naming file, table, record and
	// field.
	Err error
	// Mismatch names the row's columns whose value differs from the
	// signed record (every analysis reads the columns).
	Mismatch []string
}

// Signed reports whether the row carries a signed record.
func (r *RowRecord) Signed() bool { return r != nil && r.Raw != nil }

// Verified reports whether the row carries a record that decoded and agrees
// with every column. Whether its signature verifies is verify's business.
func (r *RowRecord) Verified() bool { return r.Signed() && r.Err == nil && len(r.Mismatch) == 0 }

// signedCols appends leaf_index and record to a table's columns when the
// store has them (stores older than signed events do not).
func (s *Snapshot) signedCols(ctx context.Context, table string, cols []column) ([]column, bool, error) {
	have, err := s.columns(ctx, table)
	if err != nil {
		return nil, false, err
	}
	if !have["leaf_index"] || !have["record"] {
		return cols, false, nil
	}
	out := append(append([]column(nil), cols...), column{"leaf_index", maxNumCell, true}, column{"record", maxBlobCell, true})
	return out, true, nil
}

// rowRecord reads the leaf_index and record cells (the last two of cols) and
// decodes the record with decode, which returns the record's signer fields
// and the columns that disagree with it.
func (s *Snapshot) rowRecord(r *row, table, kind, name string, decode func(raw []byte) (signer, []string, error)) *RowRecord {
	n := len(r.cols)
	rr := &RowRecord{Kind: kind, Name: name, ID: record.EventID(kind, name), Seq: r.seq, LeafIndex: r.int(s, table, n-2, -1), Raw: r.blob(s, table, n-1)}
	if r.err != nil || rr.Raw == nil {
		return rr
	}
	sg, diff, err := decode(rr.Raw)
	if err != nil {
		rr.Err = s.recordErr(table, name, err)
		return rr
	}
	rr.Writer, rr.KID, rr.TS, rr.Sig, rr.Mismatch = sg.writer, sg.kid, sg.ts, sg.sig, diff
	if sg.id != nil {
		rr.ID = *sg.id
	}
	return rr
}

type signer struct {
	writer string
	kid    record.KeyID
	ts     uint64
	sig    []byte
	id     *record.ID // the log id, when it is not EventID(kind, name)
}

// diff collects the names of columns whose values differ.
type diff []string

func (d *diff) check(col string, same bool) {
	if !same {
		*d = append(*d, col)
	}
}

func idStrings(ids []record.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// sameNullable compares two optional values: both absent, or both present
// and equal.
func sameNullable[M any](a, b M, isNil func(M) bool, eq func(M, M) bool) bool {
	if isNil(a) || isNil(b) {
		return isNil(a) == isNil(b)
	}
	return eq(a, b)
}

func nodeDiff(n *Node) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeNode(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("id", rec.Name == n.ID)
		d.check("kind", rec.NodeKind == n.Kind)
		d.check("label", rec.Label == n.Label)
		eid := ""
		if rec.EID != nil {
			eid = rec.EID.String()
		}
		d.check("eid", eid == n.EID)
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}

func queryDiff(q *Query) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeQuery(raw)
		if err != nil {
			return signer{}, nil, err
		}
		isNilMap := func(m map[string]float64) bool { return m == nil }
		isNilList := func(l []string) bool { return l == nil }
		var d diff
		d.check("id", rec.Name == q.ID)
		d.check("text", rec.Text == q.Text)
		d.check("k", int(rec.K) == q.K)
		d.check("reset", maps.Equal(rec.Reset, q.Reset))
		d.check("dense", sameNullable(rec.Dense, q.Dense, isNilMap, maps.Equal))
		d.check("selected", sameNullable(rec.Selected, q.Selected, isNilList, slices.Equal))
		d.check("ts", rec.TS == uint64(q.TS) && q.TS >= 0)
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}

func actionDiff(a *Action) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeAction(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("id", rec.Name == a.ID)
		d.check("tool", rec.Tool == a.Tool)
		d.check("params", maps.Equal(rec.Params, a.Params) && a.Params != nil)
		d.check("justification", slices.Equal(idStrings(rec.Justification), a.Justification))
		d.check("dispatched", rec.Dispatched == a.Dispatched)
		d.check("ts", rec.TS == uint64(a.TS) && a.TS >= 0)
		d.check("query", rec.Query == a.Query)
		d.check("sources", sameSources(rec.Sources, a.Sources))
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}

func sameSources(rec map[string]record.ParamSources, row map[string]ParamSources) bool {
	if (rec == nil) != (row == nil) || len(rec) != len(row) {
		return false
	}
	for p, rs := range rec {
		ws, ok := row[p]
		if !ok || !slices.Equal(idStrings(rs.From), ws.From) || !slices.Equal(idStrings(rs.Alt), ws.Alt) {
			return false
		}
	}
	return true
}

func gateDiff(g *GateEvent, rawEID string) func([]byte) (signer, []string, error) {
	return func(raw []byte) (signer, []string, error) {
		rec, err := record.DecodeGateEvent(raw)
		if err != nil {
			return signer{}, nil, err
		}
		var d diff
		d.check("id", rec.Name == g.ID)
		d.check("candidate_eid", rec.Candidate.String() == rawEID)
		d.check("candidate_hash", rec.CandidateHash == g.CandidateHash)
		d.check("verdict", rec.Verdict == g.Verdict)
		d.check("reason", rec.Reason == g.Reason)
		d.check("version_before", g.VersionBefore >= 0 && rec.VersionBefore == uint64(g.VersionBefore))
		d.check("version_after", g.VersionAfter >= 0 && rec.VersionAfter == uint64(g.VersionAfter))
		d.check("ts", rec.TS == uint64(g.TS) && g.TS >= 0)
		return signer{rec.Writer, rec.KID, rec.TS, rec.Sig, nil}, d, nil
	}
}

// signedRows reads table t's rows with cols: of decodes one row (its
// problems recorded on r), and sign attaches the row's signed record when
// the table carries records and the row decoded. A malformed row is
// skipped and listed in the returned RowErrors; every other row is
// returned with it.
func signedRows[T any](ctx context.Context, s *Snapshot, t string, cols []column, of func(r *row) T, sign func(r *row, x *T)) ([]T, error) {
	cols, signed, err := s.signedCols(ctx, t, cols)
	if err != nil {
		return nil, err
	}
	var out []T
	bad := rowErrs{s: s, table: t}
	err = s.streamBounded(ctx, t, cols, "", nil, func(r *row) error {
		x := of(r)
		if signed && r.err == nil {
			sign(r, &x)
		}
		if r.err != nil {
			bad.add(r.err)
			return nil
		}
		out = append(out, x)
		return nil
	})
	return out, bad.result(err)
}
