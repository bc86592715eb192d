package loader_test

import (
	"context"
	"database/sql"
	"maps"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/loader"
)

// TestOpenLiveBeforeHidesRowsPastSize: a handle opened before leaf size
// reads, from every table the loader streams, exactly the rows an
// independent SQL count over the file finds with a leaf below size or no
// leaf (a leaf_index that is not a number counts as past every size, as
// SQLite orders text after integers); the registry and meta are read
// whole; the file is not changed, and no file (-wal, -shm) appears beside
// it.
func TestOpenLiveBeforeHidesRowsPastSize(t *testing.T) {
	ctx := context.Background()
	path := copyFile(t, filepath.Join(generated(t), "structural-write", "snapshot.db"))
	// A hostile leaf_index that is text: hidden, as a whole-store round's
	// copy deletes it (leaf_index >= size holds for text).
	edit(t, path, "UPDATE writes SET leaf_index = 'x' WHERE seq = (SELECT min(seq) FROM writes)")
	before := evidencetest.HashTree(t, filepath.Dir(path))
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(table, cond string) int {
		t.Helper()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM " + table + " WHERE " + cond).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	streamed := func(s *loader.Snapshot) map[string]int {
		t.Helper()
		n := map[string]int{}
		each := map[string]func() error{
			"entries": func() error {
				return s.EachEntry(ctx, func(*loader.EntryRow) error { n["entries"]++; return nil })
			},
			"writes": func() error { return s.EachWrite(ctx, func(*loader.WriteRow) error { n["writes"]++; return nil }) },
			"principals": func() error {
				return s.EachPrincipal(ctx, func(*loader.PrincipalRow) error { n["principals"]++; return nil })
			},
			"tombstones": func() error {
				return s.EachTombstone(ctx, func(*loader.TombstoneRow) error { n["tombstones"]++; return nil })
			},
		}
		for table, read := range each {
			if err := read(); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
		}
		nodes, err := s.Nodes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		queries, err := s.Queries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n["nodes"], n["queries"] = len(nodes), len(queries)
		return n
	}
	var hid int
	for _, size := range []uint64{0, 10, 40, 1 << 62} {
		s, err := loader.OpenLiveBefore(ctx, path, size)
		if err != nil {
			t.Fatal(err)
		}
		got := streamed(s)
		s.Close()
		for _, table := range []string{"entries", "writes", "tombstones", "nodes", "queries"} {
			var want int
			if err := db.QueryRow("SELECT count(*) FROM "+table+" WHERE leaf_index IS NULL OR (typeof(leaf_index) = 'integer' AND leaf_index < ?)", int64(size)).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got[table] != want {
				t.Errorf("before leaf %d: %d %s rows read, want %d", size, got[table], table, want)
			}
			hid += count(table, "1") - want
		}
		if got["principals"] != count("principals", "1") {
			t.Errorf("before leaf %d: %d registry rows read, want every one (%d)", size, got["principals"], count("principals", "1"))
		}
	}
	if hid == 0 {
		t.Fatal("no row was hidden: the test shows nothing")
	}
	if !maps.Equal(evidencetest.HashTree(t, filepath.Dir(path)), before) {
		t.Error("the snapshot changed, or a file appeared beside it")
	}
}

// TestOpenLiveBeforeSeesUniqueIndexes: on a handle that hides rows
// behind TEMP views, HasUniqueIndex reports the file's indexes as
// OpenLive's handle does (the view shadows the table's name, and a
// look-up through it still descends the table's index), so a caller can
// check on the handle it reads by index.
func TestOpenLiveBeforeSeesUniqueIndexes(t *testing.T) {
	ctx := context.Background()
	path := copyFile(t, filepath.Join(generated(t), "structural-write", "snapshot.db"))
	live, err := loader.OpenLive(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	before, err := loader.OpenLiveBefore(ctx, path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	for _, c := range []struct {
		table, column string
		unique        bool
	}{{"entries", "eid", true}, {"writes", "wid", true}, {"tombstones", "target", true}, {"principals", "rid", true}, {"entries", "writer", false}} {
		for name, s := range map[string]*loader.Snapshot{"OpenLive": live, "OpenLiveBefore": before} {
			got, err := s.HasUniqueIndex(ctx, c.table, c.column)
			if err != nil {
				t.Fatalf("%s: %s.%s: %v", name, c.table, c.column, err)
			}
			if got != c.unique {
				t.Errorf("%s: %s.%s: unique index %v, the schema declares %v", name, c.table, c.column, got, c.unique)
			}
		}
	}
}
