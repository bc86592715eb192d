package recorder

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/memscope/memscope/evidence/record"
)

// itemIndex is what the recorder must look up that the snapshot has no
// index for: a memory item's key (h_src) to its live entry, and an entity
// node to the entries a delete of it removes. It lives in a private,
// temporary SQLite database (an empty file name: SQLite unlinks the file
// as soon as it is created and it vanishes with the connection), not in
// memory, so the recorder's resident memory does not grow with the items
// recorded; it is rebuilt from the snapshot's signed records on every
// start (readIndex), so it needs no durability of its own. Whether an
// entry is live, which entity node exists and what key an entry was
// recorded under are read from the snapshot itself (indexed by eid and
// node id).
type itemIndex struct {
	db       *sql.DB
	tx       *sql.Tx
	stmts    map[string]*sql.Stmt // this transaction's
	prepared map[string]*sql.Stmt // on the connection, reused by every transaction
}

const indexSchema = `
CREATE TABLE items (hsrc BLOB PRIMARY KEY, eid BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE members (entity TEXT NOT NULL, eid BLOB NOT NULL);
CREATE INDEX members_entity ON members(entity);
`

// indexCacheKiB bounds the index's page cache; the rest is on disk.
const indexCacheKiB = 4096

var indexSQL = map[string]string{
	"item":     "SELECT eid FROM items WHERE hsrc = ?",
	"setItem":  "INSERT OR REPLACE INTO items(hsrc, eid) VALUES(?, ?)",
	"dropItem": "DELETE FROM items WHERE hsrc = ?",
	"member":   "INSERT INTO members(entity, eid) VALUES(?, ?)",
	"members":  "SELECT eid FROM members WHERE entity = ? ORDER BY rowid",
}

func openIndex() (*itemIndex, error) {
	db, err := sql.Open("sqlite", fmt.Sprintf("file:?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-%d)&_pragma=temp_store(FILE)", indexCacheKiB))
	if err != nil {
		return nil, err
	}
	// One connection for good: a second one would be another, empty,
	// temporary database.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	if _, err := db.Exec(indexSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("record: item index: %w", err)
	}
	ix := &itemIndex{db: db, prepared: map[string]*sql.Stmt{}}
	for name, q := range indexSQL {
		st, err := db.Prepare(q)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("record: item index: %w", err)
		}
		ix.prepared[name] = st
	}
	if err := ix.begin(); err != nil {
		db.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *itemIndex) begin() error {
	tx, err := ix.db.Begin()
	if err != nil {
		return fmt.Errorf("record: item index: %w", err)
	}
	ix.tx, ix.stmts = tx, map[string]*sql.Stmt{}
	return nil
}

// commit ends the index's transaction (nothing is synced: the index is
// rebuilt on every start) and begins the next, so the page cache does not
// hold a whole run's changes.
func (ix *itemIndex) commit() error {
	if err := ix.tx.Commit(); err != nil {
		return fmt.Errorf("record: item index: %w", err)
	}
	return ix.begin()
}

func (ix *itemIndex) close() error {
	ix.tx.Rollback()
	return ix.db.Close()
}

func (ix *itemIndex) stmt(name string) (*sql.Stmt, error) {
	if st, ok := ix.stmts[name]; ok {
		return st, nil
	}
	p, ok := ix.prepared[name]
	if !ok {
		return nil, fmt.Errorf("record: item index: no statement %s", name)
	}
	st := ix.tx.Stmt(p)
	ix.stmts[name] = st
	return st, nil
}

func (ix *itemIndex) exec(name string, args ...any) error {
	st, err := ix.stmt(name)
	if err != nil {
		return err
	}
	if _, err := st.Exec(args...); err != nil {
		return fmt.Errorf("record: item index: %w", err)
	}
	return nil
}

// item returns the live entry recorded under key.
func (ix *itemIndex) item(key [32]byte) (record.ID, bool, error) {
	st, err := ix.stmt("item")
	if err != nil {
		return record.ID{}, false, err
	}
	var b []byte
	switch err := st.QueryRow(key[:]).Scan(&b); {
	case errors.Is(err, sql.ErrNoRows):
		return record.ID{}, false, nil
	case err != nil:
		return record.ID{}, false, fmt.Errorf("record: item index: %w", err)
	}
	var id record.ID
	if len(b) != len(id) {
		return id, false, fmt.Errorf("record: item index: entry id of %d bytes", len(b))
	}
	copy(id[:], b)
	return id, true, nil
}

func (ix *itemIndex) setItem(key [32]byte, id record.ID) error {
	return ix.exec("setItem", key[:], id[:])
}

func (ix *itemIndex) dropItem(key [32]byte) error { return ix.exec("dropItem", key[:]) }

func (ix *itemIndex) addMember(entity string, id record.ID) error {
	return ix.exec("member", entity, id[:])
}

// members lists the entries recorded as members of entity, in the order
// they were added (live or not).
func (ix *itemIndex) members(entity string) ([]record.ID, error) {
	st, err := ix.stmt("members")
	if err != nil {
		return nil, err
	}
	rows, err := st.Query(entity)
	if err != nil {
		return nil, fmt.Errorf("record: item index: %w", err)
	}
	defer rows.Close()
	var out []record.ID
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("record: item index: %w", err)
		}
		var id record.ID
		copy(id[:], b)
		out = append(out, id)
	}
	return out, rows.Err()
}
