package importer

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// noteWIDs maps each input edge id of an import to its write id.
func noteWIDs(t *testing.T, out string) map[string]string {
	t.Helper()
	snap, err := loader.Open(filepath.Join(out, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	_, ids := readNotes(t, snap)
	by := map[string]string{}
	for wid, id := range ids {
		by[id] = wid
	}
	return by
}

// findingsOf lists the findings of code ("": any error) whose subject is
// subject ("": any).
func findingsOf(rep *verify.Report, code finding.Code, subject string) []finding.Finding {
	var out []finding.Finding
	for _, f := range rep.Findings {
		if (f.Code == code || code == "" && f.Severity == finding.SevError) && (subject == "" || f.Subject == subject) {
			out = append(out, f)
		}
	}
	return out
}

// Every import note is bound to signed bytes: a row altered, added or
// removed (or the whole table dropped, or its write removed) is a finding
// naming the table, the write and the field, and an untouched import
// verifies with the table covered by signatures.
func TestImportNotesTamper(t *testing.T) {
	base := filepath.Join(t.TempDir(), "imp")
	if _, err := Import(context.Background(), smallOptions("csv", base)); err != nil {
		t.Fatal(err)
	}
	rep := verifyImported(t, base)
	if !rep.OK || len(rep.Findings) != 0 {
		t.Fatalf("untouched import: %v", rep.Findings)
	}
	covered := false
	for _, c := range rep.Coverage {
		covered = covered || c.Table == verify.TableImportNotes && c.Status == verify.StatusSigned && c.Rows == 16 && c.Signed == 16
	}
	if !covered {
		t.Errorf("coverage %+v: want import_notes signed, 16 of 16", rep.Coverage)
	}
	wid := noteWIDs(t, base)
	subj := func(id string) string { return "importnote " + wid[id] }
	type want struct {
		code    finding.Code
		subject string
		says    []string // the message names these (table, field...)
		count   int      // findings of the code with the subject (0: at least one)
	}
	cases := []struct {
		name  string
		sql   []string
		wants []want
	}{
		{"input id altered", []string{"UPDATE import_notes SET input_id = 'm1-forged' WHERE input_id = 'm1'"},
			[]want{{finding.ColumnMismatch, subj("m1"), []string{"input_id", "import_notes"}, 1}}},
		{"declared label altered", []string{"UPDATE import_notes SET declared = 'authenticated' WHERE input_id = 'x1'"},
			[]want{{finding.ColumnMismatch, subj("x1"), []string{"declared", "import_notes"}, 1}}},
		{"row removed", []string{"DELETE FROM import_notes WHERE input_id = 'm5'"},
			[]want{{finding.LeafWithoutRecord, subj("m5"), []string{"import_notes", wid["m5"]}, 1}}},
		{"table dropped", []string{"DROP TABLE import_notes"},
			[]want{{finding.LeafWithoutRecord, subj("r2"), []string{"import_notes"}, 1}}},
		{"unsigned row added", []string{
			"CREATE TABLE n2 (seq INTEGER PRIMARY KEY, wid TEXT NOT NULL UNIQUE, input_id TEXT, declared TEXT, leaf_index INTEGER, record BLOB)",
			"INSERT INTO n2 SELECT * FROM import_notes", "DROP TABLE import_notes", "ALTER TABLE n2 RENAME TO import_notes",
			"INSERT INTO import_notes VALUES (100, '01900000-0000-7000-8000-000000000000', 'forged', 'authenticated', NULL, NULL)"},
			[]want{{finding.RowUnsigned, "importnote 01900000-0000-7000-8000-000000000000", []string{"import_notes"}, 1},
				{finding.ImportNoteUnbound, "importnote 01900000-0000-7000-8000-000000000000", []string{"writes table"}, 1}}},
		{"signed note moved to another writer's write", []string{
			"UPDATE import_notes SET record = (SELECT record FROM import_notes WHERE input_id = 'x1') WHERE input_id = 'm1'"},
			[]want{{finding.ColumnMismatch, subj("m1"), []string{"wid", "input_id", "declared"}, 1},
				{finding.ImportNoteUnbound, subj("m1"), []string{"agent:peer", "agent:indexer"}, 1}}},
		{"write id altered", []string{"UPDATE import_notes SET wid = '01900000-0000-7000-8000-000000000001' WHERE input_id = 'm3'"},
			[]want{{finding.ColumnMismatch, "importnote 01900000-0000-7000-8000-000000000001", []string{"wid", "import_notes"}, 1},
				{finding.LeafWithoutRecord, subj("m3"), []string{"import_notes"}, 1}}},
		{"leaf index altered", []string{"UPDATE import_notes SET leaf_index = leaf_index + 1 WHERE input_id = 'm4'"},
			[]want{{"", subj("m4"), nil, 0}}},
		{"record corrupted", []string{"UPDATE import_notes SET record = substr(record, 1, length(record) - 1) || X'00' WHERE input_id = 'm6'"},
			[]want{{finding.SigInvalid, subj("m6"), nil, 1}}},
		{"rows reordered", []string{"UPDATE import_notes SET seq = 1000 WHERE input_id = 'm1'"},
			[]want{{finding.RowOrder, "import_notes seq 1000", []string{"the log"}, 1}}},
		{"malformed row", []string{"UPDATE import_notes SET declared = 'trusted' WHERE input_id = 'x2'"},
			[]want{{finding.RowMalformed, "import_notes " + wid["x2"], []string{"declared", "trusted"}, 1}}},
		{"write removed", []string{"DELETE FROM writes WHERE wid = (SELECT wid FROM import_notes WHERE input_id = 'm2')"},
			[]want{{finding.ImportNoteUnbound, subj("m2"), []string{"writes table"}, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := evidencetest.CopyTree(t, base)
			db, err := sql.Open("sqlite", filepath.Join(out, evidence.SnapshotFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range c.sql {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			db.Close()
			rep := verifyImported(t, out)
			if rep.OK {
				t.Errorf("verify passed the tampered store")
			}
			for _, w := range c.wants {
				got := findingsOf(rep, w.code, w.subject)
				if len(got) == 0 || w.count > 0 && len(got) != w.count {
					t.Errorf("%d %s findings on %q, want %d; all: %v", len(got), w.code, w.subject, w.count, rep.Findings)
					continue
				}
				for _, s := range w.says {
					if !strings.Contains(got[0].Message, s) {
						t.Errorf("%s message %q does not name %q", w.code, got[0].Message, s)
					}
				}
			}
			if c.name == "malformed row" && len(rep.Findings) != 1 {
				t.Errorf("a malformed row is one finding (its leaf is claimed, its write bound): %v", rep.Findings)
			}
			if c.name == "table dropped" {
				if n := len(findingsOf(rep, finding.LeafWithoutRecord, "")); n != 16 {
					t.Errorf("%d LEAF_WITHOUT_RECORD findings, want one per note (16): %v", n, rep.Findings)
				}
			}
		})
	}
}

// An import written before the notes table kept the same data in meta
// (import_ids, declared_labels): readers still take it from there.
func TestImportNotesFromOlderMeta(t *testing.T) {
	out := filepath.Join(t.TempDir(), "imp")
	if _, err := Import(context.Background(), smallOptions("csv", out)); err != nil {
		t.Fatal(err)
	}
	wid := noteWIDs(t, out)
	db, err := sql.Open("sqlite", filepath.Join(out, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"DROP TABLE import_notes",
		"INSERT INTO meta(key, value) VALUES('" + snapshot.MetaImportIDs + `', '{"` + wid["m1"] + `":"m1","` + wid["x1"] + `":"x1"}')`,
		"INSERT INTO meta(key, value) VALUES('" + snapshot.MetaDeclaredLabels + `', '{"` + wid["x1"] + `":"unauthenticated","` + wid["s1"] + `":"authenticated"}')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	snap, err := loader.Open(filepath.Join(out, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	notes, fromMeta, err := snap.ImportNotesOrMeta(context.Background())
	if err != nil || !fromMeta || len(notes) != 3 {
		t.Fatalf("notes %+v from meta %v: %v", notes, fromMeta, err)
	}
	got := map[string]loader.ImportNote{}
	for _, n := range notes {
		got[n.WID] = n
	}
	if n := got[wid["x1"]]; n.InputID != "x1" || n.Declared != snapshot.LabelUnauthenticated || n.Record != nil {
		t.Errorf("x1 note %+v", n)
	}
	if n := got[wid["m1"]]; n.InputID != "m1" || n.Declared != "" {
		t.Errorf("m1 note %+v", n)
	}
	labels, err := snap.DeclaredLabels(context.Background())
	if err != nil || len(labels) != 2 || labels[wid["x1"]] || !labels[wid["s1"]] {
		t.Errorf("declared labels %v: %v", labels, err)
	}
}
