package verify_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
)

// reencode rewrites one signed row's record through fn, canonically
// encoded (the signature is left as it was: these tests are about the
// rules, which must be reported whatever the signatures say).
func reencode[T any](t *testing.T, db *sql.DB, table, key, id string, decode func([]byte) (T, error), fn func(T)) {
	t.Helper()
	var raw []byte
	if err := db.QueryRow("SELECT record FROM "+table+" WHERE "+key+" = ?", id).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	r, err := decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	fn(r)
	enc, err := record.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, "UPDATE "+table+" SET record = ? WHERE "+key+" = ?", enc, id)
}

func one(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var s string
	if err := db.QueryRow(q).Scan(&s); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return s
}

func hasFinding(t *testing.T, dir string, code finding.Code, subject string) {
	t.Helper()
	rep := runScenario(t, dir)
	for _, f := range rep.Findings {
		if f.Code == code && (subject == "" || f.Subject == subject) {
			if rep.OK {
				t.Errorf("%s reported but the report is OK", code)
			}
			return
		}
	}
	t.Errorf("no %s on %q; findings: %+v", code, subject, rep.Findings)
}

// An exact duplicate entry row (the UNIQUE constraint dropped, as a
// hand-edited file may) is DUPLICATE_ID.
func TestDuplicateEntryRow(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "clean")
	var eid string
	withDB(t, dir, func(db *sql.DB) {
		eid = one(t, db, "SELECT eid FROM entries ORDER BY seq LIMIT 1 OFFSET 2")
		for _, q := range []string{"ALTER TABLE entries RENAME TO entries_old",
			"CREATE TABLE entries (seq INTEGER PRIMARY KEY, eid TEXT NOT NULL, writer TEXT NOT NULL, trust INTEGER NOT NULL, ts INTEGER NOT NULL, content TEXT NOT NULL, session_id TEXT, hmac_tag TEXT, leaf_index INTEGER, record BLOB NOT NULL)",
			"INSERT INTO entries SELECT * FROM entries_old", "DROP TABLE entries_old"} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		exec(t, db, "INSERT INTO entries SELECT seq + 100000, eid, writer, trust, ts, content, session_id, hmac_tag, leaf_index, record FROM entries WHERE eid = ?", eid)
	})
	hasFinding(t, dir, finding.DuplicateID, "entry "+eid)
}

func TestTombstoneRules(t *testing.T) {
	t.Parallel()
	// A tombstone for an entry that never existed.
	t.Run("unknown target", func(t *testing.T) {
		t.Parallel()
		dir := mutableCopy(t, "tombstone")
		var target string
		withDB(t, dir, func(db *sql.DB) {
			target = one(t, db, "SELECT target FROM tombstones ORDER BY seq LIMIT 1")
			fresh := record.ID{0x01, 0x9c, 0, 0, 0, 0, 0x70, 0, 0x80}
			reencode(t, db, "tombstones", "target", target, record.DecodeTombstone, func(ts *record.Tombstone) { ts.Target = fresh })
			exec(t, db, "UPDATE tombstones SET target = ? WHERE target = ?", fresh.String(), target)
			target = fresh.String()
		})
		hasFinding(t, dir, finding.TombstoneUnknownTarget, "tombstone "+target)
	})
	// A tombstone by an external principal deleting someone else's entry.
	t.Run("no authority", func(t *testing.T) {
		t.Parallel()
		dir := mutableCopy(t, "tombstone")
		var target string
		withDB(t, dir, func(db *sql.DB) {
			target = one(t, db, "SELECT target FROM tombstones ORDER BY seq LIMIT 1")
			reencode(t, db, "tombstones", "target", target, record.DecodeTombstone, func(ts *record.Tombstone) { ts.Writer = "external:forum" })
		})
		hasFinding(t, dir, finding.TombstoneNoAuthority, "tombstone "+target)
	})
	// The row's bytes differ from the logged ts: leaf.
	t.Run("row differs from leaf", func(t *testing.T) {
		t.Parallel()
		dir := mutableCopy(t, "tombstone")
		var target string
		withDB(t, dir, func(db *sql.DB) {
			target = one(t, db, "SELECT target FROM tombstones ORDER BY seq LIMIT 1")
			reencode(t, db, "tombstones", "target", target, record.DecodeTombstone, func(ts *record.Tombstone) { ts.Reason = "routine cleanup" })
		})
		hasFinding(t, dir, finding.TombstoneLeafMismatch, "tombstone "+target)
	})
}

func TestOrderAndTime(t *testing.T) {
	t.Parallel()
	childParent := func(db *sql.DB) (string, string) {
		rows, err := db.Query("SELECT eid, record FROM entries ORDER BY seq")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var raw []byte
			rows.Scan(&id, &raw)
			if e, err := record.DecodeEntry(raw); err == nil && len(e.Parents) > 0 {
				return id, e.Parents[0].String()
			}
		}
		t.Fatal("no entry with a parent")
		return "", ""
	}
	t.Run("parent signed after child", func(t *testing.T) {
		t.Parallel()
		dir := mutableCopy(t, "clean")
		var child string
		withDB(t, dir, func(db *sql.DB) {
			var parent string
			child, parent = childParent(db)
			var childTS uint64
			reencode(t, db, "entries", "eid", child, record.DecodeEntry, func(e *record.Entry) { childTS = e.TS })
			reencode(t, db, "entries", "eid", parent, record.DecodeEntry, func(e *record.Entry) { e.TS = childTS + 1 })
		})
		hasFinding(t, dir, finding.ParentAfterChild, "entry "+child)
	})
	t.Run("weight out of range", func(t *testing.T) {
		t.Parallel()
		dir := mutableCopy(t, "clean")
		var child string
		withDB(t, dir, func(db *sql.DB) {
			child, _ = childParent(db)
			reencode(t, db, "entries", "eid", child, record.DecodeEntry, func(e *record.Entry) { e.Weights[0] = -0.5 })
		})
		hasFinding(t, dir, finding.WeightOutOfRange, "entry "+child)
	})
	t.Run("time backwards and after checkpoint", func(t *testing.T) {
		t.Parallel()
		dir := mutableCopy(t, "clean")
		var last, first string
		withDB(t, dir, func(db *sql.DB) {
			last = one(t, db, "SELECT eid FROM entries ORDER BY seq DESC LIMIT 1")
			first = one(t, db, "SELECT eid FROM entries ORDER BY seq LIMIT 1")
			reencode(t, db, "entries", "eid", last, record.DecodeEntry, func(e *record.Entry) { e.TS = 1 })
			reencode(t, db, "entries", "eid", first, record.DecodeEntry, func(e *record.Entry) { e.TS = 1 << 62 })
		})
		hasFinding(t, dir, finding.TimeBackwards, "entry "+last)
		hasFinding(t, dir, finding.TimeAfterCheckpoint, "entry "+first)
	})
}

// Registry events apply in log order: moving a revoke row before its
// register row in the unsigned seq column must not lose the revocation.
func TestRevokeOrderComesFromTheLog(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "tampered")
	before := runScenario(t, dir)
	n := 0
	for _, f := range before.Findings {
		if f.Code == finding.KeyOutsideValidity {
			n++
		}
	}
	if n == 0 {
		t.Fatal("fixture: the tampered scenario has no KEY_OUTSIDE_VALIDITY")
	}
	withDB(t, dir, func(db *sql.DB) {
		exec(t, db, "UPDATE principals SET seq = -1 WHERE op = 'revoke'")
	})
	after := runScenario(t, dir)
	m := 0
	for _, f := range after.Findings {
		if f.Code == finding.KeyOutsideValidity {
			m++
		}
	}
	if m != n {
		t.Fatalf("KEY_OUTSIDE_VALIDITY %d -> %d after moving the revoke row first", n, m)
	}
}

// A checkpoint claiming 2^63-1 leaves (its signature no longer verifies)
// used to panic in makeslice: the size is now proven against the log
// before anything is allocated.
func TestHugeCheckpointSizeIsAFinding(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "clean")
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	cpPath := filepath.Join(dir, m.Log, "checkpoint")
	b, err := os.ReadFile(cpPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	lines[1] = "9223372036854775807"
	if err := os.WriteFile(cpPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := runScenario(t, dir)
	codes := map[finding.Code]bool{}
	for _, f := range rep.Findings {
		codes[f.Code] = true
	}
	if !codes[finding.LogUnreadable] || !codes[finding.CheckpointSigInvalid] || rep.OK {
		t.Fatalf("findings %+v", rep.Findings)
	}
}

// A recorded query whose reset vector names a node the store does not have
// cannot be replayed; verify reports it rather than passing the input
// replay refuses.
func TestQueryNamesUnknownNode(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "clean")
	var id string
	withDB(t, dir, func(db *sql.DB) {
		id = one(t, db, "SELECT id FROM queries ORDER BY seq LIMIT 1")
		exec(t, db, `UPDATE queries SET reset = '{"no-such-node": 1}' WHERE id = ?`, id)
	})
	hasFinding(t, dir, finding.QueryUnknownNode, "query "+id)
	// The untouched scenario has none.
	for _, f := range runScenario(t, mutableCopy(t, "clean")).Findings {
		if f.Code == finding.QueryUnknownNode {
			t.Errorf("pristine clean: %s %s", f.Code, f.Message)
		}
	}
}
