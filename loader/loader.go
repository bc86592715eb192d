// Package loader reads memscope evidence without ever writing it. The
// snapshot is opened read-only and immutable, every signed record is decoded
// strictly and checked for canonical form, and large tables are streamed row
// by row so that a million-entry store is never held twice.
package loader

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// Error names where bad evidence was found: the file, the table or leaf, the
// record id and the field.
type Error struct {
	File   string
	Table  string
	Record string
	Field  string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Table != "" {
		b.WriteString(": table ")
		b.WriteString(e.Table)
	}
	if e.Record != "" {
		b.WriteString(": record ")
		b.WriteString(e.Record)
	}
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Snapshot is an open, read-only snapshot.
type Snapshot struct {
	Path string
	// Meta holds the meta table's unsigned key/value claims. Nothing in it
	// may decide a label, a policy or a verdict; it is shown as a claim.
	Meta     map[string]string
	db       *sql.DB
	problems []Problem
	refused  map[string]string // format table -> why it is not read
	rowsRead atomic.Int64      // rows streamBounded handed on (RowsRead)
}

// DSN is the modernc.org/sqlite connection string that opens path read-only
// and immutable: SQLite then takes no locks, writes no journal and never
// touches the file.
func DSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&immutable=1&_pragma=query_only(1)"}
	return u.String(), nil
}

// IsSQLiteFile says whether path is a regular file that begins as an
// SQLite database does (the header OpenContext checks): what may be a
// snapshot, or a native store kept in SQLite.
func IsSQLiteFile(path string) bool {
	f, err := evidence.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var header [16]byte
	n, _ := io.ReadFull(f, header[:])
	return hasSQLiteHeader(header[:n])
}

// hasSQLiteHeader says whether b begins as an SQLite database file does,
// the one header check every open here makes.
func hasSQLiteHeader(b []byte) bool {
	return len(b) >= 16 && string(b[:15]) == "SQLite format 3"
}

// opened counts the handles OpenContext made in this process.
var opened atomic.Int64

// Opened is the number of snapshot handles this process has opened: a
// test of a session proves with it that the session opens its file once.
func Opened() int64 { return opened.Load() }

// Open opens a snapshot for reading without a deadline; see OpenContext.
func Open(path string) (*Snapshot, error) { return OpenContext(context.Background(), path) }

// OpenContext opens a snapshot for reading. It fails with a clear error when
// the file is missing, unreadable, not a regular file, not SQLite, or not a
// memscope snapshot. Structural problems that do not stop reading (a view
// in place of a table, a -wal file beside the snapshot) are listed by
// Problems.
func OpenContext(ctx context.Context, path string) (*Snapshot, error) {
	fail := func(err error) (*Snapshot, error) { return nil, &Error{File: path, Err: err} }
	st, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	if !st.Mode().IsRegular() {
		// A FIFO or device would block or never end.
		return fail(fmt.Errorf("not a regular file (%s)", evidence.FileKind(st.Mode())))
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	var header [16]byte
	n, _ := io.ReadFull(f, header[:])
	f.Close()
	if !hasSQLiteHeader(header[:n]) {
		return fail(errors.New("not a SQLite database (bad header)"))
	}
	dsn, err := DSN(path)
	if err != nil {
		return fail(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fail(err)
	}
	// No cap on connections: one handle serves a session's load,
	// verification, provenance pass and content reads at once, each of
	// which may hold a streaming scan while it queries again; a cap would
	// make them wait on each other (or deadlock). Connections are
	// read-only and immutable, so each is cheap.
	db.SetMaxIdleConns(4)
	opened.Add(1)
	s := &Snapshot{Path: path, db: db, Meta: map[string]string{}, refused: map[string]string{}}
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	s.checkSidecars()
	return s, nil
}

// OpenImage opens a snapshot held in memory (a SQLite database image, as
// a fuzzer supplies it): the same structural checks and bounded reads as
// OpenContext, with name standing for the file in errors. The image is
// copied; it is never changed.
func OpenImage(ctx context.Context, name string, image []byte) (*Snapshot, error) {
	if !hasSQLiteHeader(image) {
		return nil, &Error{File: name, Err: errors.New("not a SQLite database (bad header)")}
	}
	db, err := sql.Open("sqlite", "file::memory:?_pragma=query_only(1)")
	if err != nil {
		return nil, &Error{File: name, Err: err}
	}
	// One connection: the image lives in it.
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err == nil {
		err = conn.Raw(func(dc any) error {
			d, ok := dc.(interface{ Deserialize([]byte) error })
			if !ok {
				return errors.New("the SQLite driver cannot load an image")
			}
			return d.Deserialize(append([]byte(nil), image...))
		})
		conn.Close()
	}
	if err != nil {
		db.Close()
		return nil, &Error{File: name, Err: err}
	}
	s := &Snapshot{Path: name, db: db, Meta: map[string]string{}, refused: map[string]string{}}
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// init runs the checks every opening shares; it closes the database when
// they fail.
func (s *Snapshot) init(ctx context.Context) error {
	path, db := s.Path, s.db
	if err := s.checkStructure(ctx); err != nil {
		db.Close()
		return err
	}
	if why := s.refused["meta"]; why != "" {
		db.Close()
		return &Error{File: path, Table: "meta", Err: fmt.Errorf("table meta %s; not a memscope snapshot that can be read", why)}
	}
	if err := s.readMeta(ctx); err != nil {
		db.Close()
		return err
	}
	if got := s.Meta[snapshot.MetaFormat]; got != snapshot.FormatName {
		db.Close()
		return &Error{File: path, Table: "meta", Record: snapshot.MetaFormat, Err: fmt.Errorf("format \"%s\", want \"%s\"", got, snapshot.FormatName)}
	}
	return nil
}

// readMeta reads the meta table with every cell and the row count bounded.
func (s *Snapshot) readMeta(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT octet_length(key), octet_length(value),
		CASE WHEN octet_length(key) <= ? AND octet_length(value) <= ? THEN key END,
		CASE WHEN octet_length(key) <= ? AND octet_length(value) <= ? THEN value END FROM meta LIMIT ?`,
		maxIDCell, maxMetaCell, maxIDCell, maxMetaCell, maxMetaRows+1)
	if err != nil {
		return &Error{File: s.Path, Table: "meta", Err: err}
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if n++; n > maxMetaRows {
			return &Error{File: s.Path, Table: "meta", Err: fmt.Errorf("more than %d rows", maxMetaRows)}
		}
		var kl, vl sql.NullInt64
		var k, v sql.NullString
		if err := rows.Scan(&kl, &vl, &k, &v); err != nil {
			return &Error{File: s.Path, Table: "meta", Record: fmt.Sprintf("row %d", n), Err: err}
		}
		if !k.Valid || !v.Valid {
			return &Error{File: s.Path, Table: "meta", Record: fmt.Sprintf("row %d", n), Err: fmt.Errorf("key of %d bytes or value of %d bytes is NULL or over the limit (%d, %d)", kl.Int64, vl.Int64, maxIDCell, maxMetaCell)}
		}
		s.Meta[k.String] = v.String
	}
	if err := rows.Err(); err != nil {
		return &Error{File: s.Path, Table: "meta", Err: err}
	}
	return nil
}

// Close releases the database handle.
func (s *Snapshot) Close() error { return s.db.Close() }

// Count returns the number of rows of a table.
func (s *Snapshot) Count(ctx context.Context, table string) (int, error) {
	if err := knownTable(table); err != nil {
		return 0, err
	}
	if s.refused[table] != "" {
		return 0, nil
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		return 0, &Error{File: s.Path, Table: table, Err: err}
	}
	return n, nil
}

// knownTable refuses a name that is not one of the snapshot's tables (the
// name is put into SQL text).
func knownTable(table string) error {
	switch table {
	case "principals", "entries", "nodes", "writes", "tombstones", "queries", "actions", "gate_events", "checkpoints":
		return nil
	}
	return fmt.Errorf("loader: no table %q", table)
}

// SeqBounds returns the smallest and largest seq of a table (ok false
// when it is empty). On the INTEGER PRIMARY KEY the writer declares each is
// one B-tree descent, not a scan: a cheap stand-in for count(*) where an
// estimate will do (seqs are distinct integers there, so a table holds at
// most hi-lo+1 rows). A snapshot that declares seq otherwise is still
// answered, by a scan.
func (s *Snapshot) SeqBounds(ctx context.Context, table string) (lo, hi int64, ok bool, err error) {
	if err := knownTable(table); err != nil {
		return 0, 0, false, err
	}
	if s.refused[table] != "" {
		return 0, 0, false, nil
	}
	var l, h sql.NullInt64
	// Two statements: SQLite answers min() or max() alone from the index,
	// but not both in one.
	if err := s.db.QueryRowContext(ctx, "SELECT min(seq) FROM "+table).Scan(&l); err != nil {
		return 0, 0, false, &Error{File: s.Path, Table: table, Field: "seq", Err: err}
	}
	if err := s.db.QueryRowContext(ctx, "SELECT max(seq) FROM "+table).Scan(&h); err != nil {
		return 0, 0, false, &Error{File: s.Path, Table: table, Field: "seq", Err: err}
	}
	if !l.Valid || !h.Valid {
		return 0, 0, false, nil
	}
	return l.Int64, h.Int64, true, nil
}

func (s *Snapshot) errf(table, rec, field string, err error) error {
	return &Error{File: s.Path, Table: table, Record: rec, Field: field, Err: err}
}

// recordErr turns a record decoding error into a loader Error naming the row.
func (s *Snapshot) recordErr(table, rowID string, err error) error {
	var fe *record.FieldError
	if errors.As(err, &fe) {
		id := fe.ID
		if id == "" {
			id = rowID
		}
		return &Error{File: s.Path, Table: table, Record: id, Field: fe.Field, Err: reasonError{fe}}
	}
	return &Error{File: s.Path, Table: table, Record: rowID, Err: err}
}

// reasonError shows only a FieldError's reason (the loader Error already
// names the record and field) while keeping errors.Is working through it.
type reasonError struct{ fe *record.FieldError }

func (r reasonError) Error() string { return r.fe.Reason }
func (r reasonError) Unwrap() error { return r.fe }

func decodeJSON(raw string, out any) error {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after JSON value")
	}
	return nil
}
