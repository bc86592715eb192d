package loader_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/loader"
)

// The optional import notes table: absent, a store is read from its meta
// keys (none here: no notes); present, a bad row is named by write and
// field and skipped, a row without leaf_index and record columns is read
// unsigned, and a view by its name is refused.
func TestOptionalImportNoteTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := cleanCopy(t)
	s, err := loader.OpenContext(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if s.Has(snapshot.ImportNoteTable) || len(s.Problems()) != 0 {
		t.Fatalf("clean store: Has(import_notes) %v, problems %v", s.Has(snapshot.ImportNoteTable), s.Problems())
	}
	if ns, fromMeta, err := s.ImportNotesOrMeta(ctx); ns != nil || fromMeta || err != nil {
		t.Fatalf("a store that is no import has notes %v (from meta %v): %v", ns, fromMeta, err)
	}
	s.Close()

	const w1, w2, w3 = "01900000-0000-7000-8000-000000000001", "01900000-0000-7000-8000-000000000002", "not-a-write-id"
	good := copyFile(t, p)
	run(t, good, "CREATE TABLE import_notes (seq INTEGER PRIMARY KEY, wid TEXT NOT NULL, input_id TEXT, declared TEXT)",
		"INSERT INTO import_notes VALUES (1, '"+w1+"', 'rel-1', 'authenticated')",
		"INSERT INTO import_notes VALUES (2, '"+w2+"', NULL, 'trusted')",
		"INSERT INTO import_notes VALUES (3, '"+w3+"', 'x', NULL)",
		"INSERT INTO import_notes VALUES (4, '"+w2+"', '"+strings.Repeat("i", 2000)+"', NULL)")
	s, err = loader.OpenContext(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ns, err := s.ImportNotes(ctx)
	var bad loader.RowErrors
	if !errors.As(err, &bad) || len(bad) != 3 || bad[0].Field != "declared" || bad[1].Field != "wid" || bad[2].Field != "input_id" {
		t.Fatalf("row errors %v, want declared of the second row, wid of the third, input_id of the fourth", err)
	}
	if len(ns) != 1 || ns[0].WID != w1 || ns[0].InputID != "rel-1" || ns[0].Declared != snapshot.LabelAuthenticated || ns[0].Record != nil {
		t.Fatalf("notes %+v", ns)
	}

	view := copyFile(t, p)
	run(t, view, "CREATE VIEW import_notes AS SELECT 1 AS seq, 'x' AS wid, zeroblob(900000000) AS input_id, NULL AS declared")
	sv, err := loader.OpenContext(ctx, view)
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	if sv.Has(snapshot.ImportNoteTable) {
		t.Fatal("an import_notes view is read")
	}
	if _, ok := problemKinds(sv)[key(loader.ProblemNotTable, snapshot.ImportNoteTable)]; !ok {
		t.Fatalf("no %s for the import_notes view: %v", loader.ProblemNotTable, sv.Problems())
	}
}
