package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/memscope/memscope/record"
)

// EntryRow is one row of the entries table. Entry is nil when the signed
// bytes could not be decoded; DecodeErr then says why, naming the field.
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

// stream runs a query and hands each row to scan; ErrStop ends quietly.
func (s *Snapshot) stream(ctx context.Context, table, query string, scan func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return s.errf(table, "", "", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.errf(table, "", "", err)
	}
	return nil
}

// EachEntryRaw streams entries without decoding the signed bytes, for
// callers that decode in parallel (see DecodeEntryRow). Raw is reused
// between calls only if the callback does not keep it; it is a fresh slice
// for every row here.
func (s *Snapshot) EachEntryRaw(ctx context.Context, fn func(*EntryRow) error) error {
	return s.stream(ctx, "entries", "SELECT seq, eid, writer, trust, ts, content, session_id, hmac_tag, leaf_index, record FROM entries ORDER BY seq", func(rows *sql.Rows) error {
		var r EntryRow
		var sess, tag sql.NullString
		var leaf sql.NullInt64
		if err := rows.Scan(&r.Seq, &r.EID, &r.Writer, &r.Trust, &r.TS, &r.Content, &sess, &tag, &leaf, &r.Raw); err != nil {
			return s.errf("entries", fmt.Sprintf("seq %d", r.Seq), "", err)
		}
		r.SessionID, r.HMACTag, r.LeafIndex = sess.String, tag.String, nullInt(leaf)
		return fn(&r)
	})
}

// DecodeEntryRow decodes a row's signed bytes into r.Entry or r.DecodeErr.
func (s *Snapshot) DecodeEntryRow(r *EntryRow) {
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

// EachWrite streams structural writes with their records decoded.
func (s *Snapshot) EachWrite(ctx context.Context, fn func(*WriteRow) error) error {
	return s.stream(ctx, "writes", "SELECT seq, wid, kind, src, dst, rel, weight, writer, ts, leaf_index, record FROM writes ORDER BY seq", func(rows *sql.Rows) error {
		var r WriteRow
		var leaf sql.NullInt64
		if err := rows.Scan(&r.Seq, &r.WID, &r.Kind, &r.Src, &r.Dst, &r.Rel, &r.Weight, &r.Writer, &r.TS, &leaf, &r.Raw); err != nil {
			return s.errf("writes", fmt.Sprintf("seq %d", r.Seq), "", err)
		}
		r.LeafIndex = nullInt(leaf)
		r.Write, r.DecodeErr = record.DecodeWrite(r.Raw)
		if r.DecodeErr != nil {
			r.DecodeErr = s.recordErr("writes", r.WID, r.DecodeErr)
		}
		return fn(&r)
	})
}

// EachPrincipal streams registry events with their records decoded.
func (s *Snapshot) EachPrincipal(ctx context.Context, fn func(*PrincipalRow) error) error {
	return s.stream(ctx, "principals", "SELECT seq, rid, op, principal, channel, ts, leaf_index, record FROM principals ORDER BY seq", func(rows *sql.Rows) error {
		var r PrincipalRow
		var leaf sql.NullInt64
		if err := rows.Scan(&r.Seq, &r.RID, &r.Op, &r.Principal, &r.Channel, &r.TS, &leaf, &r.Raw); err != nil {
			return s.errf("principals", fmt.Sprintf("seq %d", r.Seq), "", err)
		}
		r.LeafIndex = nullInt(leaf)
		r.Event, r.DecodeErr = record.DecodePrincipalEvent(r.Raw)
		if r.DecodeErr != nil {
			r.DecodeErr = s.recordErr("principals", r.RID, r.DecodeErr)
		}
		return fn(&r)
	})
}

// EachTombstone streams tombstones with their records decoded.
func (s *Snapshot) EachTombstone(ctx context.Context, fn func(*TombstoneRow) error) error {
	return s.stream(ctx, "tombstones", "SELECT seq, target, leaf_index, record FROM tombstones ORDER BY seq", func(rows *sql.Rows) error {
		var r TombstoneRow
		var leaf sql.NullInt64
		if err := rows.Scan(&r.Seq, &r.Target, &leaf, &r.Raw); err != nil {
			return s.errf("tombstones", fmt.Sprintf("seq %d", r.Seq), "", err)
		}
		r.LeafIndex = nullInt(leaf)
		r.Tombstone, r.DecodeErr = record.DecodeTombstone(r.Raw)
		if r.DecodeErr != nil {
			r.DecodeErr = s.recordErr("tombstones", r.Target, r.DecodeErr)
		}
		return fn(&r)
	})
}

// EntryByID reads and decodes one entry row by its id.
func (s *Snapshot) EntryByID(ctx context.Context, eid string) (*EntryRow, error) {
	var r EntryRow
	var sess, tag sql.NullString
	var leaf sql.NullInt64
	err := s.db.QueryRowContext(ctx, "SELECT seq, eid, writer, trust, ts, content, session_id, hmac_tag, leaf_index, record FROM entries WHERE eid = ?", eid).
		Scan(&r.Seq, &r.EID, &r.Writer, &r.Trust, &r.TS, &r.Content, &sess, &tag, &leaf, &r.Raw)
	if err != nil {
		return nil, s.errf("entries", eid, "", err)
	}
	r.SessionID, r.HMACTag, r.LeafIndex = sess.String, tag.String, nullInt(leaf)
	s.DecodeEntryRow(&r)
	return &r, nil
}

// EachEntryID streams only the id column of the entries table, in row
// order: a cheap first pass for checks that need every id up front.
func (s *Snapshot) EachEntryID(ctx context.Context, fn func(eid string) error) error {
	return s.stream(ctx, "entries", "SELECT eid FROM entries ORDER BY seq", func(rows *sql.Rows) error {
		var id string
		if err := rows.Scan(&id); err != nil {
			return s.errf("entries", "", "eid", err)
		}
		return fn(id)
	})
}
