package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
)

// A query that cannot be replayed is a FAILED row and an error: replay
// exits 1 even when every other query replays SAME (issue 23, item 12).
func TestReplayFailedQueryExitsOne(t *testing.T) {
	src := filepath.Join(demoDir, "clean")
	anchors := []string{"--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	if code, _, errs := runIn(t, src, append([]string{"replay", "snapshot.db"}, anchors...)...); code != exitOK {
		t.Fatalf("premise: clean replay exits %d: %s", code, errs)
	}
	dst := evidencetest.CopyTree(t, src)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dst, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE queries SET reset = '{"no-such-node": 1}' WHERE seq = (SELECT min(seq) FROM queries)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, out, errs := runIn(t, dst, append([]string{"replay", "snapshot.db"}, anchors...)...)
	if code != exitFindings || !strings.Contains(out, "FAILED") {
		t.Errorf("replay with an unreplayable query: exit %d %s\n%s", code, errs, out)
	}
	code, out, _ = runIn(t, dst, append([]string{"replay", "snapshot.db", "--json"}, anchors...)...)
	if code != exitFindings || !strings.Contains(out, `"FAILED"`) {
		t.Errorf("replay --json with an unreplayable query: exit %d\n%s", code, out)
	}
}
