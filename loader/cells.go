package loader

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// Cell size limits, checked in SQL with octet_length() before a value is
// fetched: SQLite answers octet_length of a stored value from its record
// header, so an oversized cell is never loaded into memory.
const (
	maxIDCell   = 512                   // ids, names, kinds, hex tags
	maxTextCell = record.MaxRecordBytes // free text and convenience columns
	maxBlobCell = record.MaxRecordBytes // signed records
	maxJSONCell = 16 << 20              // query score maps, action params
	maxNoteCell = 1 << 16               // checkpoint notes (tlog's limit)
	maxNumCell  = 64                    // integers and reals as text
	maxRowErrs  = 1000                  // row errors listed per table read
	maxMetaRows = 1000                  // meta is a handful of keys
	maxMetaCell = snapshot.MaxMetaValue // one meta value
)

// ErrRow marks an error about one row's cells (type, size, NULL); errors.Is
// finds it through a loader Error.
var ErrRow = errors.New("malformed row")

type cellError struct{ msg string }

func (e cellError) Error() string        { return e.msg }
func (e cellError) Is(target error) bool { return target == ErrRow }

// column is one selected column with its byte limit.
type column struct {
	name string
	max  int
	null bool // NULL allowed
}

// selectBounded builds a query returning seq, then for every column its
// octet length and, only when within the limit, its value.
func selectBounded(table string, cols []column, where string) string {
	// meta has no seq: its rowid stands in, and keys give the order.
	seq, order := "seq", "seq"
	if table == "meta" {
		seq, order = "rowid", "key"
	}
	var b strings.Builder
	b.WriteString("SELECT " + seq)
	for _, c := range cols {
		fmt.Fprintf(&b, ", octet_length(%[1]s), CASE WHEN octet_length(%[1]s) <= %[2]d THEN %[1]s END", c.name, c.max)
	}
	b.WriteString(" FROM " + table)
	if where != "" {
		b.WriteString(" WHERE " + where)
	}
	b.WriteString(" ORDER BY " + order)
	return b.String()
}

// row is one row read by streamBounded. Values are int64, float64, string,
// []byte or nil. err is the first cell problem, naming the field.
type row struct {
	seq  int64
	cols []column
	vals []any
	err  *Error
}

func (r *row) fail(s *Snapshot, table, rec, field, format string, a ...any) {
	if r.err == nil {
		if rec == "" {
			rec = "seq " + strconv.FormatInt(r.seq, 10)
		}
		r.err = &Error{File: s.Path, Table: table, Record: rec, Field: field, Err: cellError{fmt.Sprintf(format, a...)}}
	}
}

// streamBounded reads a format table with every cell bounded. A row whose
// cells break a limit or cannot be read is still handed to fn with r.err
// set: one bad row never hides the others. Refused tables read as empty.
func (s *Snapshot) streamBounded(ctx context.Context, table string, cols []column, where string, args []any, fn func(*row) error) error {
	if s.refused[table] != "" {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, selectBounded(table, cols, where), args...)
	if err != nil {
		return s.errf(table, "", "", err)
	}
	defer rows.Close()
	dest := make([]any, 1+2*len(cols))
	raw := make([]any, len(dest))
	for i := range dest {
		dest[i] = &raw[i]
	}
	ordinal := int64(0)
	for rows.Next() {
		ordinal++
		for i := range raw {
			raw[i] = nil
		}
		r := &row{cols: cols, vals: make([]any, len(cols))}
		if err := rows.Scan(dest...); err != nil {
			r.seq = -ordinal
			r.fail(s, table, fmt.Sprintf("row %d", ordinal), "", "%v", err)
		} else {
			seq, ok := raw[0].(int64)
			if !ok {
				r.seq = -ordinal
				r.fail(s, table, fmt.Sprintf("row %d", ordinal), "seq", "not an integer (%s)", typeName(raw[0]))
			}
			r.seq = seq
			for i, c := range cols {
				n, v := raw[1+2*i], raw[2+2*i]
				if n == nil {
					if !c.null {
						r.fail(s, table, "", c.name, "NULL in a NOT NULL column")
					}
					continue
				}
				if l, ok := n.(int64); ok && l > int64(c.max) {
					r.fail(s, table, "", c.name, "%d bytes, over the %d-byte limit (not read)", l, c.max)
					continue
				}
				r.vals[i] = v
			}
		}
		s.rowsRead.Add(1)
		if err := fn(r); err != nil {
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

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "integer"
	case float64:
		return "real"
	case string:
		return "text"
	case []byte:
		return "blob"
	}
	return fmt.Sprintf("%T", v)
}

// Typed accessors: each checks the SQLite storage class and records the
// first problem on the row, returning a zero value.

func (r *row) str(s *Snapshot, table string, i int) string {
	switch v := r.vals[i].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case nil:
		return ""
	default:
		r.fail(s, table, "", r.cols[i].name, "want text, got %s", typeName(v))
		return ""
	}
}

func (r *row) blob(s *Snapshot, table string, i int) []byte {
	switch v := r.vals[i].(type) {
	case []byte:
		// database/sql already copied the cell for the *any scan
		// destination, so v is this row's own.
		return v
	case string:
		return []byte(v)
	case nil:
		return nil
	default:
		r.fail(s, table, "", r.cols[i].name, "want a blob, got %s", typeName(v))
		return nil
	}
}

// int returns the integer, or def when the cell is NULL.
func (r *row) int(s *Snapshot, table string, i int, def int64) int64 {
	switch v := r.vals[i].(type) {
	case int64:
		return v
	case nil:
		return def
	default:
		r.fail(s, table, "", r.cols[i].name, "want an integer, got %s", typeName(v))
		return def
	}
}

func (r *row) real(s *Snapshot, table string, i int) float64 {
	switch v := r.vals[i].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case nil:
		return 0
	default:
		r.fail(s, table, "", r.cols[i].name, "want a number, got %s", typeName(v))
		return 0
	}
}

// RowErrors lists the malformed rows of one table read (at most maxRowErrs,
// then one more error counting the rest). The rows it names were skipped;
// every other row was returned.
type RowErrors []*Error

func (e RowErrors) Error() string {
	if len(e) == 0 {
		return "no malformed rows"
	}
	if len(e) == 1 {
		return e[0].Error()
	}
	return fmt.Sprintf("%s (and %d more malformed rows)", e[0].Error(), len(e)-1)
}

// Unlisted is how many more malformed rows the read skipped than it lists
// (beyond maxRowErrs): their ids are not known to the caller.
func (e RowErrors) Unlisted() int {
	if len(e) == 0 {
		return 0
	}
	var u unlistedRows
	if errors.As(e[len(e)-1].Err, &u) {
		return u.n
	}
	return 0
}

// unlistedRows is the last row error of a capped list: the count of the
// rows not listed.
type unlistedRows struct{ n int }

func (e unlistedRows) Error() string        { return fmt.Sprintf("%d more malformed rows not listed", e.n) }
func (e unlistedRows) Is(target error) bool { return target == ErrRow }

// Unwrap exposes every row error to errors.Is and errors.As.
func (e RowErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, x := range e {
		out[i] = x
	}
	return out
}

// rowErrs collects row errors with the cap.
type rowErrs struct {
	s     *Snapshot
	table string
	errs  RowErrors
	more  int
}

func (c *rowErrs) add(e *Error) {
	if len(c.errs) < maxRowErrs {
		c.errs = append(c.errs, e)
		return
	}
	c.more++
}

// result returns the collected errors, or err if the read itself failed.
func (c *rowErrs) result(err error) error {
	if err != nil {
		return err
	}
	if c.more > 0 {
		c.errs = append(c.errs, &Error{File: c.s.Path, Table: c.table, Err: unlistedRows{c.more}})
	}
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs
}
