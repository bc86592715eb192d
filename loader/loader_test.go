package loader_test

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"

	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
)

// scenarios these tests read: clean, the tampered store (every finding)
// and the tombstone and smsr stores, from the shared scenario cache.
var scenarioNames = []string{"clean", "tampered", "tombstone", "smsr"}

func generated(t testing.TB) string {
	t.Helper()
	return scenariocache.Dir(t, 1)
}

// copyFile copies a pristine file into a fresh temp dir for a test to edit.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// streamAll reads every table of a snapshot through the loader.
func streamAll(ctx context.Context, s *loader.Snapshot) error {
	for _, table := range []string{"principals", "entries", "nodes", "writes", "tombstones", "queries", "actions", "gate_events", "checkpoints"} {
		if _, err := s.Count(ctx, table); err != nil {
			return err
		}
	}
	if err := s.EachPrincipal(ctx, func(*loader.PrincipalRow) error { return nil }); err != nil {
		return err
	}
	if err := s.EachEntry(ctx, func(*loader.EntryRow) error { return nil }); err != nil {
		return err
	}
	if err := s.EachWrite(ctx, func(*loader.WriteRow) error { return nil }); err != nil {
		return err
	}
	if err := s.EachTombstone(ctx, func(*loader.TombstoneRow) error { return nil }); err != nil {
		return err
	}
	// Plain tables may legitimately fail on a tampered store (a malformed
	// row is an error naming it); the read must still not write anything.
	s.Nodes(ctx)
	s.Queries(ctx)
	s.Actions(ctx)
	s.GateEvents(ctx)
	s.Checkpoints(ctx)
	return nil
}

// TestEvidenceNeverChanges hashes every file of each scenario directory,
// runs the loader over every table and verify.Run, then requires the same
// files with the same hashes (no -journal, -wal or -shm appeared). The
// CLI's part of the proof is in cmd/memscope (TestVerifyNeverChangesEvidence).
func TestEvidenceNeverChanges(t *testing.T) {
	t.Parallel()
	root := generated(t)
	before := evidencetest.HashTree(t, root)
	ctx := context.Background()
	for _, name := range scenarioNames {
		dir := filepath.Join(root, name)
		m, err := evidence.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := loader.Open(filepath.Join(dir, m.Snapshot))
		if err != nil {
			t.Fatal(err)
		}
		if err := streamAll(ctx, s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		if _, err := verify.Run(ctx, verify.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log)}); err != nil {
			t.Fatalf("%s: verify.Run: %v", name, err)
		}
	}
	after := evidencetest.HashTree(t, root)
	for f, h := range after {
		if b, ok := before[f]; !ok {
			t.Errorf("new file %s appeared", f)
		} else if b != h {
			t.Errorf("%s changed", f)
		}
	}
	for f := range before {
		if _, ok := after[f]; !ok {
			t.Errorf("%s disappeared", f)
		}
	}
}

// openErr asserts that Open fails with a loader.Error naming the file.
func openErr(t *testing.T, path string) *loader.Error {
	t.Helper()
	s, err := loader.Open(path)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) succeeded", path)
	}
	var le *loader.Error
	if !errors.As(err, &le) || le.File != path {
		t.Fatalf("error %v (%T) does not name file %s", err, err, path)
	}
	if !strings.Contains(err.Error(), path) {
		t.Fatalf("message %q does not contain the path", err.Error())
	}
	return le
}

func TestOpenRejectsWhatIsNotASnapshot(t *testing.T) {
	dir := t.TempDir()
	t.Run("missing", func(t *testing.T) {
		le := openErr(t, filepath.Join(dir, "nope.db"))
		if !errors.Is(le, fs.ErrNotExist) {
			t.Fatalf("want ErrNotExist, got %v", le)
		}
	})
	t.Run("directory", func(t *testing.T) { openErr(t, dir) })
	t.Run("empty", func(t *testing.T) {
		p := filepath.Join(dir, "empty.db")
		os.WriteFile(p, nil, 0o644)
		openErr(t, p)
	})
	t.Run("text", func(t *testing.T) {
		p := filepath.Join(dir, "notes.txt")
		os.WriteFile(p, []byte("this is not a database, just some text long enough"), 0o644)
		openErr(t, p)
	})
	t.Run("other schema", func(t *testing.T) {
		p := filepath.Join(dir, "other.db")
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("CREATE TABLE people(name TEXT); INSERT INTO people VALUES('x')"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if le := openErr(t, p); le.Table != "meta" {
			t.Fatalf("table %q, want meta (%v)", le.Table, le)
		}
	})
	src := filepath.Join(generated(t), "clean", evidence.SnapshotFile)
	t.Run("wrong format meta", func(t *testing.T) {
		p := copyFile(t, src)
		edit(t, p, "UPDATE meta SET value = 'memscope-snapshot/2' WHERE key = 'format'")
		le := openErr(t, p)
		if le.Table != "meta" || le.Record != "format" || !strings.Contains(le.Error(), "memscope-snapshot/2") {
			t.Fatalf("error %v does not name meta, format and the value", le)
		}
	})
	t.Run("no format meta", func(t *testing.T) {
		p := copyFile(t, src)
		edit(t, p, "DELETE FROM meta WHERE key = 'format'")
		openErr(t, p)
	})
	t.Run("truncated", func(t *testing.T) {
		p := copyFile(t, src)
		if err := os.Truncate(p, 4096); err != nil {
			t.Fatal(err)
		}
		s, err := loader.Open(p)
		if err == nil {
			// The first page alone may still hold meta; streaming must fail
			// cleanly then.
			err = streamAll(context.Background(), s)
			s.Close()
		}
		if err == nil {
			t.Fatal("a truncated snapshot loaded without error")
		}
		var le *loader.Error
		if !errors.As(err, &le) || le.File != p {
			t.Fatalf("error %v does not name the file", err)
		}
	})
}

func edit(t *testing.T, path, q string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s: %d rows changed, want 1", q, n)
	}
}

// rowErr asserts a row error names file, table, record and field.
func rowErr(t *testing.T, err error, file, table, rec, field string) {
	t.Helper()
	var le *loader.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not a loader.Error", err, err)
	}
	if le.File != file || le.Table != table || le.Record != rec || le.Field != field {
		t.Fatalf("error names (%q, %q, %q, %q), want (%q, %q, %q, %q): %v", le.File, le.Table, le.Record, le.Field, file, table, rec, field, err)
	}
	for _, part := range []string{file, "table " + table, "record " + rec, "field " + field} {
		if !strings.Contains(err.Error(), part) {
			t.Fatalf("message %q lacks %q", err.Error(), part)
		}
	}
}

func TestMalformedRecordErrorsNameFileTableRecordField(t *testing.T) {
	ctx := context.Background()
	p := copyFile(t, filepath.Join(generated(t), "tombstone", evidence.SnapshotFile))
	db, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	first := func(q string, args ...any) (string, []byte) {
		var id string
		var raw []byte
		if err := db.QueryRow(q, args...).Scan(&id, &raw); err != nil {
			t.Fatal(err)
		}
		return id, raw
	}
	// Entry: trust 7, re-encoded canonically (the signature no longer
	// matters: decoding rejects it first).
	eid, raw := first("SELECT eid, record FROM entries ORDER BY seq LIMIT 1 OFFSET 3")
	e, err := record.DecodeEntry(raw)
	if err != nil {
		t.Fatal(err)
	}
	e.Trust = 7
	bad, _ := record.Encode(e)
	db.Exec("UPDATE entries SET record = ? WHERE eid = ?", bad, eid)
	// Write: a weight that is not finite.
	wid, raw := first("SELECT wid, record FROM writes ORDER BY seq LIMIT 1")
	w, err := record.DecodeWrite(raw)
	if err != nil {
		t.Fatal(err)
	}
	w.Weight = -1
	bad, _ = record.Encode(w)
	db.Exec("UPDATE writes SET record = ? WHERE wid = ?", bad, wid)
	// Principal: an unknown op.
	rid, raw := first("SELECT rid, record FROM principals ORDER BY seq LIMIT 1")
	pe, err := record.DecodePrincipalEvent(raw)
	if err != nil {
		t.Fatal(err)
	}
	pe.Op = "promote"
	bad, _ = record.Encode(pe)
	db.Exec("UPDATE principals SET record = ? WHERE rid = ?", bad, rid)
	// Tombstone: a writer of no known class.
	target, raw := first("SELECT target, record FROM tombstones ORDER BY seq LIMIT 1")
	ts, err := record.DecodeTombstone(raw)
	if err != nil {
		t.Fatal(err)
	}
	ts.Writer = "nobody"
	bad, _ = record.Encode(ts)
	db.Exec("UPDATE tombstones SET record = ? WHERE target = ?", bad, target)
	// Plain rows: a query whose reset vector is not JSON.
	db.Exec("UPDATE queries SET reset = '{broken' WHERE seq = (SELECT min(seq) FROM queries)")
	var qid string
	db.QueryRow("SELECT id FROM queries ORDER BY seq LIMIT 1").Scan(&qid)
	db.Close()

	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seen := 0
	check := func(id string, got string, derr error, table, field string) {
		if got != id {
			if derr != nil {
				t.Errorf("%s row %s: unexpected error %v", table, got, derr)
			}
			return
		}
		seen++
		rowErr(t, derr, p, table, id, field)
	}
	s.EachEntry(ctx, func(r *loader.EntryRow) error {
		if r.EID == eid && r.Entry != nil {
			t.Error("bad entry decoded")
		}
		check(eid, r.EID, r.DecodeErr, "entries", "trust")
		return nil
	})
	s.EachWrite(ctx, func(r *loader.WriteRow) error { check(wid, r.WID, r.DecodeErr, "writes", "weight"); return nil })
	s.EachPrincipal(ctx, func(r *loader.PrincipalRow) error { check(rid, r.RID, r.DecodeErr, "principals", "op"); return nil })
	s.EachTombstone(ctx, func(r *loader.TombstoneRow) error {
		check(target, r.Target, r.DecodeErr, "tombstones", "writer")
		return nil
	})
	if seen != 4 {
		t.Fatalf("checked %d bad rows, want 4", seen)
	}
	_, err = s.Queries(ctx)
	rowErr(t, err, p, "queries", qid, "reset")
}

// TestTruncatedBlobErrorNamesRow: a record cut short names the row by the
// id column, since the record's own id cannot be trusted.
func TestTruncatedBlobErrorNamesRow(t *testing.T) {
	p := copyFile(t, filepath.Join(generated(t), "clean", evidence.SnapshotFile))
	var eid string
	db, _ := sql.Open("sqlite", "file:"+p)
	db.QueryRow("SELECT eid FROM entries ORDER BY seq LIMIT 1").Scan(&eid)
	db.Close()
	edit(t, p, "UPDATE entries SET record = substr(record, 1, 5) WHERE eid = ?", eid)
	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var derr error
	s.EachEntry(context.Background(), func(r *loader.EntryRow) error {
		if r.EID == eid {
			derr = r.DecodeErr
		}
		return nil
	})
	var le *loader.Error
	if !errors.As(derr, &le) || le.File != p || le.Table != "entries" || le.Record != eid {
		t.Fatalf("truncated record error %v does not name file, table and row", derr)
	}
}
