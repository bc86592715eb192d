// Package sqlitecols looks at an SQLite file's tables without changing it
// (read-only, immutable), so native stores that are SQLite databases can be
// told apart by their columns.
package sqlitecols

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/memscope/memscope/loader"
)

// Has says whether path is an SQLite database whose table has every column.
func Has(path, table string, cols ...string) bool {
	if !loader.IsSQLiteFile(path) {
		return false
	}
	db, err := Open(path)
	if err != nil {
		return false
	}
	defer db.Close()
	have, err := Columns(context.Background(), db, table)
	if err != nil {
		return false
	}
	for _, c := range cols {
		if !have[c] {
			return false
		}
	}
	return true
}

// Open opens an SQLite file read-only and immutable (loader.DSN): the
// evidence is never written, not even a journal.
func Open(path string) (*sql.DB, error) {
	dsn, err := loader.DSN(path)
	if err != nil {
		return nil, err
	}
	return sql.Open("sqlite", dsn)
}

// Columns returns the column names of a table.
func Columns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out[n] = true
	}
	return out, rows.Err()
}

// Capped selects a column's stored size and, only when it is at most max
// bytes, its value: SQLite answers octet_length from the record header, so an
// oversized cell in a hostile store is never fetched into memory.
func Capped(col string, max int) string {
	return fmt.Sprintf("octet_length(%[1]s), CASE WHEN octet_length(%[1]s) <= %[2]d THEN %[1]s END", col, max)
}

// Cell is one text cell selected with Capped.
type Cell struct {
	Size  sql.NullInt64
	Value sql.NullString
	Max   int
}

// Dest is what rows.Scan fills for the cell (its two selected values).
func (c *Cell) Dest() []any { return []any{&c.Size, &c.Value} }

// Over says whether the stored cell was larger than its cap (and not read).
func (c *Cell) Over() bool { return c.Size.Int64 > int64(c.Max) }
