package mem0db

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// editedCopy copies the fixture and applies SQL to the copy (never to the
// fixture itself).
func editedCopy(t *testing.T, stmts ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "history.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return path
}

// An oversized cell is reported from its length, the row is skipped, and
// every other row is still read.
func TestOversizedCellsAreFindings(t *testing.T) {
	t.Parallel()
	path := editedCopy(t,
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
