package mem0db

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
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
