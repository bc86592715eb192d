package loader

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// LiveWhole are the tables OpenLiveBefore shows whole: the registry, and
// the meta values a writer signs when it closes (at the end of the log).
// A row of theirs the checkpoint does not cover only loses its
// verification, not the graph's shape.
var LiveWhole = []string{"meta", "principals"}

// OpenLiveBefore opens a snapshot a recorder may be writing, as OpenLive
// does (read-only, one connection, one read transaction, the file never
// written), and shows it as it stands before leaf size: every format
// table with a leaf_index column, but those of LiveWhole, is read
// without its rows that claim a leaf at or beyond size, the rows a
// checkpoint of that size does not cover yet. Rows without a leaf stay.
//
// The rows are hidden, not removed: a TEMP view named like each such
// table selects the main table's rows whose leaf_index is NULL or not
// >= size. SQLite resolves an unqualified table name in the temp schema
// first, so every read of this handle goes through the views, which
// SQLite flattens into the main table's own indexes (an eid look-up is
// one descent of the UNIQUE index). The temp schema lives in the
// connection, not in the file. The structure checks ran on the main
// tables before the views were made, and a table they refuse gets no
// view. The condition is the complement, row for row, of the condition
// under which a monitor's whole-store round deletes held-back rows from
// its copy, so both read the same rows.
func OpenLiveBefore(ctx context.Context, path string, size uint64) (*Snapshot, error) {
	// query_only is set once the views exist: the temp schema must be
	// written first (mode=ro keeps the file itself read-only throughout).
	s, err := openLive(ctx, path, "")
	if err != nil {
		return nil, err
	}
	if err := s.hideFrom(ctx, int64(min(size, math.MaxInt64))); err != nil {
		s.db.Close()
		return nil, &Error{File: path, Err: fmt.Errorf("hiding rows past leaf %d: %w", size, err)}
	}
	return s, nil
}

// hideFrom makes the temp views of OpenLiveBefore, then forbids writes.
func (s *Snapshot) hideFrom(ctx context.Context, size int64) error {
	for _, t := range slices.Concat(Tables, OptionalTables) {
		if slices.Contains(LiveWhole, t) || !s.Has(t) {
			continue
		}
		cols, err := s.columns(ctx, t)
		if err != nil {
			return err
		}
		if !cols["leaf_index"] { // absent, or no leaf to hold back by
			continue
		}
		q := fmt.Sprintf("CREATE TEMP VIEW %[1]q AS SELECT * FROM main.%[1]q WHERE leaf_index IS NULL OR NOT (leaf_index >= %[2]d)", t, size)
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	_, err := s.db.ExecContext(ctx, "PRAGMA query_only = 1")
	return err
}
