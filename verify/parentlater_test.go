package verify_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/loader"
)

// TestParentInALaterRow: parents are checked as rows arrive, and a parent
// whose row comes later (the snapshot's row order is unsigned) waits
// until every row is read: it must not be reported missing. A parent
// that is really missing still is (TestDeleteTombstoneRow).
func TestParentInALaterRow(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "clean")
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := loader.Open(filepath.Join(dir, m.Snapshot))
	if err != nil {
		t.Fatal(err)
	}
	// The first entry named as a parent by a later row.
	seqOf := map[string]int64{}
	var parent string
	err = snap.EachEntry(context.Background(), func(r *loader.EntryRow) error {
		seqOf[r.EID] = r.Seq
		if r.Entry != nil && parent == "" {
			for _, p := range r.Entry.Parents {
				if _, ok := seqOf[p.String()]; ok {
					parent = p.String()
					return loader.ErrStop
				}
			}
		}
		return nil
	})
	snap.Close()
	if err != nil || parent == "" {
		t.Fatalf("no entry of the clean scenario names an earlier parent (%v)", err)
	}
	withDB(t, dir, func(db *sql.DB) {
		exec(t, db, "UPDATE entries SET seq = (SELECT max(seq) FROM entries) + 1 WHERE eid = ?", parent)
	})
	rep := runScenario(t, dir)
	for _, f := range rep.Findings {
		if f.Code == "PARENT_MISSING" {
			t.Fatalf("a parent in a later row was reported missing: %s: %s", f.Subject, f.Message)
		}
	}
}
