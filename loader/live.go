package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/evidence"
	"modernc.org/sqlite"
)

// CopyLive copies the snapshot at path, which a recorder may be writing
// at this moment, into a new file dst (created exclusively), and returns
// when dst holds one consistent state of it. Every analysis opens
// snapshots immutable, which is right for a copy handed to a responder
// but would miss what a live writer keeps in its WAL; so a monitor reads a
// live store through this copy instead. The source is opened read-only
// (mode=ro, not immutable, so SQLite reads the WAL under a shared lock,
// as any reader beside a writer does) and copied page for page by
// SQLite's online backup API in one step: rowids, free pages and row order
// are as the writer left them, which a VACUUM INTO would not keep.
func CopyLive(ctx context.Context, path, dst string) error {
	fail := func(err error) error { return &Error{File: path, Err: err} }
	src, err := liveDSN(path, "")
	if err != nil {
		return fail(err)
	}
	// The destination must not exist: output files are created exclusively.
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	absDst, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	return conn.Raw(func(dc any) error {
		b, ok := dc.(interface {
			NewBackup(string) (*sqlite.Backup, error)
		})
		if !ok {
			return errors.New("the SQLite driver has no backup API")
		}
		bk, err := b.NewBackup(absDst)
		if err != nil {
			return fail(err)
		}
		// One step copies every page under one read transaction: a
		// consistent state even while the writer commits.
		_, stepErr := bk.Step(-1)
		if err := bk.Finish(); stepErr == nil {
			stepErr = err
		}
		if stepErr != nil {
			return fail(fmt.Errorf("copying a consistent state: %w", stepErr))
		}
		return nil
	})
}

// liveDSN is the connection string that opens the regular file at path
// read-only but not immutable (mode=ro, then query), for a reader beside
// a live writer.
func liveDSN(path, query string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		// A FIFO or device would block or never end.
		return "", fmt.Errorf("not a regular file (%s)", evidence.FileKind(st.Mode()))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro" + query}
	return u.String(), nil
}

// liveTables are the record tables LiveCounts counts.
var liveTables = []string{"entries", "writes", "tombstones", "queries", "actions", "principals"}

// LiveCounts counts the record tables of a snapshot that a recorder may
// be writing, through a read-only connection that reads the WAL (not
// immutable, unlike every analysis), so a viewer can say how many records
// landed since it opened the store. A table the snapshot lacks counts 0.
func LiveCounts(ctx context.Context, path string) (map[string]int, error) {
	src, err := liveDSN(path, "&_pragma=query_only(1)")
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	defer db.Close()
	out := map[string]int{}
	for _, t := range liveTables {
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n)
		if err != nil && !strings.Contains(err.Error(), "no such table") {
			return nil, &Error{File: path, Table: t, Err: err}
		}
		out[t] = n
	}
	return out, nil
}

// OpenLive opens a snapshot that a recorder may be writing at this moment
// for a few targeted reads, without copying it: read-only (mode=ro), not
// immutable, so SQLite reads the writer's WAL under a shared lock as any
// reader beside a writer does. Every read goes through one connection
// inside one read transaction (BEGIN, first read, until Close), so all
// of them see one consistent state even while the writer commits. Only
// one statement may be open at a time: a caller must finish (or close)
// one row stream before it starts another. The file is never written.
func OpenLive(ctx context.Context, path string) (*Snapshot, error) {
	return openLive(ctx, path, "&_pragma=query_only(1)")
}

// openLive is OpenLive with the connection string's extra query.
func openLive(ctx context.Context, path, query string) (*Snapshot, error) {
	fail := func(err error) (*Snapshot, error) { return nil, &Error{File: path, Err: err} }
	src, err := liveDSN(path, query)
	if err != nil {
		return fail(err)
	}
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return fail(err)
	}
	// One connection holds the read transaction: database/sql hands every
	// statement that same connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	if _, err := db.ExecContext(ctx, "BEGIN"); err != nil {
		db.Close()
		return fail(err)
	}
	opened.Add(1)
	s := &Snapshot{Path: path, db: db, Meta: map[string]string{}, refused: map[string]string{}}
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// HasUniqueIndex reports whether table has a UNIQUE index (or primary
// key) on exactly column, so that a lookup by it is one B-tree descent
// rather than a scan of the table. It asks about the file's table (schema
// main), also on a handle whose TEMP view of the same name hides rows
// (OpenLiveBefore): a look-up through that view uses the table's index.
func (s *Snapshot) HasUniqueIndex(ctx context.Context, table, column string) (bool, error) {
	if err := knownTable(table); err != nil {
		return false, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT il.name FROM pragma_index_list(?, 'main') il WHERE il."unique" = 1
		AND (SELECT count(*) FROM pragma_index_info(il.name, 'main')) = 1
		AND (SELECT name FROM pragma_index_info(il.name, 'main')) = ?`, table, column)
	if err != nil {
		return false, s.errf(table, "", column, err)
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// RowsRead counts the format-table rows this handle has streamed (every
// row a bounded read handed on): a monitor's test proves with it that a
// round reads what is new, not the store.
func (s *Snapshot) RowsRead() int64 { return s.rowsRead.Load() }
