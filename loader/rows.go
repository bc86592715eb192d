package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memscope/memscope/evidence/record"
)

// EntryRow is one row of the entries table. Entry is nil when the signed
// bytes could not be decoded or the row's cells could not be read;
// DecodeErr then says why, naming the field (errors.Is(DecodeErr, ErrRow)
// for a cell problem).
type EntryRow struct {
	Seq       int64
	EID       string
	Writer    string
	Trust     int
	TS        int64
	Content   string
	SessionID string
	HMACTag   string
	LeafIndex int64 // -1 when the row names no leaf
	Raw       []byte
	Entry     *record.Entry
	DecodeErr error
}

// WriteRow is one row of the writes table.
type WriteRow struct {
	Seq       int64
	WID       string
	Kind      string
	Src, Dst  string
	Rel       string
	Weight    float64
	Writer    string
	TS        int64
	LeafIndex int64
	Raw       []byte
	Write     *record.Write
	DecodeErr error
}

// PrincipalRow is one row of the principals table.
type PrincipalRow struct {
	Seq       int64
	RID       string
	Op        string
	Principal string
	Channel   string
	TS        int64
	LeafIndex int64
	Raw       []byte
	Event     *record.PrincipalEvent
	DecodeErr error
}

// TombstoneRow is one row of the tombstones table.
type TombstoneRow struct {
	Seq       int64
	Target    string
	LeafIndex int64
	Raw       []byte
	Tombstone *record.Tombstone
	DecodeErr error
}

// ErrStop ends a streaming callback early without an error.
var ErrStop = errors.New("stop")

var entryCols = []column{{"eid", maxIDCell, false}, {"writer", maxIDCell, false}, {"trust", maxNumCell, false}, {"ts", maxNumCell, false},
	{"content", maxTextCell, false}, {"session_id", maxIDCell, true}, {"hmac_tag", maxIDCell, true}, {"leaf_index", maxNumCell, true}, {"record", maxBlobCell, false}}

func (s *Snapshot) entryRow(r *row) *EntryRow {
	const t = "entries"
	e := &EntryRow{Seq: r.seq, EID: r.str(s, t, 0), Writer: r.str(s, t, 1), Trust: int(r.int(s, t, 2, 0)), TS: r.int(s, t, 3, 0),
		Content: r.str(s, t, 4), SessionID: r.str(s, t, 5), HMACTag: r.str(s, t, 6), LeafIndex: r.int(s, t, 7, -1), Raw: r.blob(s, t, 8)}
	if r.err != nil {
		e.DecodeErr = r.err
	}
	return e
}

// EachEntryRaw streams entries without decoding the signed bytes, for
// callers that decode in parallel (see DecodeEntryRow). Raw is a fresh
// slice for every row. A row whose cells could not be read comes with
// DecodeErr already set.
func (s *Snapshot) EachEntryRaw(ctx context.Context, fn func(*EntryRow) error) error {
	return s.streamBounded(ctx, "entries", entryCols, "", nil, func(r *row) error {
		return fn(s.entryRow(r))
	})
}

// DecodeEntryRow decodes a row's signed bytes into r.Entry or r.DecodeErr;
// a row that already failed to read keeps its error.
func (s *Snapshot) DecodeEntryRow(r *EntryRow) {
	if r.DecodeErr != nil {
		return
	}
	r.Entry, r.DecodeErr = record.DecodeEntry(r.Raw)
	if r.DecodeErr != nil {
		r.DecodeErr = s.recordErr("entries", r.EID, r.DecodeErr)
	}
}

// EachEntry streams entries with their records decoded.
func (s *Snapshot) EachEntry(ctx context.Context, fn func(*EntryRow) error) error {
	return s.EachEntryRaw(ctx, func(r *EntryRow) error {
		s.DecodeEntryRow(r)
		return fn(r)
	})
}

var writeCols = []column{{"wid", maxIDCell, false}, {"kind", maxIDCell, false}, {"src", maxIDCell, false}, {"dst", maxIDCell, false},
	{"rel", maxIDCell, false}, {"weight", maxNumCell, false}, {"writer", maxIDCell, false}, {"ts", maxNumCell, false},
	{"leaf_index", maxNumCell, true}, {"record", maxBlobCell, false}}

// EachWrite streams structural writes with their records decoded.
func (s *Snapshot) EachWrite(ctx context.Context, fn func(*WriteRow) error) error {
	return s.writesWhere(ctx, "", nil, fn)
}

func (s *Snapshot) writesWhere(ctx context.Context, where string, args []any, fn func(*WriteRow) error) error {
	const t = "writes"
	return s.streamBounded(ctx, t, writeCols, where, args, func(r *row) error {
		w := &WriteRow{Seq: r.seq, WID: r.str(s, t, 0), Kind: r.str(s, t, 1), Src: r.str(s, t, 2), Dst: r.str(s, t, 3), Rel: r.str(s, t, 4),
			Weight: r.real(s, t, 5), Writer: r.str(s, t, 6), TS: r.int(s, t, 7, 0), LeafIndex: r.int(s, t, 8, -1), Raw: r.blob(s, t, 9)}
		if r.err != nil {
			w.DecodeErr = r.err
			return fn(w)
		}
		w.Write, w.DecodeErr = record.DecodeWrite(w.Raw)
		if w.DecodeErr != nil {
			w.DecodeErr = s.recordErr(t, w.WID, w.DecodeErr)
		}
		return fn(w)
	})
}

var principalCols = []column{{"rid", maxIDCell, false}, {"op", maxIDCell, false}, {"principal", maxIDCell, false}, {"channel", maxIDCell, false},
	{"ts", maxNumCell, false}, {"leaf_index", maxNumCell, true}, {"record", maxBlobCell, false}}

// EachPrincipal streams registry events with their records decoded, in
// the snapshot's row order (which is unsigned: verify applies them in log
// order).
func (s *Snapshot) EachPrincipal(ctx context.Context, fn func(*PrincipalRow) error) error {
	return s.principalsWhere(ctx, "", nil, fn)
}

func (s *Snapshot) principalsWhere(ctx context.Context, where string, args []any, fn func(*PrincipalRow) error) error {
	const t = "principals"
	return s.streamBounded(ctx, t, principalCols, where, args, func(r *row) error {
		p := &PrincipalRow{Seq: r.seq, RID: r.str(s, t, 0), Op: r.str(s, t, 1), Principal: r.str(s, t, 2), Channel: r.str(s, t, 3),
			TS: r.int(s, t, 4, 0), LeafIndex: r.int(s, t, 5, -1), Raw: r.blob(s, t, 6)}
		if r.err != nil {
			p.DecodeErr = r.err
			return fn(p)
		}
		p.Event, p.DecodeErr = record.DecodePrincipalEvent(p.Raw)
		if p.DecodeErr != nil {
			p.DecodeErr = s.recordErr(t, p.RID, p.DecodeErr)
		}
		return fn(p)
	})
}

var tombstoneCols = []column{{"target", maxIDCell, false}, {"leaf_index", maxNumCell, true}, {"record", maxBlobCell, false}}

// EachTombstone streams tombstones with their records decoded.
func (s *Snapshot) EachTombstone(ctx context.Context, fn func(*TombstoneRow) error) error {
	return s.tombstonesWhere(ctx, "", nil, fn)
}

func (s *Snapshot) tombstonesWhere(ctx context.Context, where string, args []any, fn func(*TombstoneRow) error) error {
	const t = "tombstones"
	return s.streamBounded(ctx, t, tombstoneCols, where, args, func(r *row) error {
		ts := &TombstoneRow{Seq: r.seq, Target: r.str(s, t, 0), LeafIndex: r.int(s, t, 1, -1), Raw: r.blob(s, t, 2)}
		if r.err != nil {
			ts.DecodeErr = r.err
			return fn(ts)
		}
		ts.Tombstone, ts.DecodeErr = record.DecodeTombstone(ts.Raw)
		if ts.DecodeErr != nil {
			ts.DecodeErr = s.recordErr(t, ts.Target, ts.DecodeErr)
		}
		return fn(ts)
	})
}

// EntryByID reads and decodes one entry row by its id.
func (s *Snapshot) EntryByID(ctx context.Context, eid string) (*EntryRow, error) {
	var out *EntryRow
	err := s.streamBounded(ctx, "entries", entryCols, "eid = ?", []any{eid}, func(r *row) error {
		out = s.entryRow(r)
		return ErrStop
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, s.errf("entries", eid, "", errors.New("no such entry"))
	}
	s.DecodeEntryRow(out)
	return out, nil
}

// EachEntryID streams only the id column of the entries table, in row
// order: a cheap first pass for checks that need every id up front. A row
// whose id cannot be read is passed as "".
func (s *Snapshot) EachEntryID(ctx context.Context, fn func(eid string) error) error {
	return s.streamBounded(ctx, "entries", entryCols[:1], "", nil, func(r *row) error {
		return fn(r.str(s, "entries", 0))
	})
}

// EntryKey is an entry row's id and claimed leaf, without the record.
type EntryKey struct {
	Seq  int64
	EID  string
	Leaf int64 // -1 when the row names no leaf
	// Err is set when a cell of the row could not be read (naming the
	// field); EID and Leaf are then what could be read.
	Err error
}

// EachEntryKey streams only the id and leaf columns of the entries table,
// in row order: a cheap pass for analyses that need to know every row but
// decode only a few (see EntriesBySeq).
func (s *Snapshot) EachEntryKey(ctx context.Context, fn func(EntryKey) error) error {
	const t = "entries"
	cols := []column{entryCols[0], entryCols[7]}
	return s.streamBounded(ctx, t, cols, "", nil, func(r *row) error {
		k := EntryKey{Seq: r.seq, EID: r.str(s, t, 0), Leaf: r.int(s, t, 1, -1)}
		if r.err != nil {
			k.Err = r.err
		}
		return fn(k)
	})
}

// EachEntryKeyRange is EachEntryKey over the rows with lo <= seq <= hi,
// with three result columns instead of five per row: the cell checks
// (the id text and at most maxIDCell bytes, the leaf an integer or NULL)
// are done by SQLite, and a row that fails them comes back with Err set.
// Ranges read on separate goroutines use separate connections, so a scan
// of a million rows can be split over the cores.
func (s *Snapshot) EachEntryKeyRange(ctx context.Context, lo, hi int64, fn func(EntryKey) error) error {
	const t = "entries"
	if s.refused[t] != "" {
		return nil
	}
	q := fmt.Sprintf(`SELECT seq, CASE WHEN typeof(eid) = 'text' AND octet_length(eid) <= %d THEN eid END,
		CASE WHEN leaf_index IS NULL THEN -1 WHEN typeof(leaf_index) = 'integer' THEN leaf_index END
		FROM entries WHERE seq BETWEEN ? AND ? ORDER BY seq`, maxIDCell)
	rows, err := s.db.QueryContext(ctx, q, lo, hi)
	if err != nil {
		return s.errf(t, "", "", err)
	}
	defer rows.Close()
	var (
		seq  int64
		eid  sql.NullString
		leaf sql.NullInt64
	)
	for rows.Next() {
		if err := rows.Scan(&seq, &eid, &leaf); err != nil {
			return s.errf(t, "", "", err)
		}
		k := EntryKey{Seq: seq, EID: eid.String, Leaf: leaf.Int64}
		switch rec := "seq " + strconv.FormatInt(seq, 10); {
		case !eid.Valid:
			k.Err = &Error{File: s.Path, Table: t, Record: rec, Field: "eid", Err: cellError{fmt.Sprintf("not text of at most %d bytes", maxIDCell)}}
		case !leaf.Valid:
			k.Err = &Error{File: s.Path, Table: t, Record: rec, Field: "leaf_index", Err: cellError{"not an integer"}}
		}
		if err := fn(k); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.errf(t, "", "", err)
	}
	return nil
}

// maxSeqBatch bounds the parameters of one EntriesBySeq statement.
const maxSeqBatch = 500

// EntriesBySeq reads the entry rows with these seq values, in seq order,
// with their records decoded. Seqs that name no row are skipped.
func (s *Snapshot) EntriesBySeq(ctx context.Context, seqs []int64, fn func(*EntryRow) error) error {
	seqs = slices.Clone(seqs)
	slices.Sort(seqs)
	seqs = slices.Compact(seqs)
	for len(seqs) > 0 {
		n := min(len(seqs), maxSeqBatch)
		args := make([]any, n)
		for i, q := range seqs[:n] {
			args[i] = q
		}
		where := "seq IN (?" + strings.Repeat(",?", n-1) + ")"
		err := s.streamBounded(ctx, "entries", entryCols, where, args, func(r *row) error {
			e := s.entryRow(r)
			s.DecodeEntryRow(e)
			return fn(e)
		})
		if err != nil {
			return err
		}
		seqs = seqs[n:]
	}
	return nil
}

// EntriesInSeqRange reads the entry rows with lo <= seq <= hi, in seq
// order, with their records decoded: a window of rows for a reader that
// pages through the table instead of holding it (one index range scan).
func (s *Snapshot) EntriesInSeqRange(ctx context.Context, lo, hi int64, fn func(*EntryRow) error) error {
	return s.streamBounded(ctx, "entries", entryCols, "seq >= ? AND seq <= ?", []any{lo, hi}, func(r *row) error {
		e := s.entryRow(r)
		s.DecodeEntryRow(e)
		return fn(e)
	})
}
