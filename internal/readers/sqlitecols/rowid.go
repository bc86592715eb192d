package sqlitecols

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
)

// RowOrder is how to read a table in the order SQLite stored its rows.
type RowOrder struct {
	// Expr selects the real rowid; "" when every alias is shadowed.
	Expr string
	// Shadowing names the table's own columns that take an alias of the
	// rowid (rowid, _rowid_, oid, in any case): a reader that selects
	// "rowid" gets that column, which the writer of the table controls.
	Shadowing []string
}

// Order finds an alias of table's real rowid that no column shadows
// (https://sqlite.org/lang_createtable.html#rowid: "rowid", "_rowid_" and
// "oid" refer to the rowid unless a column of that name exists; names are
// case-insensitive).
func Order(ctx context.Context, db *sql.DB, table string) (RowOrder, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return RowOrder{}, err
	}
	defer rows.Close()
	var o RowOrder
	taken := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return RowOrder{}, err
		}
		for _, alias := range []string{"rowid", "_rowid_", "oid"} {
			if strings.EqualFold(n, alias) {
				taken[alias] = true
				o.Shadowing = append(o.Shadowing, n)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return RowOrder{}, err
	}
	for _, alias := range []string{"rowid", "_rowid_", "oid"} {
		if !taken[alias] {
			o.Expr = alias
			break
		}
	}
	return o, nil
}

// Message describes the shadowing for a finding, "" when there is none.
func (o RowOrder) Message(table string) string {
	if len(o.Shadowing) == 0 {
		return ""
	}
	if o.Expr == "" {
		return fmt.Sprintf("table %s has columns %s shadowing every alias of SQLite's rowid: rows are read in table-scan order (which is rowid order) and numbered from 1", table, finding.QuoteAll(o.Shadowing))
	}
	return fmt.Sprintf("table %s has a column \"%s\" shadowing SQLite's rowid (a reader selecting rowid gets the column's values, which whoever wrote the table chose): rows are ordered by the real rowid (%s)", table, o.Shadowing, o.Expr)
}
