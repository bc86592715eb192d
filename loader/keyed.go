package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// KeyedRow is one row of a table streamed in key order, for comparing two
// snapshots by merging: Bytes is the signed record for signed tables, and
// for the others a JSON array of the row's columns (its whole content).
type KeyedRow struct {
	Key    string
	Bytes  []byte
	Signed bool
	Leaf   int64 // -1: no leaf
	TS     int64 // recorded time (0 for signed tables: the record holds it)
}

// keyedTables maps a table to its key column, the columns that make its
// content, whether the content is a signed record, and its leaf and time
// columns.
var keyedTables = map[string]struct {
	key      string
	content  []string // one column: as is; several: a JSON array of them
	signed   bool
	leaf, ts string
	// event tables: a row is signed when its record column is set (stores
	// older than signed events have no record or leaf_index column).
	event bool
}{
	"entries":     {"eid", []string{"record"}, true, "leaf_index", "ts", false},
	"writes":      {"wid", []string{"record"}, true, "leaf_index", "ts", false},
	"principals":  {"rid", []string{"record"}, true, "leaf_index", "ts", false},
	"tombstones":  {"target", []string{"record"}, true, "leaf_index", "NULL", false},
	"nodes":       {"id", []string{"kind", "label", "eid"}, false, "NULL", "NULL", true},
	"queries":     {"id", []string{"text", "k", "reset", "dense", "selected", "ts"}, false, "NULL", "ts", true},
	"actions":     {"id", []string{"tool", "params", "justification", "dispatched", "ts"}, false, "NULL", "ts", true},
	"gate_events": {"id", []string{"candidate_eid", "candidate_hash", "verdict", "reason", "version_before", "version_after", "ts"}, false, "NULL", "ts", true},
}

// KeyedTables lists the tables EachKeyed streams, in a fixed order.
var KeyedTables = []string{"principals", "entries", "writes", "tombstones", "nodes", "queries", "actions", "gate_events"}

// Horizon limits a keyed stream to the store as of one of its checkpoints:
// logged rows with a leaf below MaxLeaves, unlogged rows recorded at or
// before MaxTS. Zero values mean no limit.
type Horizon struct {
	MaxLeaves uint64
	MaxTS     int64
}

// EachKeyed streams a table in key order (SQLite's binary collation, the
// same as Go's string order), one row at a time, so two million-row
// snapshots can be compared in bounded memory. Every cell is bounded as
// in the other readers: its length is checked in SQL before the value is
// fetched, and an oversized key or content is an error naming the row.
func (s *Snapshot) EachKeyed(ctx context.Context, table string, h Horizon, fn func(*KeyedRow) error) error {
	t, ok := keyedTables[table]
	if !ok {
		return fmt.Errorf("loader: no keyed table %q", table)
	}
	if why := s.refused[table]; why != "" {
		return s.errf(table, "", "", fmt.Errorf("table not read: %s", why))
	}
	limit := maxBlobCell
	content := t.content[0]
	length := "octet_length(" + content + ")"
	if len(t.content) > 1 {
		limit = maxJSONCell
		var parts []string
		for _, c := range t.content {
			parts = append(parts, "coalesce(octet_length("+c+"), 0)")
		}
		length = strings.Join(parts, " + ")
		content = "json_array(" + strings.Join(t.content, ", ") + ")"
	}
	signedExpr, leafCol := "0", t.leaf
	if t.signed {
		signedExpr = "1"
	}
	if t.event {
		have, err := s.columns(ctx, table)
		if err != nil {
			return err
		}
		if have["record"] && have["leaf_index"] {
			// A signed row's content is its record; an unsigned row's, its
			// columns.
			signedExpr, leafCol = "record IS NOT NULL", "leaf_index"
			length = "CASE WHEN record IS NOT NULL THEN octet_length(record) ELSE " + length + " END"
			content = "CASE WHEN record IS NOT NULL THEN record ELSE " + content + " END"
			limit = maxJSONCell
		}
	}
	q := fmt.Sprintf("SELECT octet_length(%[1]s), CASE WHEN octet_length(%[1]s) <= %[2]d THEN %[1]s END, %[3]s, CASE WHEN %[3]s <= %[4]d THEN %[5]s END, %[6]s, %[7]s, %[9]s FROM %[8]s",
		t.key, maxIDCell, length, limit, content, leafCol, t.ts, table, signedExpr)
	var where []string
	if h.MaxLeaves > 0 && leafCol != "NULL" {
		where = append(where, fmt.Sprintf("(%s IS NULL OR %s < %d)", leafCol, leafCol, h.MaxLeaves))
	}
	if h.MaxTS > 0 && !t.signed && t.ts != "NULL" {
		// Logged rows are placed by their leaf; the others by their time.
		if leafCol != "NULL" {
			where = append(where, fmt.Sprintf("(%s IS NOT NULL OR %s <= %d)", leafCol, t.ts, h.MaxTS))
		} else {
			where = append(where, fmt.Sprintf("%s <= %d", t.ts, h.MaxTS))
		}
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY " + t.key
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return s.errf(table, "", "", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		var keyLen, contentLen sql.NullInt64
		var key, body any
		var leaf, ts sql.NullInt64
		var signed bool
		if err := rows.Scan(&keyLen, &key, &contentLen, &body, &leaf, &ts, &signed); err != nil {
			return s.errf(table, fmt.Sprintf("row %d in key order", n), "", err)
		}
		r := KeyedRow{Signed: signed, Leaf: nullInt(leaf), TS: ts.Int64}
		switch k := key.(type) {
		case string:
			r.Key = k
		case []byte:
			r.Key = string(k)
		default:
			return s.errf(table, fmt.Sprintf("row %d in key order", n), t.key, fmt.Errorf("key is not text (%d bytes, limit %d)", keyLen.Int64, maxIDCell))
		}
		switch c := body.(type) {
		case []byte:
			r.Bytes = c
		case string:
			r.Bytes = []byte(c)
		default:
			return s.errf(table, r.Key, strings.Join(t.content, ","), fmt.Errorf("content missing or over the %d-byte limit (%d bytes)", limit, contentLen.Int64))
		}
		if err := fn(&r); err != nil {
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

func nullInt(v sql.NullInt64) int64 {
	if !v.Valid {
		return -1
	}
	return v.Int64
}
