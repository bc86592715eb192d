package recorder_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/internal/recorder"
)

// TestConcurrentSequencing drives one recorder from many goroutines at
// once, each job looking up what jobs sequenced just before it recorded
// (and which may not be committed yet): an entity node every job declares
// (declared once), entries deleted in the job that wrote them and by other
// jobs right after, trust read back before commit. Every Do succeeds; the
// snapshot holds one row for the shared node; each tombstone carries the
// deleted entry's lineage; the rows' log indices follow their records'
// times across all record kinds; and memscope verify passes on the closed
// store. Run it with -race: callers sign concurrently while the committer
// inserts.
func TestConcurrentSequencing(t *testing.T) {
	memscope, _, _ := bins(t)
	ctx := context.Background()
	rec, dir := openRecorder(t)
	const workers, perWorker = 8, 12
	shared := "entity:concurrent:shared"
	key := func(w, i int) [32]byte { return sha256.Sum256([]byte(fmt.Sprintf("item %d/%d", w, i))) }
	var wg sync.WaitGroup
	var mu sync.Mutex
	ownDeleted := map[record.ID]bool{}
	errs := make(chan error, workers*perWorker*3)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWorker; i++ {
				// A write: entry, the shared entity (declared by the first
				// job only), an edge to it; every third entry is deleted
				// in the job that wrote it, before its group commits.
				err := rec.Do(ctx, func(tx *recorder.Tx) error {
					id, err := tx.Entry(recorder.EntryIn{Writer: recorder.DefaultAgent, Content: fmt.Sprintf("w%d i%d", w, i), Trust: record.Trusted,
						Parents: []record.ID{}, Weights: []float64{}, Source: key(w, i), Session: "s" + strconv.Itoa(w)})
					if err != nil {
						return err
					}
					if tr := tx.Trust(id); tr != record.Trusted {
						return fmt.Errorf("trust of an entry not yet committed reads %v", tr)
					}
					if err := tx.Node(shared, "entity", "shared", nil, recorder.DefaultAgent); err != nil {
						return err
					}
					if _, err := tx.Write(record.KindEdge, shared, "passage:"+id.String(), "has", 1, recorder.DefaultAgent, []record.ID{id}); err != nil {
						return err
					}
					if i%3 == 0 {
						mu.Lock()
						ownDeleted[id] = true
						mu.Unlock()
						return tx.DeleteID(id, "deleted in its own job", recorder.DefaultAgent)
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
				// Another worker's previous item, deleted by key: it may
				// be committed, or sequenced only, or deleted already.
				other := (w + 1) % workers
				errs <- rec.Do(ctx, func(tx *recorder.Tx) error {
					_, err := tx.Delete(key(other, i), "deleted by a neighbour", recorder.DefaultAgent)
					return err
				})
				errs <- rec.Do(ctx, func(tx *recorder.Tx) error {
					return tx.Query(writer.Query{ID: fmt.Sprintf("q-%d-%d", w, i), Text: "members", K: 1, Selected: []string{}}, recorder.DefaultAgent)
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Close(ctx); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "snapshot.db")
	db := openSnapshot(t, snap)
	defer db.Close()
	var nodes int
	if err := db.QueryRow("SELECT COUNT(*) FROM nodes WHERE id = ?", shared).Scan(&nodes); err != nil || nodes != 1 {
		t.Fatalf("the shared entity node has %d rows (want 1): %v", nodes, err)
	}
	var tombstones int
	rows, err := db.Query("SELECT record FROM tombstones")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		tb, err := record.DecodeTombstone(raw)
		if err != nil {
			t.Fatal(err)
		}
		tombstones++
		delete(ownDeleted, tb.Target)
		if tb.EntryWriter != recorder.DefaultAgent || tb.EntryTrust == nil || *tb.EntryTrust != record.Trusted {
			t.Errorf("tombstone of %s carries writer %q trust %v, want the entry's", tb.Target, tb.EntryWriter, tb.EntryTrust)
		}
	}
	rows.Close()
	if len(ownDeleted) > 0 {
		t.Fatalf("%d entries deleted in the job that wrote them have no tombstone (of %d tombstones)", len(ownDeleted), tombstones)
	}
	assertLogOrderIsTimeOrder(t, db)
	out, code := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(dir)...)...)
	if code != 0 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
}

// assertLogOrderIsTimeOrder checks that the records' times, read from
// their signed encodings, rise with their log indices across every kind
// the recorder writes.
func assertLogOrderIsTimeOrder(t *testing.T, db *sql.DB) {
	t.Helper()
	type leaf struct {
		index uint64
		ts    uint64
		what  string
	}
	var leaves []leaf
	decode := map[string]func([]byte) (uint64, error){
		"entries": func(b []byte) (uint64, error) {
			e, err := record.DecodeEntry(b)
			return tsOf(e, err, func() uint64 { return e.TS })
		},
		"writes": func(b []byte) (uint64, error) {
			w, err := record.DecodeWrite(b)
			return tsOf(w, err, func() uint64 { return w.TS })
		},
		"tombstones": func(b []byte) (uint64, error) {
			x, err := record.DecodeTombstone(b)
			return tsOf(x, err, func() uint64 { return x.TS })
		},
		"nodes": func(b []byte) (uint64, error) {
			n, err := record.DecodeNode(b)
			return tsOf(n, err, func() uint64 { return n.TS })
		},
		"queries": func(b []byte) (uint64, error) {
			q, err := record.DecodeQuery(b)
			return tsOf(q, err, func() uint64 { return q.TS })
		},
	}
	for table, dec := range decode {
		rows, err := db.Query("SELECT leaf_index, record FROM " + table + " WHERE leaf_index IS NOT NULL")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var idx int64
			var raw []byte
			if err := rows.Scan(&idx, &raw); err != nil {
				t.Fatal(err)
			}
			ts, err := dec(raw)
			if err != nil {
				t.Fatalf("%s leaf %d: %v", table, idx, err)
			}
			leaves = append(leaves, leaf{uint64(idx), ts, table})
		}
		rows.Close()
	}
	if len(leaves) < 100 {
		t.Fatalf("only %d recorded leaves", len(leaves))
	}
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].index < leaves[j].index })
	for i := 1; i < len(leaves); i++ {
		if leaves[i].ts < leaves[i-1].ts {
			t.Fatalf("leaf %d (%s) has time %d, before leaf %d (%s) at %d: log order is not time order",
				leaves[i].index, leaves[i].what, leaves[i].ts, leaves[i-1].index, leaves[i-1].what, leaves[i-1].ts)
		}
	}
}

func tsOf[T any](v *T, err error, ts func() uint64) (uint64, error) {
	if err != nil || v == nil {
		return 0, err
	}
	return ts(), nil
}
