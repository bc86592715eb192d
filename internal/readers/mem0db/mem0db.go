// Package mem0db reads Mem0's history database (mem0ai/mem0) natively:
// the SQLite file mem0/memory/storage.py's SQLiteManager writes, opened
// read-only and immutable. Tables, from _create_history_table and
// _create_messages_table:
//
//	history(id TEXT PRIMARY KEY, memory_id, old_memory, new_memory, event,
//	        created_at DATETIME, updated_at DATETIME, is_deleted INTEGER,
//	        actor_id, role)
//	messages(id TEXT PRIMARY KEY, session_scope, role, content, name, created_at)
//
// Rows come from add_history (one per ADD, UPDATE, DELETE in
// mem0/memory/main.py: _create_memory, _update_memory, _delete_memory).
// UPDATE and DELETE keep the memory's original created_at and stamp the
// event in updated_at, so an event's time is updated_at when set, else
// created_at. The uuid4 id says nothing about order; rows are read in the
// order SQLite stored them (rowid).
package mem0db

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/sqlitecols"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/loader"
)

// Looks says whether path is an SQLite file with Mem0's history table.
func Looks(path string) bool {
	return sqlitecols.Has(path, "history", "memory_id", "old_memory", "new_memory", "event", "created_at", "updated_at", "is_deleted")
}

// Open reads every history row in storage order.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	if !Looks(path) {
		return nil, fmt.Errorf("%s: not an SQLite database with Mem0's history(memory_id, old_memory, new_memory, event, created_at, updated_at, is_deleted) table", path)
	}
	desc, err := storefile.Describe(ctx, path, "Mem0 history database (SQLite)")
	if err != nil {
		return nil, err
	}
	dsn, err := loader.DSN(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	cols, _ := sqlitecols.Columns(ctx, db, "history")
	actor, role := "NULL", "NULL"
	if cols["actor_id"] {
		actor = "actor_id"
	}
	if cols["role"] {
		role = "role"
	}
	st := &storemodel.Store{Format: storemodel.Mem0, Root: path, Files: []storemodel.File{desc}}
	if !cols["actor_id"] || !cols["role"] {
		st.Notes = append(st.Notes, "history has no actor_id/role columns (a Mem0 version before they were added): who made each change is not recorded")
	}
	// Every text cell is capped in SQL (sqlitecols.Capped): a hostile
	// history row can hold gigabytes, and none of it is fetched.
	hist := []struct {
		col, field string
		max        int
	}{{"id", "id", maxIDCell}, {"memory_id", "memory_id", maxIDCell}, {"old_memory", "old_memory", MaxMemoryCell},
		{"new_memory", "new_memory", MaxMemoryCell}, {"event", "event", maxIDCell}, {"created_at", "created_at", maxIDCell},
		{"updated_at", "updated_at", maxIDCell}, {actor, "actor_id", maxIDCell}, {role, "role", maxIDCell}}
	sel := make([]string, len(hist))
	for i, h := range hist {
		sel[i] = sqlitecols.Capped(h.col, h.max)
	}
	order, err := rowOrder(ctx, db, path, "history", st)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT "+order.sel+", is_deleted, "+strings.Join(sel, ", ")+" FROM history"+order.from)
	if err != nil {
		return nil, fmt.Errorf("%s: history: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var v storemodel.Version
		var del sql.NullInt64
		cells := make([]sqlitecols.Cell, len(hist))
		order.number(&v.Row)
		dest := []any{order.dest(&v.Row), &del}
		for i := range cells {
			cells[i].Max = hist[i].max
			dest = append(dest, cells[i].Dest()...)
		}
		if err := rows.Scan(dest...); err != nil {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: "history row", Message: err.Error()})
			continue
		}
		if i := overCell(cells); i >= 0 {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: fmt.Sprintf("history rowid %d, field %s", v.Row, hist[i].field),
				Message: fmt.Sprintf("%d bytes, over the %d-byte limit; not read, row skipped", cells[i].Size.Int64, cells[i].Max)})
			continue
		}
		if i := notUTF8(cells); i >= 0 {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: path, Subject: fmt.Sprintf("history rowid %d, field %s", v.Row, hist[i].field),
				Message: "text that is not UTF-8: Python's sqlite3, which Mem0 reads its history with, raises on it (\"Could not decode to UTF-8\"), so Mem0 cannot read this row; shown here with each byte that does not decode escaped"})
		}
		v.ID, v.MemoryID, v.Old, v.New, v.Event = cells[0].Value.String, cells[1].Value.String, cells[2].Value.String, cells[3].Value.String, cells[4].Value.String
		v.CreatedAt, v.UpdatedAt, v.Deleted, v.Actor, v.Role = cells[5].Value.String, cells[6].Value.String, del.Int64 != 0, cells[7].Value.String, cells[8].Value.String
		if v.MemoryID == "" {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: fmt.Sprintf("history rowid %d, field memory_id", v.Row), Message: "empty; row skipped"})
			continue
		}
		st.Versions = append(st.Versions, v)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: history: %w", path, err)
	}
	if err := readMessages(ctx, db, path, st); err != nil {
		return nil, err
	}
	msgCols, _ := sqlitecols.Columns(ctx, db, "messages")
	st.Layout = layoutOf(cols, msgCols)
	return st, nil
}

// EventTime is when an event happened: updated_at when set, else created_at.
func EventTime(v storemodel.Version) (time.Time, bool) {
	s := v.UpdatedAt
	if s == "" {
		s = v.CreatedAt
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Chain is one memory's history in storage order.
type Chain struct {
	MemoryID string
	Versions []storemodel.Version
	Deleted  bool
}

// Chains groups the history by memory (in order of first appearance) and
// reports what is wrong with each chain.
func Chains(st *storemodel.Store) ([]Chain, []finding.Finding) {
	var order []string
	by := map[string][]storemodel.Version{}
	for _, v := range st.Versions {
		if _, ok := by[v.MemoryID]; !ok {
			order = append(order, v.MemoryID)
		}
		by[v.MemoryID] = append(by[v.MemoryID], v)
	}
	var out []Chain
	var fs []finding.Finding
	for _, id := range order {
		c := Chain{MemoryID: id, Versions: by[id]}
		subject := "memory " + id
		if first := c.Versions[0].Event; first != "ADD" {
			fs = append(fs, finding.New(finding.Mem0ChainStartsUpdate, subject, fmt.Sprintf("the first event in history is %s (history row %s): the memory's ADD is not in this database", first, c.Versions[0].ID)))
		}
		times := make([]time.Time, len(c.Versions))
		known := true
		for i, v := range c.Versions {
			t, ok := EventTime(v)
			switch {
			case !ok && undatedDelete(v):
				// Upstream behaviour (layout.go): placed by storage order.
				fs = append(fs, finding.New(finding.Mem0DeleteUndated, fmt.Sprintf("history row %s, field updated_at/created_at", v.ID), undatedDeleteWhy))
				if i > 0 {
					t = times[i-1]
				}
			case !ok:
				known = false
				fs = append(fs, finding.New(finding.StoreRecordMalformed, fmt.Sprintf("history row %s, field updated_at/created_at", v.ID), fmt.Sprintf("no readable time (\"%s\", \"%s\")", v.UpdatedAt, v.CreatedAt)))
			}
			times[i] = t
			if c.Deleted {
				fs = append(fs, finding.New(finding.Mem0EventAfterDelete, subject, fmt.Sprintf("%s (history row %s) comes after the memory's DELETE", v.Event, v.ID)))
			}
			if v.Event == "DELETE" || v.Deleted {
				c.Deleted = true
			}
		}
		if known && !sort.SliceIsSorted(times, func(i, j int) bool { return times[i].Before(times[j]) }) {
			for i := 1; i < len(times); i++ {
				if times[i].Before(times[i-1]) {
					fs = append(fs, finding.New(finding.Mem0EventsOutOfOrder, subject, fmt.Sprintf("%s (history row %s, %s) was stored after %s (row %s, %s) but is dated earlier",
						c.Versions[i].Event, c.Versions[i].ID, times[i].Format(time.RFC3339Nano), c.Versions[i-1].Event, c.Versions[i-1].ID, times[i-1].Format(time.RFC3339Nano))))
				}
			}
		}
		if c.Deleted {
			fs = append(fs, finding.New(finding.Mem0Deleted, subject, fmt.Sprintf("deleted; %d earlier version(s) remain in history", len(c.Versions)-1)))
		}
		out = append(out, c)
	}
	return out, fs
}

// MessagesPerScope is how many messages save_messages keeps per session
// scope (it deletes the older ones in the same transaction).
const MessagesPerScope = 10

// Cell caps, checked in SQL before a cell is fetched. Mem0 keeps short facts
// and chat turns; a cell past these is a finding, not something to load.
const (
	// MaxMemoryCell bounds a memory's text or a message's content.
	MaxMemoryCell = 1 << 20
	maxIDCell     = 4 << 10 // ids, events, roles, times
)

// overCell is the index of the first cell over its cap, or -1.
func overCell(cells []sqlitecols.Cell) int {
	for i := range cells {
		if cells[i].Over() {
			return i
		}
	}
	return -1
}

// notUTF8 is the index of the first text cell that is not UTF-8, or -1.
func notUTF8(cells []sqlitecols.Cell) int {
	for i := range cells {
		if !utf8.ValidString(cells[i].Value.String) {
			return i
		}
	}
	return -1
}

// readMessages reads the messages table (_create_messages_table), when
// there is one, in storage order.
func readMessages(ctx context.Context, db *sql.DB, path string, st *storemodel.Store) error {
	cols, _ := sqlitecols.Columns(ctx, db, "messages")
	for _, c := range []string{"id", "session_scope", "role", "content", "name", "created_at"} {
		if !cols[c] {
			st.Notes = append(st.Notes, "no messages(id, session_scope, role, content, name, created_at) table (a Mem0 version before it): the recent conversation is not recorded")
			return nil
		}
	}
	msg := []struct {
		col string
		max int
	}{{"id", maxIDCell}, {"session_scope", maxIDCell}, {"role", maxIDCell}, {"content", MaxMemoryCell}, {"name", maxIDCell}, {"created_at", maxIDCell}}
	sel := make([]string, len(msg))
	for i, m := range msg {
		sel[i] = sqlitecols.Capped(m.col, m.max)
	}
	order, err := rowOrder(ctx, db, path, "messages", st)
	if err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, "SELECT "+order.sel+", "+strings.Join(sel, ", ")+" FROM messages"+order.from)
	if err != nil {
		return fmt.Errorf("%s: messages: %w", path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var m storemodel.Message
		cells := make([]sqlitecols.Cell, len(msg))
		order.number(&m.Row)
		dest := []any{order.dest(&m.Row)}
		for i := range cells {
			cells[i].Max = msg[i].max
			dest = append(dest, cells[i].Dest()...)
		}
		if err := rows.Scan(dest...); err != nil {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: "messages row", Message: err.Error()})
			continue
		}
		if i := overCell(cells); i >= 0 {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: fmt.Sprintf("messages rowid %d, field %s", m.Row, msg[i].col),
				Message: fmt.Sprintf("%d bytes, over the %d-byte limit; not read, row skipped", cells[i].Size.Int64, cells[i].Max)})
			continue
		}
		m.ID, m.Scope, m.Role, m.Content, m.Name, m.CreatedAt = cells[0].Value.String, cells[1].Value.String, cells[2].Value.String, cells[3].Value.String, cells[4].Value.String, cells[5].Value.String
		st.Messages = append(st.Messages, m)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: messages: %w", path, err)
	}
	return nil
}

// MessageFindings reports session scopes holding more messages than
// save_messages keeps: they were written some other way.
func MessageFindings(st *storemodel.Store) []finding.Finding {
	count := map[string]int{}
	var order []string
	for _, m := range st.Messages {
		if count[m.Scope] == 0 {
			order = append(order, m.Scope)
		}
		count[m.Scope]++
	}
	var fs []finding.Finding
	for _, s := range order {
		if n := count[s]; n > MessagesPerScope {
			fs = append(fs, finding.New(finding.Mem0MessagesOverLimit, "messages scope "+s,
				fmt.Sprintf("%d messages; save_messages keeps the %d most recent per scope and deletes the rest in the same transaction: these rows were written outside it, or its eviction failed. The next add() in this scope reads the %d most recent as context (get_last_messages)", n, MessagesPerScope, MessagesPerScope)))
		}
	}
	return fs
}

// scanOrder reads a table in the order Mem0 wrote its rows: by the real
// rowid. Mem0's history ids are uuid4s; a column named rowid (or _rowid_,
// oid) would make "ORDER BY rowid" follow values the store's writer chose.
// When every alias is shadowed, a forced table scan (NOT INDEXED) visits
// the rows in rowid order, and they are numbered as they come.
type scanOrder struct {
	sel, from string
	counter   int64
	numbered  bool
	discard   sql.RawBytes
}

func rowOrder(ctx context.Context, db *sql.DB, path, table string, st *storemodel.Store) (*scanOrder, error) {
	o, err := sqlitecols.Order(ctx, db, table)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", path, table, err)
	}
	if msg := o.Message(table); msg != "" {
		st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: path, Subject: "table " + table, Message: msg})
	}
	if o.Expr == "" {
		return &scanOrder{sel: "NULL", from: " NOT INDEXED", numbered: true}, nil
	}
	return &scanOrder{sel: o.Expr, from: " ORDER BY " + o.Expr}, nil
}

// dest is where the row number is scanned to.
func (o *scanOrder) dest(row *int64) any {
	if o.numbered {
		return &o.discard
	}
	return row
}

// number sets the row number of a table-scan read.
func (o *scanOrder) number(row *int64) {
	if o.numbered {
		o.counter++
		*row = o.counter
	}
}
