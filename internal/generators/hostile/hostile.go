// Package hostile generates adversarial evidence: copies of the project's
// generated scenarios, edited the way an attacker who controls the store
// and the log would edit them (views in place of tables, oversized cells,
// malformed rows, write-ahead logs, symlinked and special log files,
// checkpoint sizes no log holds, escape sequences in every echoed field,
// unsigned meta claims). It is for tests only: nothing on memscope's read
// path imports it.
package hostile

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario"
)

// Case is one adversarial store: a snapshot path and a log location, and
// what the case is about.
type Case struct {
	Name     string
	Snapshot string
	Log      string
	About    string
}

// Base scenarios every case is cut from.
var Base = []string{"clean", "structural-write", "tombstone", "channel-promotion", "tombstone-vouch"}

type edit struct {
	name, base, about string
	apply             func(snap, log string) (string, error) // may return a new snapshot path
}

func sqlEdit(stmts ...string) func(string, string) (string, error) {
	return func(snap, _ string) (string, error) {
		db, err := sql.Open("sqlite", "file:"+snap)
		if err != nil {
			return "", err
		}
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				return "", fmt.Errorf("%s: %w", q, err)
			}
		}
		return snap, nil
	}
}

const esc = "\x1b]0;owned\x07\x1b[31m\u202e"

// Edits lists every class of hostile input the suite covers.
var edits = []edit{
	{"view-entries-900MB", "clean", "entries is a VIEW returning 900 MB blobs from a small file", sqlEdit(
		"ALTER TABLE entries RENAME TO entries_real",
		"CREATE VIEW entries AS SELECT seq, eid, writer, trust, ts, zeroblob(900000000) AS content, session_id, hmac_tag, leaf_index, zeroblob(900000000) AS record FROM entries_real")},
	{"recursive-meta-view", "clean", "meta is a recursive view that never ends", sqlEdit(
		"ALTER TABLE meta RENAME TO meta_real",
		"CREATE VIEW meta AS WITH RECURSIVE r(key, value) AS (SELECT 'format', 'memscope-snapshot/1' UNION ALL SELECT key, value FROM r) SELECT key, value FROM r")},
	{"recursive-queries-view", "clean", "queries is a recursive view", sqlEdit(
		"ALTER TABLE queries RENAME TO queries_real",
		"CREATE VIEW queries AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT n AS seq, 'q' AS id, 't' AS text, 5 AS k, '{}' AS reset, NULL AS dense, NULL AS selected, 0 AS ts FROM r")},
	{"generated-column-trigger", "clean", "a generated 100 MB column and a trigger", sqlEdit(
		"ALTER TABLE actions ADD COLUMN big BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL",
		"CREATE TRIGGER t1 AFTER INSERT ON meta BEGIN DELETE FROM entries; END")},
	{"oversized-cell", "clean", "one signed record cell of 5 MB (limit 1 MiB)", sqlEdit(
		"UPDATE entries SET record = zeroblob(5000000) WHERE seq = (SELECT min(seq) FROM entries)")},
	{"bad-plain-rows", "structural-write", "one malformed action row, one query row with text in k, one node with NULL label", sqlEdit(
		"UPDATE actions SET params = '[' WHERE seq = (SELECT min(seq) FROM actions)",
		"UPDATE queries SET k = 'many' WHERE seq = (SELECT min(seq) FROM queries)")},
	{"escapes-everywhere", "structural-write", "terminal escapes and bidi controls in write ids, node labels, query text and action tools", sqlEdit(
		"UPDATE writes SET wid = wid || '"+esc+"'",
		"UPDATE nodes SET label = label || '"+esc+"'",
		"UPDATE queries SET text = text || '"+esc+"', id = id || '"+esc+"'",
		"UPDATE actions SET tool = tool || '"+esc+"', id = id || '"+esc+"'",
		"UPDATE entries SET content = content || '"+esc+"'")},
	{"unknown-reset-node", "structural-write", "a reset vector naming a node that does not exist", sqlEdit(
		`UPDATE queries SET reset = '{"no-such-node": 1}' WHERE seq = (SELECT min(seq) FROM queries)`)},
	{"duplicate-write-row", "structural-write", "a write row duplicated (UNIQUE dropped)", sqlEdit(
		"ALTER TABLE writes RENAME TO writes_old",
		"CREATE TABLE writes (seq INTEGER PRIMARY KEY, wid TEXT NOT NULL, kind TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, rel TEXT NOT NULL, weight REAL NOT NULL, writer TEXT NOT NULL, ts INTEGER NOT NULL, leaf_index INTEGER, record BLOB NOT NULL)",
		"INSERT INTO writes SELECT * FROM writes_old",
		"DROP TABLE writes_old",
		"INSERT INTO writes SELECT seq + 100000, wid, kind, src, dst, rel, weight, writer, ts, leaf_index, record FROM writes WHERE seq = (SELECT min(seq) FROM writes)")},
	{"meta-claims-import", "structural-write", "unsigned meta rows claim an import and declare every write authenticated", metaImport},
	{"revoke-row-first", "tombstone", "principal rows reordered in the unsigned seq column", sqlEdit(
		"UPDATE principals SET seq = -seq")},
	{"wal-pending", "clean", "a -wal file with a committed transaction beside the snapshot", walPending},
	{"journal", "clean", "a rollback journal beside the snapshot", func(snap, _ string) (string, error) {
		return snap, os.WriteFile(snap+"-journal", []byte("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7 journal"), 0o644)
	}},
	{"checkpoint-2^63", "clean", "the published checkpoint claims 2^63-1 leaves", func(_, log string) (string, error) {
		return "", editCheckpointSize(log, "9223372036854775807")
	}},
	{"checkpoint-10^12", "clean", "the published checkpoint claims 10^12 leaves", func(_, log string) (string, error) {
		return "", editCheckpointSize(log, "1000000000000")
	}},
	{"checkpoint-dev-zero", "clean", "the checkpoint is a symlink to /dev/zero", func(_, log string) (string, error) {
		cp := filepath.Join(log, "checkpoint")
		os.Remove(cp)
		return "", os.Symlink("/dev/zero", cp)
	}},
	{"checkpoint-fifo", "clean", "the checkpoint is a FIFO nobody writes", func(_, log string) (string, error) {
		cp := filepath.Join(log, "checkpoint")
		os.Remove(cp)
		return "", syscall.Mkfifo(cp, 0o600)
	}},
	{"bundle-outside", "clean", "an entry bundle symlinked outside the log directory", func(_, log string) (string, error) {
		b := filepath.Join(log, "tile", "entries", "000")
		if _, err := os.Stat(b); err != nil {
			matches, _ := filepath.Glob(filepath.Join(log, "tile", "entries", "000*", "*"))
			if len(matches) == 0 {
				return "", fmt.Errorf("no bundle in %s", log)
			}
			b = matches[0]
		}
		data, err := os.ReadFile(b)
		if err != nil {
			return "", err
		}
		outside := filepath.Join(filepath.Dir(filepath.Dir(log)), "outside-bundle")
		if err := os.WriteFile(outside, data, 0o644); err != nil {
			return "", err
		}
		os.Remove(b)
		return "", os.Symlink(outside, b)
	}},
	// A flipped hash in a stored hash tile over intact entry bundles: the
	// tile is TILE_MISMATCH, and records are proven from the bundles
	// (issue 23 item 5), not all failed.
	{"hash-tile-flipped", "clean", "one hash of the level-0 hash tile flipped", func(_, log string) (string, error) {
		return "", flipInFirst(filepath.Join(log, "tile", "0"), 5*32)
	}},
	// A flipped hash tile and a flipped bundle byte: the bundles no longer
	// reach the checkpoint root, so the tile cannot be repaired from them,
	// and the proofs through it fail: the log proves no record.
	{"tile-and-bundle-flipped", "clean", "one hash of the level-0 tile and one byte of a leaf in the entry bundle flipped", func(_, log string) (string, error) {
		if err := flipInFirst(filepath.Join(log, "tile", "0"), 5*32); err != nil {
			return "", err
		}
		return "", flipInFirst(filepath.Join(log, "tile", "entries"), 40)
	}},
	{"escape-file-name", "clean", "the snapshot's file name holds a terminal escape", func(snap, _ string) (string, error) {
		p := filepath.Join(filepath.Dir(snap), "snap"+"\x1b[2J\x1b]0;x\x07"+".db")
		return p, os.Rename(snap, p)
	}},
	{"not-sqlite", "clean", "the snapshot is random bytes", func(snap, _ string) (string, error) {
		return snap, os.WriteFile(snap, []byte(strings.Repeat("\x00\x1b[2J", 1000)), 0o644)
	}},
	{"snapshot-is-fifo", "clean", "the snapshot is a FIFO", func(snap, _ string) (string, error) {
		os.Remove(snap)
		return snap, syscall.Mkfifo(snap, 0o600)
	}},
	// Labels an adversary tries to earn (issue 23): the stores are signed
	// honestly; the attack is in what the records say.
	{"channel-promotion", "channel-promotion", "a principal's writes logged on the unauthenticated channel, then the principal re-registered on the authenticated one", unchanged},
	{"tombstone-vouch", "tombstone-vouch", "an agent's tombstone calls the External root it laundered a Trusted user entry; another misstates a record still in the store", unchanged},
	{"confusable-ids", "structural-write", "query ids and entity labels that differ only by a zero-width space or a Cyrillic look-alike, and ones that literally spell <U+200B>", sqlEdit(
		"UPDATE queries SET id = 'Acme' || char(8203) WHERE seq = (SELECT min(seq) FROM queries)",
		"UPDATE queries SET id = 'Acme<U+200B>' WHERE seq = (SELECT min(seq) + 1 FROM queries)",
		"UPDATE queries SET id = 'Acme' WHERE seq = (SELECT max(seq) FROM queries)",
		"UPDATE nodes SET label = 'Acme Holdings' || char(8203) WHERE seq = (SELECT min(seq) FROM nodes)",
		"UPDATE nodes SET label = 'Acme Holdings<U+200B>' WHERE seq = (SELECT min(seq) + 1 FROM nodes)",
		"UPDATE nodes SET label = char(1040) || 'cme Holdings' WHERE seq = (SELECT min(seq) + 2 FROM nodes)")},
	{"reset-maxfloat", "clean", "every reset mass of one query is 1.7e308 (the sum of finite masses overflows)", sqlEdit(
		"UPDATE queries SET reset = (SELECT json_group_object(key, 1.7e308) FROM json_each(queries.reset)) WHERE seq = (SELECT min(seq) FROM queries)")},
}

// unchanged leaves a case's base scenario as generated: the scenario is
// the adversarial evidence.
func unchanged(snap, _ string) (string, error) { return snap, nil }

func metaImport(snap, _ string) (string, error) {
	db, err := sql.Open("sqlite", "file:"+snap)
	if err != nil {
		return "", err
	}
	defer db.Close()
	rows, err := db.Query("SELECT wid FROM writes")
	if err != nil {
		return "", err
	}
	var parts []string
	for rows.Next() {
		var wid string
		rows.Scan(&wid)
		parts = append(parts, fmt.Sprintf("%q:\"authenticated\"", wid))
	}
	rows.Close()
	_, err = db.Exec("INSERT OR REPLACE INTO meta(key, value) VALUES('import', '{\"tool\":\"memscope import\"}'), ('declared_labels', ?)", "{"+strings.Join(parts, ",")+"}")
	return snap, err
}

// walPending leaves a committed transaction (every action deleted) in a
// -wal file beside the snapshot: the file is copied while a writer holds
// the WAL with automatic checkpoints off.
func walPending(snap, _ string) (string, error) {
	work := snap + ".work"
	b, err := os.ReadFile(snap)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(work, b, 0o644); err != nil {
		return "", err
	}
	defer os.Remove(work)
	defer os.Remove(work + "-wal")
	defer os.Remove(work + "-shm")
	db, err := sql.Open("sqlite", "file:"+work+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("DELETE FROM actions"); err != nil {
		return "", err
	}
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(work + suffix)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(snap+suffix, b, 0o644); err != nil {
			return "", err
		}
	}
	return snap, nil
}

func editCheckpointSize(log, size string) error {
	p := filepath.Join(log, "checkpoint")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	lines := strings.SplitN(string(b), "\n", 3)
	if len(lines) < 3 {
		return fmt.Errorf("%s: not a checkpoint", p)
	}
	lines[1] = size
	return os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
}

// Generate writes every case under dir (one directory per case, each a
// full copy of its base scenario) and returns them. names, when given,
// limits the cases.
func Generate(ctx context.Context, dir string, names ...string) ([]Case, error) {
	base := filepath.Join(dir, "base")
	if _, err := scenario.GenerateAll(ctx, base, Base, scenario.Options{Seed: 1}); err != nil {
		return nil, err
	}
	var out []Case
	for _, e := range edits {
		if len(names) > 0 && !contains(names, e.name) {
			continue
		}
		cdir := filepath.Join(dir, e.name)
		if err := evidencetest.CopyDir(filepath.Join(base, e.base), cdir); err != nil {
			return nil, err
		}
		m, err := evidence.ReadManifest(cdir)
		if err != nil {
			return nil, err
		}
		snap, log := filepath.Join(cdir, m.Snapshot), filepath.Join(cdir, m.Log)
		newSnap, err := e.apply(snap, log)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", e.name, err)
		}
		if newSnap != "" {
			snap = newSnap
		}
		out = append(out, Case{Name: e.name, Snapshot: snap, Log: log, About: e.about})
	}
	return out, nil
}

// Names lists every case.
func Names() []string {
	out := make([]string, len(edits))
	for i, e := range edits {
		out[i] = e.name
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// flipInFirst inverts the byte at offset of the first file under dir.
func flipInFirst(dir string, offset int) error {
	var first string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && first == "" {
			first = p
		}
		return err
	})
	if err != nil {
		return err
	}
	b, err := os.ReadFile(first)
	if err != nil {
		return err
	}
	if len(b) <= offset {
		return fmt.Errorf("%s: %d bytes, nothing at offset %d", first, len(b), offset)
	}
	b[offset] ^= 0xff
	return os.WriteFile(first, b, 0o644)
}
