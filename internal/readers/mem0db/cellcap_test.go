package mem0db

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/sharedtest"
)

// An oversized cell is reported from its length, the row is skipped, and
// every other row is still read.
func TestOversizedCellsAreFindings(t *testing.T) {
	t.Parallel()
	path := evidencetest.EditedSQLiteCopy(t, filepath.Join(fixtures, "history.db"),
		"UPDATE history SET new_memory = printf('%.*c', 2000000, 'x') WHERE rowid = (SELECT min(rowid) FROM history)",
		"UPDATE messages SET content = printf('%.*c', 2000000, 'x') WHERE rowid = (SELECT min(rowid) FROM messages)")
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Versions) != 7 || len(st.Messages) != 21 {
		t.Fatalf("%d versions, %d messages; want 7 and 21", len(st.Versions), len(st.Messages))
	}
	var fields []string
	for _, is := range st.Issues {
		if strings.Contains(is.Message, "over the") {
			fields = append(fields, is.Subject)
		}
	}
	if len(fields) != 2 || !strings.HasSuffix(fields[0], "field new_memory") || !strings.HasSuffix(fields[1], "field content") {
		t.Fatalf("issues %+v", st.Issues)
	}
}

// A history cell that is not UTF-8 (Python's sqlite3, which Mem0 reads it
// with, raises on the row: checked here with Python itself) is a finding
// naming the row and field, and the row is still read.
func TestNotUTF8IsAFinding(t *testing.T) {
	path := evidencetest.EditedSQLiteCopy(t, filepath.Join(sharedtest.Case(t, "mem0-memagent"), "mem0_history.db"),
		"UPDATE history SET new_memory = CAST(x'4d656d30ff' AS TEXT) WHERE rowid = (SELECT min(rowid) FROM history)")
	var py struct{ Error string }
	sharedtest.RunPython(t, `
import json, sqlite3, sys
try:
    sqlite3.connect(sys.argv[1]).execute("SELECT new_memory FROM history ORDER BY rowid").fetchall()
    print(json.dumps({"error": ""}))
except sqlite3.OperationalError as e:
    print(json.dumps({"error": str(e)}))
`, &py, path)
	if !strings.Contains(py.Error, "decode") {
		t.Fatalf("Python's sqlite3 read the row: %q", py.Error)
	}
	want, err := Open(context.Background(), filepath.Join(sharedtest.Case(t, "mem0-memagent"), "mem0_history.db"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, is := range st.Issues {
		found = found || is.Code == finding.StoreParseDifferential && strings.HasSuffix(is.Subject, "field new_memory")
	}
	if !found || len(st.Versions) != len(want.Versions) {
		t.Errorf("%d versions (untouched %d); issues %+v", len(st.Versions), len(want.Versions), st.Issues)
	}
}
