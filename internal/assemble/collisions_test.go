package assemble

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/present/finding"
)

// Entry ids that differ by a zero-width space or a Cyrillic look-alike
// are one TEXT_CONFUSABLE_ID group, whether the ids are read from the
// rows the session holds (Load), from the lineage graph (LoadLineage,
// which holds none) or beside the graph's build (LoadVerify, which keeps
// them): the same findings every way.
func TestEntryIDCollisionsFromRowsOrGraph(t *testing.T) {
	t.Parallel()
	sdir := evidencetest.CopyTree(t, filepath.Join(scenarioDir, "clean"))
	m, err := evidence.ReadManifest(sdir)
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(sdir, m.Snapshot)
	db, err := sql.Open("sqlite", "file:"+snap)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"Acme\u200b", "Acme", "\u0410cme"} {
		if _, err := db.Exec(`UPDATE entries SET eid = ? WHERE seq = (SELECT seq FROM entries ORDER BY seq LIMIT 1 OFFSET ?)`, id, i); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	held := openStore(t, sdir, snap, m, "")
	if err := held.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	graphOnly := openStore(t, sdir, snap, m, "")
	if err := graphOnly.LoadLineage(context.Background()); err != nil {
		t.Fatal(err)
	}
	if held.HeldEntries() == 0 || graphOnly.HeldEntries() != 0 {
		t.Fatalf("rows held: %d by Load, %d by LoadLineage", held.HeldEntries(), graphOnly.HeldEntries())
	}
	got, want := held.LineageCollisions(), graphOnly.LineageCollisions()
	if len(got) != 1 || got[0].Code != finding.TextConfusableID {
		t.Fatalf("want one TEXT_CONFUSABLE_ID finding, got %v", got)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("from the rows %v, from the graph %v", got, want)
	}
	verified := openStore(t, sdir, snap, m, "")
	if err := verified.LoadVerify(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if verified.heldCollisions.Load() == nil {
		t.Fatal("LoadVerify kept no entry id collisions")
	}
	if kept := verified.LineageCollisions(); !reflect.DeepEqual(kept, got) {
		t.Fatalf("kept by LoadVerify %v, from the rows %v", kept, got)
	}
}
