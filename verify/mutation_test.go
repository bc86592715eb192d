package verify_test

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"

	"golang.org/x/mod/sumdb/note"
	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// pristine returns the directory of a generated scenario, shared by every
// package's tests (the scenario cache). Tests never touch it: every
// mutation works on a copy (mutableCopy).
func pristine(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(scenariocache.Dir(t, 1), name)
}

func TestMain(m *testing.M) {
	code := m.Run()
	verify.RemoveBenchStores()
	os.Exit(code)
}

func mutableCopy(t *testing.T, name string) string {
	t.Helper()
	return evidencetest.CopyTree(t, pristine(t, name))
}

func runScenario(t *testing.T, dir string) *verify.Report {
	t.Helper()
	return runOptions(t, scenarioOptions(t, dir))
}

// scenarioOptions are the verify options of a scenario directory's
// manifest (its anchors and HMAC key).
func scenarioOptions(t *testing.T, dir string) verify.Options {
	t.Helper()
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := verify.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey}
	opts.TrustRoots = evidencetest.Roots(t, m)
	opts.HMACKey = evidencetest.HMACKey(t, dir, m)
	return opts
}

// runOptions runs verify, and in long runs checks that its two
// cross-record paths agree.
func runOptions(t *testing.T, opts verify.Options) *verify.Report {
	t.Helper()
	rep, err := verify.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("verify.Run: %v", err)
	}
	// Every tampered store these tests build also checks that the
	// cross-record checks' two paths (per log position, and the general
	// fact list) agree finding for finding (a second verification: not in
	// -short runs).
	if testing.Short() {
		return rep
	}
	gen, err := verify.RunGeneral(context.Background(), opts)
	if err != nil {
		t.Fatalf("verify.RunGeneral: %v", err)
	}
	if !reflect.DeepEqual(rep.Findings, gen.Findings) {
		t.Errorf("the per-position and general cross-record checks disagree:\n%s", findingsDiff(rep.Findings, gen.Findings))
	}
	return rep
}

func findingsDiff(a, b []finding.Finding) string {
	var out strings.Builder
	for i := 0; i < max(len(a), len(b)); i++ {
		var fa, fb finding.Finding
		if i < len(a) {
			fa = a[i]
		}
		if i < len(b) {
			fb = b[i]
		}
		if !reflect.DeepEqual(fa, fb) {
			fmt.Fprintf(&out, "  %d: %s %q %q\n  %d: %s %q %q\n", i, fa.Code, fa.Subject, fa.Message, i, fb.Code, fb.Subject, fb.Message)
		}
	}
	return out.String()
}

// withDB opens the copy's snapshot read-write (never the pristine one).
func withDB(t *testing.T, dir string, f func(db *sql.DB)) {
	t.Helper()
	if strings.HasPrefix(dir, scenariocache.Dir(t, 1)) {
		t.Fatal("refusing to open the pristine scenario read-write")
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f(db)
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	res, err := db.Exec(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%s %v: %d rows changed, want 1", q, args, n)
	}
}

// places picks the first, middle and last of a table's keys in seq order.
func places(t *testing.T, db *sql.DB, table, key, where string) []string {
	t.Helper()
	q := fmt.Sprintf("SELECT %s FROM %s %s ORDER BY seq", key, table, where)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	if len(all) == 0 {
		t.Fatalf("%s: no rows", q)
	}
	var out []string
	for _, s := range []string{all[0], all[len(all)/2], all[len(all)-1]} {
		if len(out) == 0 || out[len(out)-1] != s {
			out = append(out, s)
		}
	}
	return out
}

// keysOf lists the rows of a pristine scenario so that subtests can be
// named after them.
func keysOf(t *testing.T, name, table, key, where string) []string {
	t.Helper()
	var out []string
	db, err := sql.Open("sqlite", "file:"+filepath.Join(pristine(t, name), evidence.SnapshotFile)+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out = places(t, db, table, key, where)
	return out
}

type codeSubject struct{ code, subject string }

// requireNewFinding demands a finding absent from the pristine scenario's
// report whose code is one of allowed (and, when subject is set, about it).
func requireNewFinding(t *testing.T, name string, rep *verify.Report, subject string, allowed ...string) {
	t.Helper()
	base := map[codeSubject]bool{}
	for _, f := range baseline(t, name).Findings {
		base[codeSubject{string(f.Code), f.Subject}] = true
	}
	ok := map[string]bool{}
	for _, c := range allowed {
		ok[c] = true
	}
	for _, f := range rep.Findings {
		if base[codeSubject{string(f.Code), f.Subject}] || !ok[string(f.Code)] {
			continue
		}
		if subject == "" || strings.Contains(f.Subject, subject) {
			return
		}
	}
	t.Fatalf("no new %v finding (subject %q); findings: %+v", allowed, subject, rep.Findings)
}

var (
	baseMu  sync.Mutex
	baseRep = map[string]*verify.Report{}
)

func baseline(t *testing.T, name string) *verify.Report {
	t.Helper()
	baseMu.Lock()
	defer baseMu.Unlock()
	if r, ok := baseRep[name]; ok {
		return r
	}
	r := runScenario(t, pristine(t, name))
	baseRep[name] = r
	return r
}

// Codes a corrupted signed record may legitimately produce.
var recordDamage = []string{"SIG_INVALID", "RECORD_MALFORMED", "RECORD_NOT_CANONICAL", "COLUMN_MISMATCH", "WRITER_UNREGISTERED",
	"KEY_OUTSIDE_VALIDITY", "RECORD_NOT_IN_LOG", "INCLUSION_FAILED", "LEAF_WITHOUT_RECORD", "REGISTRY_SIG_INVALID", "KEY_MALFORMED"}

// Codes a damaged log may legitimately produce.
var logDamage = []string{"TILE_MISMATCH", "LOG_UNREADABLE", "LEAF_MALFORMED", "INCLUSION_FAILED", "RECORD_NOT_IN_LOG", "LEAF_WITHOUT_RECORD", "CHECKPOINT_FORK"}

// signedFindings drops the coverage warnings, which name the tables no
// signature covers rather than anything wrong with a record.
func signedFindings(rep *verify.Report) []finding.Finding {
	var out []finding.Finding
	for _, f := range rep.Findings {
		if f.Family != finding.FamCoverage {
			out = append(out, f)
		}
	}
	return out
}

func TestPristineBaselines(t *testing.T) {
	t.Parallel()
	rep := baseline(t, "clean")
	if f := signedFindings(rep); len(f) != 0 {
		t.Fatalf("clean scenario has findings: %+v", f)
	}
	// The generator signs every table: nodes, queries, actions and gate
	// events by their principals, sessions inside their entries.
	if len(rep.Findings) != 0 || len(rep.Unsigned) != 0 {
		t.Fatalf("a fresh signed store has findings %+v, unsigned tables %v", rep.Findings, rep.Unsigned)
	}
	for _, c := range rep.Coverage {
		if c.Status != "signed" && c.Status != "empty" {
			t.Errorf("coverage of %s is %s (%d of %d rows)", c.Table, c.Status, c.Signed, c.Rows)
		}
	}
	if rep.HMACChecked {
		t.Error("no HMAC key given, yet the report says tags were checked")
	}
}

func TestMutateSignedRecordBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ table, key string }{{"entries", "eid"}, {"writes", "wid"}, {"principals", "rid"}} {
		for _, id := range keysOf(t, "clean", tc.table, tc.key, "") {
			for _, where := range []string{"first", "middle", "last"} {
				t.Run(fmt.Sprintf("%s/%s/%s-byte", tc.table, id, where), func(t *testing.T) {
					dir := mutableCopy(t, "clean")
					withDB(t, dir, func(db *sql.DB) {
						var raw []byte
						if err := db.QueryRow("SELECT record FROM "+tc.table+" WHERE "+tc.key+" = ?", id).Scan(&raw); err != nil {
							t.Fatal(err)
						}
						i := map[string]int{"first": 0, "middle": len(raw) / 2, "last": len(raw) - 1}[where]
						raw[i] ^= 0x01
						exec(t, db, "UPDATE "+tc.table+" SET record = ? WHERE "+tc.key+" = ?", raw, id)
					})
					requireNewFinding(t, "clean", runScenario(t, dir), "", recordDamage...)
				})
			}
		}
	}
}

func TestMutateEntryColumns(t *testing.T) {
	t.Parallel()
	edits := map[string]string{
		"content": "UPDATE entries SET content = content || ' (edited)' WHERE eid = ?",
		"writer":  "UPDATE entries SET writer = CASE writer WHEN 'user' THEN 'agent:planner' ELSE 'user' END WHERE eid = ?",
		"trust":   "UPDATE entries SET trust = (trust + 1) % 4 WHERE eid = ?",
		"ts":      "UPDATE entries SET ts = ts + 1 WHERE eid = ?",
	}
	for col, q := range edits {
		for _, eid := range keysOf(t, "clean", "entries", "eid", "") {
			t.Run(col+"/"+eid, func(t *testing.T) {
				dir := mutableCopy(t, "clean")
				withDB(t, dir, func(db *sql.DB) { exec(t, db, q, eid) })
				requireNewFinding(t, "clean", runScenario(t, dir), eid, "COLUMN_MISMATCH")
			})
		}
	}
	for _, wid := range keysOf(t, "clean", "writes", "wid", "") {
		t.Run("writes.weight/"+wid, func(t *testing.T) {
			dir := mutableCopy(t, "clean")
			withDB(t, dir, func(db *sql.DB) { exec(t, db, "UPDATE writes SET weight = weight * 60 + 1 WHERE wid = ?", wid) })
			requireNewFinding(t, "clean", runScenario(t, dir), wid, "COLUMN_MISMATCH")
		})
	}
}

func TestDeleteEntryRowLeavesOrphanLeaf(t *testing.T) {
	t.Parallel()
	for _, eid := range keysOf(t, "clean", "entries", "eid", "") {
		t.Run(eid, func(t *testing.T) {
			dir := mutableCopy(t, "clean")
			withDB(t, dir, func(db *sql.DB) { exec(t, db, "DELETE FROM entries WHERE eid = ?", eid) })
			rep := runScenario(t, dir)
			requireNewFinding(t, "clean", rep, "", "LEAF_WITHOUT_RECORD")
			for _, f := range rep.Findings {
				if f.Code == "LEAF_WITHOUT_RECORD" && !strings.Contains(f.Message, eid) {
					t.Errorf("LEAF_WITHOUT_RECORD names another record: %+v", f)
				}
			}
		})
	}
}

func TestDeletePrincipalRowUnregistersItsWriters(t *testing.T) {
	t.Parallel()
	// Principals that signed at least one record in the clean store.
	where := "WHERE principal IN (SELECT writer FROM entries UNION SELECT writer FROM writes)"
	for _, name := range keysOf(t, "clean", "principals", "principal", where) {
		t.Run(name, func(t *testing.T) {
			dir := mutableCopy(t, "clean")
			withDB(t, dir, func(db *sql.DB) { exec(t, db, "DELETE FROM principals WHERE principal = ?", name) })
			rep := runScenario(t, dir)
			requireNewFinding(t, "clean", rep, "", "WRITER_UNREGISTERED")
			requireNewFinding(t, "clean", rep, "", "LEAF_WITHOUT_RECORD")
			for _, f := range rep.Findings {
				if f.Code == "WRITER_UNREGISTERED" && !strings.Contains(f.Message, name+" ") {
					t.Errorf("WRITER_UNREGISTERED about another writer: %+v", f)
				}
			}
		})
	}
}

func TestChangeLeafIndex(t *testing.T) {
	t.Parallel()
	for _, eid := range keysOf(t, "clean", "entries", "eid", "") {
		for name, q := range map[string]string{
			"next":   "UPDATE entries SET leaf_index = (leaf_index + 1) % (SELECT count(*) FROM entries) WHERE eid = ?",
			"zero":   "UPDATE entries SET leaf_index = CASE leaf_index WHEN 0 THEN 1 ELSE 0 END WHERE eid = ?",
			"beyond": "UPDATE entries SET leaf_index = 1000000 WHERE eid = ?",
		} {
			t.Run(eid+"/"+name, func(t *testing.T) {
				dir := mutableCopy(t, "clean")
				withDB(t, dir, func(db *sql.DB) { exec(t, db, q, eid) })
				requireNewFinding(t, "clean", runScenario(t, dir), eid, "INCLUSION_FAILED")
			})
		}
	}
}

// logFile finds the single file below dir/log/tile/<sub>.
func logFile(t *testing.T, dir, sub string) string {
	t.Helper()
	var found []string
	filepath.WalkDir(filepath.Join(dir, evidence.LogDir, "tile", sub), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = append(found, p)
		}
		return nil
	})
	if len(found) == 0 {
		t.Fatalf("no file under tile/%s", sub)
	}
	return found[len(found)-1]
}

func TestDamageLogFiles(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"0", "entries"} {
		for _, where := range []string{"first", "middle", "last"} {
			t.Run("flip/"+sub+"/"+where, func(t *testing.T) {
				dir := mutableCopy(t, "clean")
				p := logFile(t, dir, sub)
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				i := map[string]int{"first": 0, "middle": len(b) / 2, "last": len(b) - 1}[where]
				b[i] ^= 0x01
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				requireNewFinding(t, "clean", runScenario(t, dir), "", logDamage...)
			})
		}
		for _, cut := range []int{1, 32, -1} {
			t.Run(fmt.Sprintf("truncate/%s/%d", sub, cut), func(t *testing.T) {
				dir := mutableCopy(t, "clean")
				p := logFile(t, dir, sub)
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				size := fi.Size() - int64(cut)
				if cut < 0 {
					size = fi.Size() / 2
				}
				if err := os.Truncate(p, size); err != nil {
					t.Fatal(err)
				}
				requireNewFinding(t, "clean", runScenario(t, dir), "", logDamage...)
			})
		}
	}
}

func TestCheckpointSignedByAnotherKey(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "clean")
	path := filepath.Join(dir, evidence.LogDir, "checkpoint")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := tlog.ParseCheckpoint(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Same origin, size and root: only the key differs.
	skey, _, err := note.GenerateKey(rand.NewChaCha8([32]byte{42}), cp.Origin)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := tlog.SignCheckpoint(signer, cp.Origin, cp.Size, cp.Root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	requireNewFinding(t, "clean", runScenario(t, dir), "", "CHECKPOINT_SIG_INVALID")
}

func TestDeleteTombstoneRow(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "tombstone")
	withDB(t, dir, func(db *sql.DB) { exec(t, db, "DELETE FROM tombstones WHERE seq = (SELECT min(seq) FROM tombstones)") })
	// The deleted entry's child now names a parent that is neither present
	// nor tombstoned.
	requireNewFinding(t, "tombstone", runScenario(t, dir), "", "PARENT_MISSING", "LEAF_WITHOUT_RECORD")
}

func TestGateEventAdvancesVersion(t *testing.T) {
	t.Parallel()
	for _, id := range keysOf(t, "lategate", "gate_events", "id", "WHERE verdict = 'reject' AND version_after = version_before") {
		t.Run(id, func(t *testing.T) {
			dir := mutableCopy(t, "lategate")
			withDB(t, dir, func(db *sql.DB) {
				exec(t, db, "UPDATE gate_events SET version_after = version_before + 1 WHERE id = ?", id)
			})
			requireNewFinding(t, "lategate", runScenario(t, dir), "gate "+id, "GATE_MATERIALISED")
		})
	}
	t.Run("accept-turned-reject", func(t *testing.T) {
		dir := mutableCopy(t, "lategate")
		withDB(t, dir, func(db *sql.DB) {
			exec(t, db, "UPDATE gate_events SET verdict = 'reject' WHERE seq = (SELECT min(seq) FROM gate_events WHERE verdict = 'accept')")
		})
		requireNewFinding(t, "lategate", runScenario(t, dir), "", "GATE_MATERIALISED")
	})
}

func TestClearHMACTag(t *testing.T) {
	t.Parallel()
	// Entries whose tags are valid (the scenario's session-6 tags are
	// already missing or wrong).
	for _, eid := range keysOf(t, "smsr", "entries", "eid", "WHERE hmac_tag IS NOT NULL AND session_id != 'session-6'") {
		for name, q := range map[string]string{
			"null":  "UPDATE entries SET hmac_tag = NULL WHERE eid = ?",
			"empty": "UPDATE entries SET hmac_tag = '' WHERE eid = ?",
			"flip":  "UPDATE entries SET hmac_tag = CASE substr(hmac_tag, 1, 1) WHEN '0' THEN '1' ELSE '0' END || substr(hmac_tag, 2) WHERE eid = ?",
		} {
			t.Run(eid+"/"+name, func(t *testing.T) {
				dir := mutableCopy(t, "smsr")
				withDB(t, dir, func(db *sql.DB) { exec(t, db, q, eid) })
				requireNewFinding(t, "smsr", runScenario(t, dir), eid, "HMAC_MISSING", "HMAC_WRONG")
			})
		}
	}
}

// The mutation helpers must never reach the pristine files: the pristine
// clean store still verifies after every other test.
func TestPristineUntouched(t *testing.T) {
	t.Parallel()
	if f := signedFindings(runScenario(t, pristine(t, "clean"))); len(f) != 0 {
		t.Fatalf("pristine clean store changed: %+v", f)
	}
}
