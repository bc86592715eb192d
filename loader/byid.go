package loader

import (
	"context"
	"fmt"
	"strings"
)

// Targeted reads for a monitor that checks what is new in a store rather
// than the whole store: rows by their unique id (one B-tree descent each on
// the UNIQUE index the schema declares; see HasUniqueIndex) and rows
// appended after a seq (a range of the INTEGER PRIMARY KEY). Rows come
// with their records decoded, cells bounded, in seq order, exactly as the
// streaming readers give them.

// inBatches runs read on ids in groups of at most maxSeqBatch, each as
// "column IN (?, ...)".
func inBatches(ids []string, column string, read func(where string, args []any) error) error {
	for len(ids) > 0 {
		n := min(len(ids), maxSeqBatch)
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		if err := read(column+" IN (?"+strings.Repeat(",?", n-1)+")", args); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// EntriesByID reads the entry rows whose eid is one of ids.
func (s *Snapshot) EntriesByID(ctx context.Context, ids []string, fn func(*EntryRow) error) error {
	return inBatches(ids, "eid", func(where string, args []any) error {
		return s.entriesWhere(ctx, where, args, fn)
	})
}

// WritesByID reads the structural write rows whose wid is one of ids.
func (s *Snapshot) WritesByID(ctx context.Context, ids []string, fn func(*WriteRow) error) error {
	return inBatches(ids, "wid", func(where string, args []any) error {
		return s.writesWhere(ctx, where, args, fn)
	})
}

// TombstonesByTarget reads the tombstone rows whose target is one of ids.
func (s *Snapshot) TombstonesByTarget(ctx context.Context, ids []string, fn func(*TombstoneRow) error) error {
	return inBatches(ids, "target", func(where string, args []any) error {
		return s.tombstonesWhere(ctx, where, args, fn)
	})
}

// EntriesAfter reads the entry rows with seq > after.
func (s *Snapshot) EntriesAfter(ctx context.Context, after int64, fn func(*EntryRow) error) error {
	return s.entriesWhere(ctx, "seq > ?", []any{after}, fn)
}

// WritesAfter reads the structural write rows with seq > after.
func (s *Snapshot) WritesAfter(ctx context.Context, after int64, fn func(*WriteRow) error) error {
	return s.writesWhere(ctx, "seq > ?", []any{after}, fn)
}

// TombstonesAfter reads the tombstone rows with seq > after.
func (s *Snapshot) TombstonesAfter(ctx context.Context, after int64, fn func(*TombstoneRow) error) error {
	return s.tombstonesWhere(ctx, "seq > ?", []any{after}, fn)
}

// PrincipalsAfter reads the registry event rows with seq > after.
func (s *Snapshot) PrincipalsAfter(ctx context.Context, after int64, fn func(*PrincipalRow) error) error {
	return s.principalsWhere(ctx, "seq > ?", []any{after}, fn)
}

func (s *Snapshot) entriesWhere(ctx context.Context, where string, args []any, fn func(*EntryRow) error) error {
	return s.streamBounded(ctx, "entries", entryCols, where, args, func(r *row) error {
		e := s.entryRow(r)
		s.DecodeEntryRow(e)
		return fn(e)
	})
}

// maxKeysAfter bounds the rows KeysAfter returns in one call.
const maxKeysAfter = 100000

// KeyRow is a row's seq, id and claimed leaf (-1: none).
type KeyRow struct {
	Seq  int64
	ID   string
	Leaf int64
}

// KeysAfter returns the seq, id and leaf_index of the rows of table
// (nodes, queries or actions) with seq > after, in seq order, at most
// maxKeysAfter of them (more is an error: the caller then reads the table
// whole). A cell that is not what the schema says reads as "" or -1.
func (s *Snapshot) KeysAfter(ctx context.Context, table string, after int64) ([]KeyRow, error) {
	switch table {
	case "nodes", "queries", "actions":
	default:
		return nil, fmt.Errorf("loader: KeysAfter reads nodes, queries or actions, not %q", table)
	}
	var out []KeyRow
	cols := []column{{"id", maxIDCell, false}, {"leaf_index", maxNumCell, true}}
	err := s.streamBounded(ctx, table, cols, "seq > ?", []any{after}, func(r *row) error {
		if len(out) == maxKeysAfter {
			return fmt.Errorf("more than %d new rows", maxKeysAfter)
		}
		out = append(out, KeyRow{Seq: r.seq, ID: r.str(s, table, 0), Leaf: r.int(s, table, 1, -1)})
		return nil
	})
	if err != nil {
		return nil, s.errf(table, "", "id", err)
	}
	return out, nil
}
