package writer_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/writer"
)

// TestDeferSyncWritesTheSameStore: a durable store whose owner syncs the
// WAL itself (DeferSync, SyncWAL from other goroutines while the writer
// goes on committing) reads back, after every commit and its sync, with
// every row committed so far, and closes to the same bytes as a store
// that SQLite syncs inside each commit, with no WAL left beside it.
func TestDeferSyncWritesTheSameStore(t *testing.T) {
	dir := t.TempDir()
	full := durableBuild(t, filepath.Join(dir, "full.db"), false)
	deferred := durableBuild(t, filepath.Join(dir, "deferred.db"), true)
	if !bytes.Equal(full, deferred) {
		t.Fatal("the DeferSync store differs from the synchronous=FULL one")
	}
	if _, err := os.Stat(filepath.Join(dir, "deferred.db-wal")); !os.IsNotExist(err) {
		t.Fatalf("a WAL is left beside the closed store: %v", err)
	}
}

func durableBuild(t *testing.T, path string, deferSync bool) []byte {
	t.Helper()
	st, _, user, id := newStore(t, path, func(c *writer.Config) { c.Durable, c.DeferSync = true, deferSync })
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := byte(0); i < 16; i++ {
		e := &record.Entry{EID: id(10 + i), Writer: "user", Content: "note " + strconv.Itoa(int(i)), TS: 20 + uint64(i)}
		if err := st.AddEntry(ctx, e, user, writer.EntryOptions{SessionID: "s"}); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := committedEntries(t, path); n != int(i)+1 {
			t.Fatalf("after commit %d a reader sees %d entries", i, n)
		}
		if deferSync {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- st.SyncWAL()
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// committedEntries counts the entries a second, read-only connection sees.
func committedEntries(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM entries").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
