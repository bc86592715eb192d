package assemble

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
)

// Open sizes the entries by the seq bounds instead of counting every row.
// A store whose seqs are sparse (the estimate is too high) or repeated (too
// low: seq is not declared a key) still loads every row in seq order, and
// the total is then the rows read.
func TestEntryEstimateIsOnlyAHint(t *testing.T) {
	t.Parallel()
	dir, err := allScenarios()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "clean")
	m, err := evidence.ReadManifest(src)
	if err != nil {
		t.Fatal(err)
	}
	want := openStore(t, src, filepath.Join(src, m.Snapshot), m, "")
	if err := want.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if want.EntryTotal() != want.HeldEntries() {
		t.Fatalf("writer's store: estimate %d, %d rows", want.EntryTotal(), want.HeldEntries())
	}
	for _, c := range []struct {
		name string
		ddl  string // the entries table's seq column
		seq  string // the copied rows' new seq
		dups bool
	}{
		{"sparse", "seq INTEGER PRIMARY KEY", "seq * 1000", false},
		{"repeated", "seq INTEGER", "(seq + 1) / 2", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(src, m.Snapshot))
			if err != nil {
				t.Fatal(err)
			}
			snap := filepath.Join(t.TempDir(), "s.db")
			if err := os.WriteFile(snap, b, 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", snap)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				"CREATE TABLE e2 AS SELECT * FROM entries",
				"DROP TABLE entries",
				"CREATE TABLE entries (" + c.ddl + ", eid TEXT NOT NULL, writer TEXT NOT NULL, trust INTEGER NOT NULL, ts INTEGER NOT NULL, content TEXT NOT NULL, session_id TEXT, hmac_tag TEXT, leaf_index INTEGER, record BLOB NOT NULL)",
				"INSERT INTO entries SELECT " + c.seq + ", eid, writer, trust, ts, content, session_id, hmac_tag, leaf_index, record FROM e2 ORDER BY seq",
				"DROP TABLE e2",
			} {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			db.Close()
			s := openStore(t, src, snap, m, "")
			est := s.EntryTotal()
			if c.dups && est >= want.HeldEntries() || !c.dups && est <= want.HeldEntries() {
				t.Fatalf("estimate %d for %d rows: the case does not test what it says", est, want.HeldEntries())
			}
			if err := s.Load(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if s.HeldEntries() != want.HeldEntries() || s.EntryTotal() != s.HeldEntries() || s.Loaded() != s.HeldEntries() {
				t.Fatalf("%d rows loaded, total %d, Loaded %d; want %d", s.HeldEntries(), s.EntryTotal(), s.Loaded(), want.HeldEntries())
			}
			seen := map[string]bool{}
			for i := range s.HeldEntries() {
				seen[s.EntryAt(i).ID] = true
			}
			for i := range want.HeldEntries() {
				if !seen[want.EntryAt(i).ID] {
					t.Fatalf("entry %s not loaded", want.EntryAt(i).ID)
				}
			}
			// Contents read back by seq find each row's own content.
			sameContents(t, s, lazyCopy(t, s))
		})
	}
	sameContents(t, want, lazyCopy(t, want))
}

// lazyCopy opens and loads s's snapshot again with LazyContent.
func lazyCopy(t *testing.T, s *Session) *Session {
	t.Helper()
	opts := s.Opts
	opts.LazyContent = true
	l, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return l
}

// sameContents checks that a LazyContent session holds no content and
// reads back, by windows and one row at a time, what the other holds;
// and that its timeline's entry summaries are the same.
func sameContents(t *testing.T, held, lazy *Session) {
	t.Helper()
	n := held.HeldEntries()
	if lazy.HeldEntries() != n {
		t.Fatalf("%d rows lazily, %d held", lazy.HeldEntries(), n)
	}
	for i := range n {
		if lazy.EntryAt(i).Content != "" {
			t.Fatalf("row %d holds its content under LazyContent", i)
		}
	}
	got, err := lazy.Contents(context.Background(), 0, n)
	if err != nil {
		t.Fatal(err)
	}
	nonEmpty := 0
	for i := range n {
		if got[i] != held.EntryAt(i).Content {
			t.Fatalf("row %d: read back %q, held %q", i, got[i], held.EntryAt(i).Content)
		}
		if got[i] != "" {
			nonEmpty++
		}
		if i%7 == 0 {
			if c, err := lazy.Content(context.Background(), i); err != nil || c != got[i] {
				t.Fatalf("Content(%d) = %q, %v", i, c, err)
			}
		}
	}
	if nonEmpty == 0 {
		t.Fatal("no row has content: the comparison tests nothing")
	}
	a, err := held.Timeline(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lazy.Timeline(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Events) != len(b.Events) {
		t.Fatalf("timeline: %d events lazily, %d held", len(b.Events), len(a.Events))
	}
	for i := range a.Events {
		if a.Events[i].Summary != b.Events[i].Summary {
			t.Fatalf("timeline event %d: %q lazily, %q held", i, b.Events[i].Summary, a.Events[i].Summary)
		}
	}
}
