package loader

import (
	"errors"
	"testing"
)

// FuzzRowDecoders feeds arbitrary cell values (any SQLite storage class)
// to the row decoders of the unsigned tables and the typed accessors of
// the signed ones. A row is either decoded or carries an error naming its
// table and field; never a panic.
func FuzzRowDecoders(f *testing.F) {
	f.Add("q1", "text", int64(5), `{"a":1}`, `{"p":0.5}`, `["p"]`, []byte{1, 2}, uint8(0))
	f.Add("g1", "accept", int64(-1), `{"a":1e400}`, `{`, `[1]`, []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"), uint8(7))
	f.Add("", "", int64(0), "", "", "", []byte(nil), uint8(255))
	s := &Snapshot{Path: "fuzz.db"}
	f.Fuzz(func(t *testing.T, id, text string, k int64, reset, dense, sel string, blob []byte, kinds uint8) {
		// kinds picks, per cell, the storage class the cell arrives in.
		pick := func(i int, v any) any {
			switch (kinds >> (i % 8)) & 3 {
			case 0:
				return v
			case 1:
				return nil
			case 2:
				return blob
			default:
				return k
			}
		}
		q := &row{seq: 1, cols: queryCols, vals: []any{pick(0, id), pick(1, text), pick(2, k), pick(3, reset), pick(4, dense), pick(5, sel), pick(6, k)}}
		s.queryOf(q)
		check(t, q, "queries")
		g := &row{seq: 2, cols: gateCols, vals: []any{pick(0, id), pick(1, id), pick(2, string(blob)), pick(3, text), pick(4, reset), pick(5, k), pick(6, k), pick(7, k)}}
		s.gateOf(g)
		check(t, g, "gate_events")
		e := &row{seq: 3, cols: entryCols, vals: []any{pick(0, id), pick(1, text), pick(2, k), pick(3, k), pick(4, reset), pick(5, dense), pick(6, sel), pick(7, k), pick(8, blob)}}
		er := s.entryRow(e)
		if er.DecodeErr == nil {
			s.DecodeEntryRow(er)
		}
		if e.err != nil && !errors.Is(er.DecodeErr, ErrRow) {
			t.Fatalf("entry row error %v not reported as a row error", e.err)
		}
	})
}

func check(t *testing.T, r *row, table string) {
	t.Helper()
	if r.err == nil {
		return
	}
	if r.err.Table != table || r.err.File != "fuzz.db" || r.err.Record == "" {
		t.Fatalf("row error does not name file, table and row: %+v", r.err)
	}
}
