package watch

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
)

// TestHoldBack: the rows of a round's copy that claim a leaf at or beyond
// the verified checkpoint's size are removed from the copy, each named by
// a transient RECORD_NOT_IN_LOG finding (counted independently here with
// SQL over the record tables), the rows the checkpoint covers stay, and
// the registry and the store's own rows are kept whole.
func TestHoldBack(t *testing.T) {
	ctx := context.Background()
	copyDir, m := copyOfScenario(t, "structural-write")
	path := filepath.Join(copyDir, m.Snapshot)
	count := func(cond string) int {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		n := 0
		for _, tb := range []string{"entries", "writes", "tombstones", "nodes", "queries", "actions", "gate_events", "checkpoints"} {
			var c int
			if err := db.QueryRow("SELECT count(*) FROM " + tb + " WHERE " + cond).Scan(&c); err != nil {
				t.Fatalf("%s: %v", tb, err)
			}
			n += c
		}
		return n
	}
	const size = 10
	ahead, covered := count("leaf_index >= 10"), count("leaf_index < 10 OR leaf_index IS NULL")
	if ahead == 0 || covered == 0 {
		t.Fatalf("the scenario has %d rows beyond leaf 10 and %d within: no test", ahead, covered)
	}
	fs, _, err := holdBack(ctx, path, size)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != ahead {
		t.Errorf("%d findings for %d rows beyond the checkpoint", len(fs), ahead)
	}
	for _, f := range fs {
		if f.Code != finding.RecordNotInLog || !transient[f.Code] {
			t.Errorf("held-back row reported as %s", f.Code)
		}
	}
	if got := count("leaf_index >= 10"); got != 0 {
		t.Errorf("%d rows beyond the checkpoint left in the copy", got)
	}
	if got := count("leaf_index < 10 OR leaf_index IS NULL"); got != covered {
		t.Errorf("%d covered rows left of %d", got, covered)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := db.QueryRow("SELECT count(*) FROM meta WHERE leaf_index >= 10").Scan(&kept); err != nil || kept == 0 {
		t.Errorf("meta rows beyond the checkpoint: %d (%v), want them kept", kept, err)
	}
	db.Close()
	if fs, _, err := holdBack(ctx, path, 1<<40); err != nil || len(fs) != 0 {
		t.Errorf("a checkpoint covering everything held back %d rows (%v)", len(fs), err)
	}
}

// copyOfScenario is a private copy of one demo scenario of seed 1 (the
// shared cache's, generated once per machine): the watch tests change or
// hash the copy, never the cache.
func copyOfScenario(t *testing.T, name string) (string, *evidence.Manifest) {
	t.Helper()
	src, m := scenariocache.Scenario(t, 1, name)
	return evidencetest.CopyTree(t, src), m
}
