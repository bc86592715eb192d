package main

import (
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/sharedtest"
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

// TestManyMalformedNodeRowsStillReplay: past the loader's cap on listed row
// errors (1,000), the node rows it skipped without listing still stand in
// the replay graph as placeholders, so every command analyses the rest
// (exit 1), not "could not run" (exit 2). The store is the import of the
// largest real LightRAG graph (2,730 nodes), 1,500 of its entity node rows
// broken: as placeholders they keep their edges, so the diff replays the
// same selection on both sides.
func TestManyMalformedNodeRowsStillReplay(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig")
	if code, _, errs := runIn(t, dir, "import", "--from", "lightrag", sharedtest.Case(t, "lightrag-gongcao-v2long"), "--out", orig); code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, errs)
	}
	// One query, the same row in both (unsigned: the diff replays it on
	// each side's G), resetting on an entity whose row stays readable.
	sqlExec(t, filepath.Join(orig, "snapshot.db"), `INSERT INTO queries(seq, id, text, k, reset, ts) SELECT 1, 'q-one', 'one', 5, json_object(id, 1.0), 1 FROM nodes WHERE kind = 'entity' ORDER BY seq DESC LIMIT 1`, 1)
	bad := evidencetest.CopyTree(t, orig)
	sqlExec(t, filepath.Join(bad, "snapshot.db"), `UPDATE nodes SET kind = 'weird' WHERE seq IN (SELECT seq FROM nodes WHERE kind = 'entity' ORDER BY seq LIMIT 1500)`, 1500)
	anchors := []string{"snapshot.db", "--log", evidence.LogDir, "--log-key", evidence.LogKeyFile, "--trust", evidence.TrustFile}
	for _, cmd := range [][]string{{"verify"}, {"replay"}, {"timeline"}, {"actions"}, {"report", "--out", filepath.Join(dir, "r.html")}} {
		if code, _, errs := runIn(t, bad, append(append([]string{cmd[0]}, anchors...), cmd[1:]...)...); code != exitFindings {
			t.Errorf("%s with 1,500 malformed node rows: exit %d, want 1\n%s", cmd[0], code, lastLines(errs, 5))
		}
	}
	// verify counts every broken row: 1,000 listed, one finding for the rest.
	_, out, _ := runIn(t, bad, append([]string{"verify", "--json"}, anchors...)...)
	if n := strings.Count(out, `"ROW_MALFORMED"`); n != 1001 || !strings.Contains(out, "500 more malformed rows not listed") {
		t.Errorf("verify --json: %d ROW_MALFORMED findings, want 1,001 with the last counting 500 more", n)
	}
	code, out, errs := runIn(t, orig, "diff", "snapshot.db", filepath.Join(bad, "snapshot.db"), "--log", evidence.LogDir)
	if code != exitFindings || !strings.Contains(out, "ROW_MALFORMED") || !strings.Contains(out, "500 more malformed rows not listed") ||
		!regexp.MustCompile(`(?m)^  q-one\s+SAME\s+then `).MatchString(out) {
		t.Errorf("diff against 1,500 malformed node rows: exit %d %s\n%s", code, errs, lastLines(out, 30))
	}
}

// sqlExec runs one statement on a SQLite file, which must change want rows.
func sqlExec(t *testing.T, path, stmt string, want int64) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(stmt)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != want {
		t.Fatalf("%s: %d rows changed, want %d", stmt, n, want)
	}
}

// lastLines is the last n lines of s, for a failure message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
