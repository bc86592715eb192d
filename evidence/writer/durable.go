package writer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// A long-running recorder (memscope record) writes the same store for
// days and must lose nothing it acknowledged when it is killed: it opens
// the snapshot Durable, commits after every group of records (Commit), and
// on restart reopens it (Resume) and re-appends to the log the leaves of
// rows that were committed to the snapshot but not yet to the log
// (PendingLeaves). The snapshot is therefore committed before the log:
// a row whose leaf is missing can be repaired, a leaf whose row is missing
// could not (the log is append-only).

// pragmas are the connection settings of a store being written. A durable
// store writes ahead (WAL) and syncs the WAL on every commit
// (synchronous=FULL): one append and one fsync per commit, where the
// rollback journal cost three syncs (journal, database, journal header)
// and a delete. SQLite's automatic checkpoint is off: it would run inside
// a COMMIT, on the writer's acknowledgement path; the owner calls
// FoldWAL between commits instead, and Close folds the WAL back into
// the file and returns it to rollback-journal mode, so a closed store is
// one self-contained file (the loader opens snapshots immutable and never
// reads a -wal).
//
// With DeferSync the commit only appends to the WAL (synchronous=NORMAL,
// with which SQLite keeps the WAL consistent: it syncs it before every
// checkpoint, and syncs the header of a restarted WAL unless synchronous
// is OFF: sqlite3WalFrames, SQLite ticket ff5be73dee, in modernc.org/sqlite
// v1.61.1's translation) and the owner makes it
// durable with SyncWAL, which may run while the next commits append: a
// group-committing owner then overlaps one group's sync with the next
// group's inserts and append instead of holding every caller behind it.
func pragmas(cfg Config) string {
	switch {
	case cfg.Durable && cfg.DeferSync:
		return "_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=wal_autocheckpoint(0)&_pragma=busy_timeout(5000)"
	case cfg.Durable:
		return "_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=wal_autocheckpoint(0)&_pragma=busy_timeout(5000)"
	}
	return "_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)"
}

// openDB opens the snapshot for writing, one connection.
func openDB(cfg Config) (*sql.DB, error) {
	abs, err := filepath.Abs(cfg.SnapshotPath)
	if err != nil {
		return nil, err
	}
	// A URL keeps '#' and '?' in the path from cutting the file name short.
	dsn := url.URL{Scheme: "file", Path: abs, RawQuery: pragmas(cfg)}
	db, err := sql.Open("sqlite", dsn.String())
	if err != nil {
		return nil, fmt.Errorf("writer: %s: %w", cfg.SnapshotPath, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

func newStore(cfg Config, db *sql.DB) *Store {
	return &Store{cfg: cfg, db: db, stmts: map[string]*sql.Stmt{}, seq: map[string]int64{},
		meta: map[string]string{}, metaSigned: map[string]string{}, metaRev: map[string]uint64{}}
}

// Commit makes every row written so far durable (with Config.Durable;
// with DeferSync too, once a SyncWAL that starts after it returns) and
// starts a new transaction.
func (s *Store) Commit() error {
	if err := s.tx.Commit(); err != nil {
		return fmt.Errorf("writer: %s: commit: %w", s.cfg.SnapshotPath, err)
	}
	s.pending = 0
	return s.begin()
}

// FoldWAL commits what is written so far and copies the WAL's
// committed pages into the snapshot file, so the WAL restarts from its
// beginning at the next commit instead of growing. It costs a database
// write and sync, so a durable writer calls it off its acknowledgement
// path: every few MB of WAL, and when it is idle. With truncate the WAL
// file is also cut to zero bytes, so a reader that opens the file
// immutable (every analysis does) finds nothing pending beside it; a
// reader holding an old state makes it stop short, never wait. A store
// not opened Durable has no WAL: it only commits.
func (s *Store) FoldWAL(truncate bool) error {
	if err := s.tx.Commit(); err != nil {
		return fmt.Errorf("writer: %s: commit: %w", s.cfg.SnapshotPath, err)
	}
	s.pending = 0
	if s.cfg.Durable {
		q := "PRAGMA wal_checkpoint(PASSIVE)"
		if truncate {
			// busy_timeout 0: a live reader makes the checkpoint stop
			// short (as a passive one) instead of holding the writer.
			q = "PRAGMA busy_timeout=0; PRAGMA wal_checkpoint(TRUNCATE); PRAGMA busy_timeout=5000"
		}
		if _, err := s.db.Exec(q); err != nil {
			return fmt.Errorf("writer: %s: checkpoint: %w", s.cfg.SnapshotPath, err)
		}
	}
	return s.begin()
}

// leaveWAL folds the WAL into the snapshot file and returns the file to
// rollback-journal mode (SQLite checkpoints and deletes the WAL when the
// mode changes), so what is left on disk is one file a reader opens
// immutable.
func (s *Store) leaveWAL() error {
	if !s.cfg.Durable {
		return nil
	}
	var mode string
	if err := s.db.QueryRow("PRAGMA journal_mode=DELETE").Scan(&mode); err != nil {
		return fmt.Errorf("writer: %s: leaving WAL mode: %w", s.cfg.SnapshotPath, err)
	}
	if mode != "delete" {
		return fmt.Errorf("writer: %s: leaving WAL mode: SQLite kept journal mode %q (another connection open?)", s.cfg.SnapshotPath, mode)
	}
	return nil
}

// QueryRow reads inside the writer's transaction (a resumed store looking
// up what it wrote earlier).
func (s *Store) QueryRow(query string, args ...any) *sql.Row { return s.tx.QueryRow(query, args...) }

// ResumeState is what the log sink knows on reopening: how many leaves the
// log holds and, optionally, the compact Merkle range over them (Root and
// Checkpoint need it; a resumed store without it can append but not sign
// checkpoints of its own).
type ResumeState struct {
	LogSize uint64
	Tree    *compact.Range
}

// recordTables are the tables whose rows carry a leaf_index.
var recordTables = []string{"principals", "entries", "nodes", "writes", "tombstones", "queries", "actions", "gate_events", "checkpoints", snapshot.VectorTable, "meta"}

// Resume reopens a store written by Create (cfg.SnapshotPath must exist)
// to append to it. The store's counters (row order, leaves, version, the
// operator's meta revisions) are read back from the snapshot. The log sink
// must already hold st.LogSize leaves; the caller re-appends
// PendingLeaves(st.LogSize) first when the snapshot is ahead of the log.
func Resume(cfg Config, st ResumeState) (*Store, error) {
	if _, err := os.Stat(cfg.SnapshotPath); err != nil {
		return nil, fmt.Errorf("writer: resume: %w", err)
	}
	db, err := openDB(cfg)
	if err != nil {
		return nil, err
	}
	s := newStore(cfg, db)
	if err := s.readCounters(st); err != nil {
		db.Close()
		return nil, err
	}
	if err := s.begin(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) readCounters(st ResumeState) error {
	maxLeaf := int64(-1)
	for _, t := range recordTables {
		var seq, leaf sql.NullInt64
		q := "SELECT MAX(seq), MAX(leaf_index) FROM " + t
		if t == "meta" {
			q = "SELECT NULL, MAX(leaf_index) FROM meta"
		}
		if err := s.db.QueryRow(q).Scan(&seq, &leaf); err != nil {
			if t == snapshot.VectorTable {
				continue // optional table
			}
			return fmt.Errorf("writer: resume %s: %w", t, err)
		}
		if seq.Valid {
			s.seq[t] = seq.Int64
		}
		if leaf.Valid && leaf.Int64 > maxLeaf {
			maxLeaf = leaf.Int64
		}
	}
	s.leaves = uint64(maxLeaf + 1)
	if s.leaves < st.LogSize {
		return fmt.Errorf("writer: resume %s: the log holds %d leaves but the snapshot names only %d: leaves without rows cannot be repaired", s.cfg.SnapshotPath, st.LogSize, s.leaves)
	}
	// The store starts where the log is; ReappendLeaf brings it up to the
	// snapshot's last leaf.
	s.leaves = st.LogSize
	s.tree = st.Tree
	if s.tree == nil {
		s.tree = factory.NewEmptyRange(st.LogSize)
	} else if s.tree.End() != st.LogSize {
		return fmt.Errorf("writer: resume %s: tree of %d leaves for a log of %d", s.cfg.SnapshotPath, s.tree.End(), st.LogSize)
	}
	// One version step per entry, write and tombstone; a tombstoned
	// entry's row is gone, so each tombstone stands for two steps.
	var n int64
	for t, steps := range map[string]int64{"entries": 1, "writes": 1, "tombstones": 2} {
		var c int64
		if err := s.db.QueryRow("SELECT COUNT(*) FROM " + t).Scan(&c); err != nil {
			return fmt.Errorf("writer: resume %s: %w", t, err)
		}
		n += steps * c
	}
	s.version = uint64(n)
	var now sql.NullInt64
	if err := s.db.QueryRow("SELECT MAX(ts) FROM (SELECT MAX(ts) AS ts FROM entries UNION ALL SELECT MAX(ts) FROM writes UNION ALL SELECT MAX(ts) FROM principals UNION ALL SELECT MAX(ts) FROM queries UNION ALL SELECT MAX(ts) FROM actions)").Scan(&now); err != nil {
		return fmt.Errorf("writer: resume clock: %w", err)
	}
	if now.Valid {
		s.now = uint64(now.Int64)
	}
	return s.readMeta()
}

// readMeta restores the meta values and, for those the operator signed,
// the revision and value last signed.
func (s *Store) readMeta() error {
	rows, err := s.db.Query("SELECT key, value, record FROM meta")
	if err != nil {
		return fmt.Errorf("writer: resume meta: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		var raw []byte
		if err := rows.Scan(&k, &v, &raw); err != nil {
			return fmt.Errorf("writer: resume meta: %w", err)
		}
		s.meta[k] = v
		if raw == nil {
			continue
		}
		c, err := record.DecodeConfig(raw)
		if err != nil {
			return fmt.Errorf("writer: resume meta %s: %w", k, err)
		}
		s.metaRev[k], s.metaSigned[k] = c.Rev, c.Value
	}
	return rows.Err()
}

// PendingLeaf is a leaf a snapshot row names that the log may not hold.
type PendingLeaf struct {
	Index uint64
	Leaf  []byte
}

// PendingLeaves returns, in index order, the leaves of every row whose
// leaf_index is at least from, rebuilt from the row's signed record
// exactly as the writer built them. They must be consecutive from from.
func (s *Store) PendingLeaves(from uint64) ([]PendingLeaf, error) {
	var out []PendingLeaf
	for _, t := range recordTables {
		cols := "record"
		if t == "meta" {
			cols = "record, key"
		}
		rows, err := s.tx.Query("SELECT leaf_index, "+cols+" FROM "+t+" WHERE leaf_index >= ?", int64(from))
		if err != nil {
			if t == snapshot.VectorTable {
				continue
			}
			return nil, fmt.Errorf("writer: pending leaves in %s: %w", t, err)
		}
		for rows.Next() {
			var idx int64
			var raw []byte
			var key string
			dest := []any{&idx, &raw}
			if t == "meta" {
				dest = append(dest, &key)
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, err
			}
			leaf, err := leafOfRow(t, raw)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("writer: pending leaf %d in %s: %w", idx, t, err)
			}
			out = append(out, PendingLeaf{Index: uint64(idx), Leaf: leaf})
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	for i, p := range out {
		if p.Index != from+uint64(i) {
			return nil, fmt.Errorf("writer: the snapshot's leaves after %d are not consecutive (leaf %d missing): cannot repair the log", from, from+uint64(i))
		}
	}
	return out, nil
}

// ReappendLeaf hands a pending leaf to the log sink and advances the
// store's tree, without touching the snapshot (its row exists already).
func (s *Store) ReappendLeaf(ctx context.Context, p PendingLeaf) error {
	idx, err := s.cfg.Log.Append(ctx, p.Leaf)
	if err != nil {
		return err
	}
	if idx != p.Index {
		return fmt.Errorf("writer: log assigned index %d to the pending leaf %d", idx, p.Index)
	}
	if s.tree.End() == p.Index {
		if err := s.tree.Append(rfc6962.DefaultHasher.HashLeaf(p.Leaf), nil); err != nil {
			return err
		}
	}
	if p.Index+1 > s.leaves {
		s.leaves = p.Index + 1
	}
	return nil
}

// leafOfRow rebuilds a row's log leaf from its signed record.
func leafOfRow(table string, raw []byte) ([]byte, error) {
	if raw == nil {
		return nil, errors.New("row has a leaf index but no record")
	}
	switch table {
	case "principals":
		ev, err := record.DecodePrincipalEvent(raw)
		if err != nil {
			return nil, err
		}
		return record.RecordLeaf(ev.RID, ev.Sig), nil
	case "entries":
		e, err := record.DecodeEntry(raw)
		if err != nil {
			return nil, err
		}
		return record.RecordLeaf(e.EID, e.Sig), nil
	case "writes":
		w, err := record.DecodeWrite(raw)
		if err != nil {
			return nil, err
		}
		return record.RecordLeaf(w.WID, w.Sig), nil
	case "tombstones":
		t, err := record.DecodeTombstone(raw)
		if err != nil {
			return nil, err
		}
		return record.TombstoneLeaf(t)
	case "nodes":
		n, err := record.DecodeNode(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindNode, record.EventID(record.KindNode, n.Name), n.Sig), nil
	case "queries":
		q, err := record.DecodeQuery(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindQuery, record.EventID(record.KindQuery, q.Name), q.Sig), nil
	case "actions":
		a, err := record.DecodeAction(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindAction, record.EventID(record.KindAction, a.Name), a.Sig), nil
	case "gate_events":
		g, err := record.DecodeGateEvent(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindGate, record.EventID(record.KindGate, g.Name), g.Sig), nil
	case "meta":
		c, err := record.DecodeConfig(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindConfig, record.ConfigID(c.Name, c.Rev), c.Sig), nil
	case "checkpoints":
		c, err := record.DecodeCheckpointSeen(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindCheckpoint, record.EventID(record.KindCheckpoint, c.Name), c.Sig), nil
	case snapshot.VectorTable:
		v, err := record.DecodeVector(raw)
		if err != nil {
			return nil, err
		}
		return record.EventLeaf(record.KindVector, record.EventID(record.KindVector, v.Name), v.Sig), nil
	}
	return nil, fmt.Errorf("unknown table %s", table)
}

// SyncWAL makes every commit that returned before it was called durable
// (Config.DeferSync): it syncs the WAL file's data, as SQLite's own
// commit would have. It is safe to call from several goroutines at once
// and while the writer commits. The WAL must exist (a commit made it).
func (s *Store) SyncWAL() error {
	f, err := s.walFile()
	if err != nil {
		return err
	}
	if err := syncData(f); err != nil {
		return fmt.Errorf("writer: %s: sync: %w", f.Name(), err)
	}
	return nil
}

// walFile is the open WAL, reopened should SQLite have replaced the file
// (it does not while the writer's connection is open, but a sync of a
// replaced file would sync nothing the commits wrote).
func (s *Store) walFile() (*os.File, error) {
	path := s.cfg.SnapshotPath + "-wal"
	now, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("writer: sync: %w", err)
	}
	s.walMu.Lock()
	defer s.walMu.Unlock()
	if s.wal != nil && os.SameFile(now, s.walInfo) {
		return s.wal, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("writer: sync: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("writer: sync: %w", err)
	}
	if s.wal != nil {
		s.wal.Close() // a sync still running on it finishes first (os.File)
	}
	s.wal, s.walInfo = f, fi
	return f, nil
}

// closeWAL closes the file SyncWAL opened, if any.
func (s *Store) closeWAL() {
	s.walMu.Lock()
	defer s.walMu.Unlock()
	if s.wal != nil {
		s.wal.Close()
		s.wal = nil
	}
}
