package smsrdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
)

// An oversized session id or tag is reported from its length and never
// fetched; the other memories are still read.
func TestOversizedCellsAreFindings(t *testing.T) {
	t.Parallel()
	path := evidencetest.EditedSQLiteCopy(t, filepath.Join(fixtures, "memories.db"),
		"UPDATE memories SET session_id = printf('%.*c', 100000, 's') WHERE id = (SELECT min(id) FROM memories)",
		"UPDATE memories SET hmac_tag = printf('%.*c', 100000, 't') WHERE id = (SELECT max(id) FROM memories)")
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Memories) != 3 || len(st.Issues) != 2 {
		t.Fatalf("%d memories, issues %+v", len(st.Memories), st.Issues)
	}
	if !strings.HasSuffix(st.Issues[0].Subject, "field session_id") || !strings.HasSuffix(st.Issues[1].Subject, "field hmac_tag") {
		t.Fatalf("issues %+v", st.Issues)
	}
}
