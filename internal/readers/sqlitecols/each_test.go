package sqlitecols

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// writeDB creates an SQLite file with table t(n) holding 1..rows.
func writeDB(t *testing.T, rows int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.sqlite")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t(n INTEGER); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < ?) INSERT INTO t SELECT i FROM c`, rows); err != nil {
		t.Fatal(err)
	}
	return path
}

// EachRow hands every row over in the query's order, stops when the
// callback fails or the context ends, and names where a bad query ran.
func TestEachRow(t *testing.T) {
	t.Parallel()
	path := writeDB(t, 5)
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var got []int
	err = EachRow(ctx, db, path+": t", "SELECT n FROM t ORDER BY n DESC", nil, func(rows *sql.Rows) error {
		var n int
		if err := rows.Scan(&n); err != nil {
			return err
		}
		got = append(got, n)
		return nil
	})
	if err != nil || len(got) != 5 || got[0] != 5 || got[4] != 1 {
		t.Errorf("rows %v, err %v", got, err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := EachRow(ctx, db, path, "SELECT n FROM t", nil, func(*sql.Rows) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a failing callback: err %v after %d calls", err, calls)
	}
	cancelled, cancel := context.WithCancel(ctx)
	calls = 0
	err = EachRow(cancelled, db, path, "SELECT n FROM t", nil, func(*sql.Rows) error { calls++; cancel(); return nil })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled: err %v after %d calls", err, calls)
	}
	if err := EachRow(ctx, db, path+": nosuch", "SELECT n FROM nosuch", nil, func(*sql.Rows) error { return nil }); err == nil || !strings.HasPrefix(err.Error(), path+": nosuch: ") {
		t.Errorf("a bad query: %v", err)
	}
}
