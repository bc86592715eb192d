package loader

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
// content, whether the content is a signed record, and its time column.
var keyedTables = map[string]struct {
	key, content string
	signed       bool
	leaf, ts     string
}{
	"entries":     {"eid", "record", true, "leaf_index", "ts"},
	"writes":      {"wid", "record", true, "leaf_index", "ts"},
	"principals":  {"rid", "record", true, "leaf_index", "ts"},
	"tombstones":  {"target", "record", true, "leaf_index", "NULL"},
	"queries":     {"id", "json_array(text, k, reset, dense, selected, ts)", false, "NULL", "ts"},
	"actions":     {"id", "json_array(tool, params, justification, dispatched, ts)", false, "NULL", "ts"},
	"gate_events": {"id", "json_array(candidate_eid, candidate_hash, verdict, reason, version_before, version_after, ts)", false, "NULL", "ts"},
}

// KeyedTables lists the tables EachKeyed streams, in a fixed order.
var KeyedTables = []string{"principals", "entries", "writes", "tombstones", "queries", "actions", "gate_events"}

// Horizon limits a keyed stream to the store as of one of its checkpoints:
// logged rows with a leaf below MaxLeaves, unlogged rows recorded at or
// before MaxTS. Zero values mean no limit.
type Horizon struct {
	MaxLeaves uint64
	MaxTS     int64
}

// EachKeyed streams a table in key order (SQLite's binary collation, the
// same as Go's string order), one row at a time, so two million-row
// snapshots can be compared in bounded memory.
func (s *Snapshot) EachKeyed(ctx context.Context, table string, h Horizon, fn func(*KeyedRow) error) error {
	t, ok := keyedTables[table]
	if !ok {
		return fmt.Errorf("loader: no keyed table %q", table)
	}
	q := fmt.Sprintf("SELECT %s, %s, %s, %s FROM %s", t.key, t.content, t.leaf, t.ts, table)
	var where []string
	if h.MaxLeaves > 0 && t.leaf != "NULL" {
		where = append(where, fmt.Sprintf("(%s IS NULL OR %s < %d)", t.leaf, t.leaf, h.MaxLeaves))
	}
	if h.MaxTS > 0 && !t.signed {
		where = append(where, fmt.Sprintf("%s <= %d", t.ts, h.MaxTS))
	}
	for i, w := range where {
		if i == 0 {
			q += " WHERE " + w
		} else {
			q += " AND " + w
		}
	}
	q += " ORDER BY " + t.key
	return s.stream(ctx, table, q, func(rows *sql.Rows) error {
		r := KeyedRow{Signed: t.signed}
		var content any
		var leaf, ts sql.NullInt64
		if err := rows.Scan(&r.Key, &content, &leaf, &ts); err != nil {
			return s.errf(table, r.Key, "", err)
		}
		switch c := content.(type) {
		case []byte:
			r.Bytes = c
		case string:
			r.Bytes = []byte(c)
		case nil:
		default:
			b, _ := json.Marshal(c)
			r.Bytes = b
		}
		r.Leaf, r.TS = nullInt(leaf), ts.Int64
		return fn(&r)
	})
}
