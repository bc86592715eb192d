package sqlitecols

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// OpenDescribed lists the SQLite file at path among the store's files
// (storefile.Describe; what names it) and opens it read-only (Open).
func OpenDescribed(ctx context.Context, path, what string, st *storemodel.Store) (*sql.DB, error) {
	desc, err := storefile.Describe(ctx, path, what)
	if err != nil {
		return nil, err
	}
	st.Files = append(st.Files, desc)
	return Open(path)
}

// EachRow runs query on db and calls each for every row, in the order the
// query gives, until each fails or ctx is cancelled (a store of millions
// of rows stops on Ctrl-C). where prefixes the query's own error (the
// file, and the table read).
func EachRow(ctx context.Context, db *sql.DB, where, query string, args []any, each func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
