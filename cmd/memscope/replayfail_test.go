package main

import (
	"database/sql"
	"path/filepath"
	"regexp"
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

// On structural-write the substitute AuthSelect names for act-pay-fowler
// is the answer read off the G_auth selection: passage:chatwin, G_auth's
// rank 1, as in the paper's Figure 4 (issue 23, item 12).
func TestAuthSelectSubstituteIsChatwin(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	code, out, errs := runIn(t, sdir, "actions", "snapshot.db", "--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile)
	if code == exitUsage || !strings.Contains(out, "substitute passage:chatwin (rank 1 on G_auth") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
}

// Display collisions (issue 23, item 11): a query id with a zero-width
// space, one that literally spells "<U+200B>", and the plain one. They
// print differently, each printed id resolves to its own query (never the
// decoy), and the look-alike pair is TEXT_CONFUSABLE_ID.
func TestPrintedIDsAreUnambiguous(t *testing.T) {
	dst := evidencetest.CopyTree(t, filepath.Join(demoDir, "clean"))
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dst, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"Acme\u200b", "Acme<U+200B>", "Acme"}
	texts := map[string]string{}
	rows, err := db.Query("SELECT seq, text FROM queries ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	for rows.Next() {
		var seq int64
		var text string
		rows.Scan(&seq, &text)
		seqs = append(seqs, seq)
		texts[ids[len(seqs)-1]] = text
	}
	rows.Close()
	for i, id := range ids {
		if _, err := db.Exec("UPDATE queries SET id = ? WHERE seq = ?", id, seqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	anchors := []string{"--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	_, out, errs := runIn(t, dst, append([]string{"replay", "snapshot.db"}, anchors...)...)
	for _, printed := range []string{"Acme<U+200B> ", `Acme\<U+200B> `} {
		if !strings.Contains(out, "\n"+printed) {
			t.Errorf("table does not show %q:\n%s", printed, out)
		}
	}
	if !strings.Contains(errs, "TEXT_CONFUSABLE_ID") {
		t.Errorf("no TEXT_CONFUSABLE_ID warning: %s", errs)
	}
	for i, printed := range []string{"Acme<U+200B>", `Acme\<U+200B>`, "Acme"} {
		code, out, errs := runIn(t, dst, append([]string{"replay", "snapshot.db", "--query", printed}, anchors...)...)
		if code == exitUsage || !strings.Contains(out, texts[ids[i]]) {
			t.Errorf("--query %q: exit %d %s; want the query %q (%s)\n%s", printed, code, errs, ids[i], texts[ids[i]], out)
		}
	}
}

// A malformed query row (k outside 1..1000) gives 1 in every command and
// the rest is still analysed: it used to stop diff with exit 2, and
// actions exited 0 without a word. In diff it is a ROW_MALFORMED finding
// naming the side.
func TestMalformedQueryRowIsAFindingEverywhere(t *testing.T) {
	tamperedRowEverywhere(t, "queries", `UPDATE queries SET k = 99999999999 WHERE id = ?`, "99999999999 is outside 1..1000")
}

// A malformed node row (a kind that is neither passage nor entity) gives
// 1 in every command and the rest is still analysed: the writes naming
// the node used to stop the replay graph, so timeline, replay and
// exposure exited 2 ("edge ... names unknown destination node"), and
// diff replayed no query. The node stands in the graph as an unread
// placeholder.
func TestMalformedNodeRowIsAFindingEverywhere(t *testing.T) {
	tamperedRowEverywhere(t, "nodes", `UPDATE nodes SET kind = 'weird' WHERE id = ?`, `"weird" is not passage or entity`)
}

// tamperedRowEverywhere breaks the first row of table in a copy of the
// clean scenario with update (its one parameter: the row's id), then
// requires exit 1 from every command on the copy, and from diff of the
// original against it a ROW_MALFORMED finding naming the row and side B
// (with want in its message) and every query compared.
func tamperedRowEverywhere(t *testing.T, table, update, want string) {
	src := filepath.Join(demoDir, "clean")
	dst := evidencetest.CopyTree(t, src)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dst, "snapshot.db"))
	if err != nil {
		t.Fatal(err)
	}
	var id string
	if err := db.QueryRow(`SELECT id FROM ` + table + ` ORDER BY seq LIMIT 1`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(update, id); err != nil {
		t.Fatal(err)
	}
	db.Close()
	anchors := []string{"snapshot.db", "--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	for _, cmd := range [][]string{{"verify"}, {"lineage"}, {"replay"}, {"actions"}, {"timeline"}, {"exposure", "--draws", "2", "--curve-draws", "0"}, {"report", "--out", filepath.Join(t.TempDir(), "r.html")}} {
		if code, _, errs := runIn(t, dst, append(append([]string{cmd[0]}, anchors...), cmd[1:]...)...); code != exitFindings {
			t.Errorf("%s with a malformed %s row: exit %d, want 1\n%s", cmd[0], table, code, errs)
		}
	}
	code, out, errs := runIn(t, src, "diff", "snapshot.db", filepath.Join(dst, "snapshot.db"), "--log", evidence.LogDir)
	if code != exitFindings || !strings.Contains(out, "ROW_MALFORMED") || !strings.Contains(out, "B: "+table+" "+id) || !strings.Contains(out, want) {
		t.Errorf("diff with a malformed %s row in B: exit %d %s\n%s", table, code, errs, out)
	}
	if !regexp.MustCompile(`(?m)^  q-patagonia\s+SAME\s+then `).MatchString(out) {
		t.Errorf("diff did not compare the queries:\n%s", out)
	}
}
