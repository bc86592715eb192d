package loader_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// run executes statements on a test copy (never on generated evidence).
func run(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func problemKinds(s *loader.Snapshot) map[string]string {
	out := map[string]string{}
	for _, p := range s.Problems() {
		out[key(p.Kind, p.Object)] = p.Message
	}
	return out
}

func key(kind finding.Code, object string) string { return string(kind) + " " + object }

func cleanCopy(t *testing.T) string {
	return copyFile(t, filepath.Join(generated(t), "clean", evidence.SnapshotFile))
}

// A view in place of a format table computes its rows on read: a 900 MB
// blob from a small file, or a recursion that never ends. It is refused
// without being read.
func TestViewInPlaceOfTableIsRefused(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := cleanCopy(t)
	run(t, p, "ALTER TABLE entries RENAME TO entries_real",
		"CREATE VIEW entries AS SELECT seq, eid, writer, trust, ts, zeroblob(900000000) AS content, session_id, hmac_tag, leaf_index, zeroblob(900000000) AS record FROM entries_real")
	s, err := loader.OpenContext(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := problemKinds(s)[key(loader.ProblemNotTable, "entries")]; !ok {
		t.Fatalf("no %s for the entries view: %v", loader.ProblemNotTable, s.Problems())
	}
	if s.Refused("entries") == "" {
		t.Fatal("entries view not refused")
	}
	n, err := s.Count(ctx, "entries")
	if err != nil || n != 0 {
		t.Fatalf("count of a refused table = %d, %v; want 0", n, err)
	}
	rows := 0
	if err := s.EachEntry(ctx, func(*loader.EntryRow) error { rows++; return nil }); err != nil || rows != 0 {
		t.Fatalf("refused table streamed %d rows, err %v", rows, err)
	}
	if _, ok := problemKinds(s)[key(loader.ProblemExtraObject, "entries_real")]; ok {
		t.Fatal("a real extra table was reported as a schema object")
	}
}

// A recursive meta view would hang every command: Open refuses meta that
// is not a real table, promptly.
func TestRecursiveMetaViewDoesNotHang(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := cleanCopy(t)
	run(t, p, "ALTER TABLE meta RENAME TO meta_real",
		"CREATE VIEW meta AS WITH RECURSIVE r(key, value) AS (SELECT 'format', 'memscope-snapshot/1' UNION ALL SELECT key, value FROM r) SELECT key, value FROM r")
	start := time.Now()
	_, err := loader.OpenContext(ctx, p)
	if err == nil || !strings.Contains(err.Error(), "VIEW") {
		t.Fatalf("Open of a snapshot whose meta is a recursive view: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestGeneratedColumnAndTriggerAreReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := cleanCopy(t)
	run(t, p, "ALTER TABLE actions ADD COLUMN big BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL",
		"CREATE TRIGGER t1 AFTER INSERT ON meta BEGIN DELETE FROM entries; END",
		"CREATE VIEW extra AS SELECT 1")
	s, err := loader.OpenContext(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := problemKinds(s)
	for _, want := range []string{key(loader.ProblemNotTable, "actions"), key(loader.ProblemExtraObject, "t1"), key(loader.ProblemExtraObject, "extra")} {
		if _, ok := got[want]; !ok {
			t.Errorf("no problem %q in %v", want, got)
		}
	}
	acts, err := s.Actions(ctx)
	if err != nil || len(acts) != 0 {
		t.Fatalf("refused actions table read: %d rows, %v", len(acts), err)
	}
}

// A cell over its limit is never fetched: its row is malformed, named with
// table, row and field, and the other rows are still read.
func TestOversizedCellIsABadRowAndOthersAreRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := cleanCopy(t)
	var total int
	db, _ := sql.Open("sqlite", "file:"+p)
	db.QueryRow("SELECT count(*) FROM entries").Scan(&total)
	db.Close()
	run(t, p, "UPDATE entries SET record = zeroblob(50000000) WHERE seq = (SELECT min(seq) FROM entries)",
		"UPDATE entries SET trust = 'high' WHERE seq = (SELECT max(seq) FROM entries)")
	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var bad []error
	good := 0
	err = s.EachEntry(ctx, func(r *loader.EntryRow) error {
		if r.DecodeErr != nil {
			bad = append(bad, r.DecodeErr)
		} else {
			good++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 2 || good != total-2 {
		t.Fatalf("%d bad, %d good rows of %d: %v", len(bad), good, total, bad)
	}
	for i, field := range []string{"record", "trust"} {
		var le *loader.Error
		if !errors.As(bad[i], &le) || le.Table != "entries" || le.Field != field || !strings.HasPrefix(le.Record, "seq ") || !errors.Is(bad[i], loader.ErrRow) {
			t.Errorf("bad row %d: %v", i, bad[i])
		}
	}
	if !strings.Contains(bad[0].Error(), "50000000 bytes") {
		t.Errorf("size not named: %v", bad[0])
	}
}

// One malformed unsigned row used to stop the whole table; now it is
// listed and every other row is returned.
func TestOneBadPlainRowHidesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := cleanCopy(t)
	s0, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	acts0, err := s0.Actions(ctx)
	qs0, err2 := s0.Queries(ctx)
	s0.Close()
	if err != nil || err2 != nil || len(acts0) < 2 || len(qs0) < 2 {
		t.Fatalf("fixture: %d actions, %d queries, %v %v", len(acts0), len(qs0), err, err2)
	}
	run(t, p, "UPDATE actions SET params = '[' WHERE seq = (SELECT min(seq) FROM actions)",
		"UPDATE queries SET k = 'many' WHERE seq = (SELECT min(seq) FROM queries)")
	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Actions(ctx)
	var re loader.RowErrors
	if !errors.As(err, &re) || len(re) != 1 || re[0].Field != "params" || re[0].Record != acts0[0].ID {
		t.Fatalf("actions error %v", err)
	}
	if len(acts) != len(acts0)-1 || acts[0].ID != acts0[1].ID {
		t.Fatalf("%d actions returned, want the other %d", len(acts), len(acts0)-1)
	}
	qs, err := s.Queries(ctx)
	if !errors.As(err, &re) || len(re) != 1 || re[0].Field != "k" {
		t.Fatalf("queries error %v", err)
	}
	if len(qs) != len(qs0)-1 {
		t.Fatalf("%d queries returned, want %d", len(qs), len(qs0)-1)
	}
}

// walCopy makes a snapshot copy whose last transaction sits committed in
// a -wal file beside it: the file is copied while a writer holds the WAL
// open with automatic checkpoints off.
func walCopy(t *testing.T) (string, int) {
	t.Helper()
	work := cleanCopy(t)
	db, err := sql.Open("sqlite", "file:"+work+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	var before int
	db.QueryRow("SELECT count(*) FROM actions").Scan(&before)
	if _, err := db.Exec("DELETE FROM actions"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "snapshot.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(work + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out, before
}

func TestWALBesideSnapshotIsReported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p, before := walCopy(t)
	walBytes, _ := os.ReadFile(p + "-wal")
	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msg, ok := problemKinds(s)[key(loader.ProblemWAL, p+"-wal")]
	if !ok || !strings.Contains(msg, "1 committed transaction") {
		t.Fatalf("no pending-WAL problem: %v", s.Problems())
	}
	// The immutable read shows the main file: the deleted actions are
	// still there, and the WAL is untouched.
	acts, err := s.Actions(ctx)
	if err != nil || len(acts) != before {
		t.Fatalf("%d actions, want %d (%v)", len(acts), before, err)
	}
	if after, _ := os.ReadFile(p + "-wal"); string(after) != string(walBytes) {
		t.Fatal("the -wal file changed")
	}
	// A WAL whose checksums were broken holds no commit SQLite would apply.
	walBytes[len(walBytes)-1] ^= 0xff
	os.WriteFile(p+"-wal", walBytes, 0o644)
	s2, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	kinds := problemKinds(s2)
	if _, ok := kinds[key(loader.ProblemWAL, p+"-wal")]; ok {
		t.Fatalf("a WAL with a broken last frame still counted as committed: %v", kinds)
	}
	if _, ok := kinds[key(loader.ProblemWALPresent, p+"-wal")]; !ok {
		t.Fatalf("broken WAL not reported: %v", kinds)
	}
	// An empty WAL (what memscope record leaves between bursts, after
	// folding it) holds nothing: named as empty, not as unreadable.
	os.WriteFile(p+"-wal", nil, 0o644)
	s3, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	kinds = problemKinds(s3)
	if msg, ok := kinds[key(loader.ProblemWALPresent, p+"-wal")]; !ok || !strings.Contains(msg, "empty write-ahead log") {
		t.Fatalf("empty WAL not named as empty: %v", kinds)
	}
}

func TestJournalAndNonRegularFiles(t *testing.T) {
	t.Parallel()
	p := cleanCopy(t)
	os.WriteFile(p+"-journal", []byte("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7"), 0o644)
	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := problemKinds(s)[key(loader.ProblemJournal, p+"-journal")]; !ok {
		t.Fatalf("journal not reported: %v", s.Problems())
	}
	s.Close()
	if _, err := loader.Open(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory opened as a snapshot: %v", err)
	}
}

// The optional vector table: absent is no problem; present, its rows are
// read with a bad row named and skipped; a view by its name is refused.
func TestOptionalVectorTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := cleanCopy(t)
	s, err := loader.OpenContext(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Has(snapshot.VectorTable) || len(s.Problems()) != 0 {
		t.Fatalf("clean store: Has(vectors) %v, problems %v", s.Has(snapshot.VectorTable), s.Problems())
	}
	if vs, err := s.Vectors(ctx); vs != nil || err != nil {
		t.Fatalf("absent table read %v, %v", vs, err)
	}
	s.Close()

	good := copyFile(t, p)
	run(t, good, snapshot.VectorSchema,
		"INSERT INTO vectors(seq, eid, content_hash, dim, vec) VALUES (1, 'e1', '"+strings.Repeat("ab", 32)+"', 2, zeroblob(8))",
		"INSERT INTO vectors(seq, eid, content_hash, dim, vec) VALUES (2, 'e2', 'nothex', 2, zeroblob(8))",
		"INSERT INTO vectors(seq, eid, content_hash, dim, vec) VALUES (3, 'e3', '"+strings.Repeat("cd", 32)+"', 3, zeroblob(8))")
	s, err = loader.OpenContext(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.Vectors(ctx)
	var bad loader.RowErrors
	if !errors.As(err, &bad) || len(bad) != 2 || bad[0].Field != "content_hash" || bad[1].Field != "vec" {
		t.Fatalf("row errors %v, want content_hash of e2 and vec of e3", err)
	}
	if !s.Has(snapshot.VectorTable) || len(vs) != 1 || vs[0].EID != "e1" || vs[0].ContentHash[0] != 0xab {
		t.Fatalf("vectors %+v", vs)
	}

	view := copyFile(t, p)
	run(t, view, "CREATE VIEW vectors AS SELECT 1 AS seq, 'x' AS eid, '' AS content_hash, 1 AS dim, zeroblob(900000000) AS vec")
	sv, err := loader.OpenContext(ctx, view)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	if sv.Has(snapshot.VectorTable) {
		t.Fatal("a vectors view is read")
	}
	if _, ok := problemKinds(sv)[key(loader.ProblemNotTable, "vectors")]; !ok {
		t.Fatalf("no %s for the vectors view: %v", loader.ProblemNotTable, sv.Problems())
	}
}

// The range scan of ids and leaves answers as the bounded stream does: the
// same rows in the same order, and a row whose id or leaf cell is bad (too
// long, the wrong type) carries an error naming the row and the field.
func TestEntryKeyRangeAgreesWithEachEntryKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := cleanCopy(t)
	run(t, p, "UPDATE entries SET eid = printf('%.600c', 'x') WHERE seq = (SELECT min(seq) FROM entries)",
		"UPDATE entries SET leaf_index = 'seven' WHERE seq = (SELECT max(seq) FROM entries)",
		"UPDATE entries SET eid = 'not-canonical' WHERE seq = (SELECT min(seq) + 1 FROM entries)")
	s, err := loader.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var want, got []loader.EntryKey
	if err := s.EachEntryKey(ctx, func(k loader.EntryKey) error { want = append(want, k); return nil }); err != nil {
		t.Fatal(err)
	}
	lo, hi, ok, err := s.SeqBounds(ctx, "entries")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	mid := (lo + hi) / 2
	for _, r := range [][2]int64{{lo, mid}, {mid + 1, hi}} {
		if err := s.EachEntryKeyRange(ctx, r[0], r[1], func(k loader.EntryKey) error { got = append(got, k); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want) || len(got) < 10 {
		t.Fatalf("%d rows by range, %d streamed", len(got), len(want))
	}
	bad := 0
	for i := range want {
		w, g := want[i], got[i]
		if g.Seq != w.Seq || (w.Err == nil) != (g.Err == nil) || (w.Err == nil && (g.EID != w.EID || g.Leaf != w.Leaf)) {
			t.Fatalf("row %d: range %+v, stream %+v", i, g, w)
		}
		if g.Err != nil {
			bad++
			var le *loader.Error
			if !errors.As(g.Err, &le) || le.Table != "entries" || le.Record != fmt.Sprintf("seq %d", g.Seq) || (le.Field != "eid" && le.Field != "leaf_index") {
				t.Errorf("row %d: %v", i, g.Err)
			}
		}
	}
	if bad != 2 {
		t.Errorf("%d bad rows, want 2", bad)
	}
}
