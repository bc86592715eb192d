package loader

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
)

// Problem is something wrong with the snapshot file as a whole rather than
// with one row: a table that is not a real table, a schema object the
// format does not have, a write-ahead log or journal beside the file. Kind
// is the finding code verify reports it under.
type Problem struct {
	Kind    finding.Code
	Object  string // table, view, trigger or file name
	Message string
}

// Problem kinds (finding codes, see docs/FINDINGS.md).
const (
	ProblemNotTable     = finding.SchemaNotTable     // a format table is a view, virtual table or has generated columns: not read
	ProblemTableMissing = finding.SchemaTableMissing // a format table is absent
	ProblemExtraObject  = finding.SchemaExtraObject  // a trigger, view or virtual table the format does not have
	ProblemWAL          = finding.SnapshotWALPending // a -wal file with committed frames SQLite would apply
	ProblemWALPresent   = finding.SnapshotWALPresent // a -wal file without a valid commit, or one that could not be examined
	ProblemJournal      = finding.SnapshotJournalPresent
)

// Tables are the format's tables, in schema order, meta first.
var Tables = []string{"meta", "principals", "entries", "nodes", "writes", "tombstones", "queries", "actions", "gate_events", "checkpoints"}

// OptionalTables are tables the format allows but does not require: an
// absent one is no problem (it reads as absent, see Has), a view or virtual
// table by that name is refused like a format table.
var OptionalTables = []string{snapshot.VectorTable, snapshot.ImportNoteTable}

// maxSchemaObjects bounds the schema read: the format has a dozen objects
// (tables and their unique indexes); a file with thousands is hostile.
const maxSchemaObjects = 4096

// checkStructure reads sqlite_schema (never any table) and decides which
// format tables may be read. A view or virtual table named like a format
// table would run arbitrary SQL (a recursive view never ends; a view can
// return a gigabyte blob from a kilobyte file); a generated column computes
// its value on read in the same way. Such tables are refused, not read.
func (s *Snapshot) checkStructure(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT substr(type, 1, 16), substr(name, 1, 256), substr(tbl_name, 1, 256),
		coalesce(substr(upper(ltrim(sql)), 1, 20), '') FROM sqlite_schema LIMIT ?`, maxSchemaObjects+1)
	if err != nil {
		return &Error{File: s.Path, Table: "sqlite_schema", Err: err}
	}
	defer rows.Close()
	format := map[string]bool{}
	for _, t := range Tables {
		format[t] = true
	}
	for _, t := range OptionalTables {
		format[t] = true
	}
	found := map[string]bool{}
	n := 0
	for rows.Next() {
		n++
		if n > maxSchemaObjects {
			s.problem(ProblemExtraObject, "sqlite_schema", fmt.Sprintf("more than %d schema objects; the rest were not examined", maxSchemaObjects))
			break
		}
		var typ, name, tbl, sqlHead string
		if err := rows.Scan(&typ, &name, &tbl, &sqlHead); err != nil {
			return &Error{File: s.Path, Table: "sqlite_schema", Err: err}
		}
		lname := strings.ToLower(name)
		switch {
		case typ == "table" && strings.HasPrefix(sqlHead, "CREATE VIRTUAL"):
			if format[lname] {
				found[lname] = true
				s.refuse(lname, "is a virtual table (its module runs code on every read)")
			} else {
				s.problem(ProblemExtraObject, name, "virtual table the format does not have (not read)")
			}
		case typ == "table":
			if format[lname] {
				found[lname] = true
			}
		case typ == "view":
			if format[lname] {
				found[lname] = true
				s.refuse(lname, "is a VIEW, not a table (a view computes its rows on read)")
			} else {
				s.problem(ProblemExtraObject, name, "view the format does not have (not read)")
			}
		case typ == "trigger":
			s.problem(ProblemExtraObject, name, fmt.Sprintf("trigger on %s: the format has no triggers (read-only access never fires it)", tbl))
		case typ == "index":
			// Indexes change no value a query returns.
		default:
			s.problem(ProblemExtraObject, name, fmt.Sprintf("schema object of type \"%s\"", typ))
		}
	}
	if err := rows.Err(); err != nil {
		return &Error{File: s.Path, Table: "sqlite_schema", Err: err}
	}
	rows.Close()
	for _, t := range OptionalTables {
		if !found[t] {
			s.refused[t] = "is absent (optional)"
			continue
		}
		if err := s.refuseGenerated(ctx, t); err != nil {
			return err
		}
	}
	for _, t := range Tables {
		if !found[t] {
			s.problems = append(s.problems, Problem{ProblemTableMissing, t, "table " + t + " is missing"})
			s.refused[t] = "is missing"
			continue
		}
		if err := s.refuseGenerated(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// refuseGenerated refuses a table not yet refused that has generated
// columns.
func (s *Snapshot) refuseGenerated(ctx context.Context, t string) error {
	if s.refused[t] != "" {
		return nil
	}
	gen, err := s.generatedColumns(ctx, t)
	if err != nil {
		return err
	}
	if len(gen) > 0 {
		s.refuse(t, "has generated column(s) "+strings.Join(gen, ", ")+" (computed on read)")
	}
	return nil
}

// generatedColumns lists the generated (hidden 2 or 3) columns of a table.
func (s *Snapshot) generatedColumns(ctx context.Context, table string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT substr(name, 1, 256), hidden FROM pragma_table_xinfo(?) LIMIT 1000", table)
	if err != nil {
		return nil, &Error{File: s.Path, Table: table, Err: err}
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		var hidden int
		if err := rows.Scan(&name, &hidden); err != nil {
			return nil, &Error{File: s.Path, Table: table, Err: err}
		}
		if hidden == 2 || hidden == 3 {
			out = append(out, name)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, &Error{File: s.Path, Table: table, Err: err}
	}
	sort.Strings(out)
	return out, nil
}

func (s *Snapshot) refuse(table, why string) {
	s.refused[table] = why
	s.problems = append(s.problems, Problem{ProblemNotTable, table, "table " + table + " " + why + "; it was not read"})
}

func (s *Snapshot) problem(kind finding.Code, object, msg string) {
	s.problems = append(s.problems, Problem{kind, object, msg})
}

// Problems returns what is wrong with the snapshot file as a whole, in the
// order found. Refused tables read as empty; each has a problem here.
func (s *Snapshot) Problems() []Problem { return append([]Problem(nil), s.problems...) }

// Has reports whether an optional table is present and readable: false
// when the snapshot has none, or when it was refused (see Problems).
func (s *Snapshot) Has(table string) bool {
	return s.refused[table] == ""
}

// Refused says why a format table is not read, or "" when it is read.
func (s *Snapshot) Refused(table string) string { return s.refused[table] }
