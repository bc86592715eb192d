// Package writer produces memscope evidence: a SQLite snapshot of an agent's
// memory store and the Merkle log its records are appended to. It is the
// library a Go agent runtime would use to keep inspectable memory, and the
// scenario generator builds every fixture with it.
//
// The writer signs records, appends each record's leaf to the log in call
// order, keeps a compact Merkle range so it can sign a checkpoint at any
// moment, and writes the decoded convenience columns next to the signed
// bytes.
package writer

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence/snapshot"
)

// LogSink receives log leaves in order; the i-th call gets index i.
type LogSink interface {
	Append(ctx context.Context, leaf []byte) (uint64, error)
	// Close integrates every leaf and returns the log's published checkpoint.
	Close(ctx context.Context) ([]byte, error)
}

// Config describes a new store.
type Config struct {
	SnapshotPath string
	Log          LogSink
	LogSigner    note.Signer // signs the checkpoints the store records
	Origin       string      // checkpoint origin line
	LogVerifier  string      // note verifier key text, stored as an unanchored hint
	RootKeys     []ed25519.PublicKey
	Description  string
	HMACKey      []byte // when set, entries get SMSR-style tags
	// Durable makes every Commit survive a crash: SQLite writes ahead and
	// syncs the WAL on commit (durable.go); Close leaves one file. Without
	// it the snapshot is written as fast as possible and is only whole
	// once Close returns.
	Durable bool
	// DeferSync (with Durable) leaves the WAL's sync to the owner: a
	// Commit is durable once a SyncWAL called after it returns.
	DeferSync bool
	// Operator, when set, is the registered principal that signs the
	// store's own rows: its meta values, the checkpoints it saw and its
	// vector index (record.Config, CheckpointSeen, Vector). They are signed
	// when the store is closed or copied (Close, SnapshotTo), at the latest
	// time the store has seen, so the operator need only be registered by
	// then. Without it those tables are unsigned claims.
	Operator *Signer
}

// Store is an open store being written.
type Store struct {
	cfg   Config
	db    *sql.DB
	tx    *sql.Tx
	stmts map[string]*sql.Stmt // this transaction's inserts
	// prepared holds the inserts prepared on the connection itself, so a
	// store that commits often (a recorder, after every group) does not
	// prepare them again in every transaction.
	prepared map[string]*sql.Stmt
	pending  int
	seq      map[string]int64
	tree     *compact.Range
	leaves   uint64
	version  uint64
	// now is the latest record time the store has seen: the time of the
	// operator's records.
	now uint64
	// meta values as written, the value last signed for each key and its
	// revision; checkpoints and vectors not yet signed.
	meta map[string]string
	// The WAL file SyncWAL syncs (DeferSync), opened at the first sync.
	walMu      sync.Mutex
	wal        *os.File
	walInfo    os.FileInfo
	metaSigned map[string]string
	metaRev    map[string]uint64
	cpPending  []pendingCheckpoint
	vecPending []pendingVector
}

// saw advances the store's clock to ts.
func (s *Store) saw(ts uint64) {
	if ts > s.now {
		s.now = ts
	}
}

var factory = &compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// Create makes a new snapshot file (it must not exist) and starts writing.
func Create(cfg Config) (*Store, error) {
	if _, err := os.Stat(cfg.SnapshotPath); err == nil {
		return nil, fmt.Errorf("writer: %s already exists; evidence is never overwritten", cfg.SnapshotPath)
	}
	db, err := openDB(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(snapshot.Schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("writer: %s: create schema: %w", cfg.SnapshotPath, err)
	}
	s := newStore(cfg, db)
	s.tree = factory.NewEmptyRange(0)
	if err := s.begin(); err != nil {
		return nil, err
	}
	roots := ""
	for i, k := range cfg.RootKeys {
		if i > 0 {
			roots += ","
		}
		roots += fmt.Sprintf("%x", []byte(k))
	}
	// A fixed order keeps the file byte-for-byte reproducible.
	for _, kv := range [][2]string{
		{snapshot.MetaFormat, snapshot.FormatName},
		{snapshot.MetaOrigin, cfg.Origin},
		{snapshot.MetaLogKey, cfg.LogVerifier},
		{snapshot.MetaRootKeys, roots},
		{snapshot.MetaDescription, cfg.Description},
	} {
		if err := s.SetMeta(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

const inserts = `
principals|INSERT INTO principals(seq,rid,op,principal,channel,ts,leaf_index,record) VALUES(?,?,?,?,?,?,?,?)
entries|INSERT INTO entries(seq,eid,writer,trust,ts,content,session_id,hmac_tag,leaf_index,record) VALUES(?,?,?,?,?,?,?,?,?,?)
nodes|INSERT INTO nodes(seq,id,kind,label,eid,leaf_index,record) VALUES(?,?,?,?,?,?,?)
writes|INSERT INTO writes(seq,wid,kind,src,dst,rel,weight,writer,ts,leaf_index,record) VALUES(?,?,?,?,?,?,?,?,?,?,?)
tombstones|INSERT INTO tombstones(seq,target,leaf_index,record) VALUES(?,?,?,?)
queries|INSERT INTO queries(seq,id,text,k,reset,dense,selected,ts,leaf_index,record) VALUES(?,?,?,?,?,?,?,?,?,?)
actions|INSERT INTO actions(seq,id,tool,params,justification,dispatched,ts,query,sources,leaf_index,record) VALUES(?,?,?,?,?,?,?,?,?,?,?)
gate_events|INSERT INTO gate_events(seq,id,candidate_eid,candidate_hash,verdict,reason,version_before,version_after,ts,leaf_index,record) VALUES(?,?,?,?,?,?,?,?,?,?,?)
checkpoints|INSERT INTO checkpoints(seq,seen_at,note) VALUES(?,?,?)
vectors|INSERT INTO vectors(seq,eid,content_hash,dim,vec,leaf_index,record) VALUES(?,?,?,?,?,?,?)
meta|INSERT OR REPLACE INTO meta(key,value,leaf_index,record) VALUES(?,?,?,?)
import_notes|INSERT INTO import_notes(seq,wid,input_id,declared,leaf_index,record) VALUES(?,?,?,?,?,?)
`

var insertSQL = func() map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(inserts), "\n") {
		table, q, _ := strings.Cut(line, "|")
		m[table] = q
	}
	return m
}()

func (s *Store) begin() error {
	// The one connection is free only between transactions: the inserts
	// used so far are prepared on it here, and each transaction takes
	// them with tx.Stmt, which reuses a statement already prepared on
	// its connection.
	for table := range s.stmts {
		if _, ok := s.prepared[table]; !ok {
			st, err := s.db.Prepare(insertSQL[table])
			if err != nil {
				return fmt.Errorf("writer: prepare %s: %w", table, err)
			}
			if s.prepared == nil {
				s.prepared = map[string]*sql.Stmt{}
			}
			s.prepared[table] = st
		}
	}
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("writer: %s: %w", s.cfg.SnapshotPath, err)
	}
	s.tx = tx
	s.stmts = map[string]*sql.Stmt{}
	return nil
}

// exec runs one prepared insert, committing every few thousand rows so that
// a million-entry store is written in bounded memory.
func (s *Store) exec(table string, args ...any) error {
	st, ok := s.stmts[table]
	if !ok {
		if p, ok := s.prepared[table]; ok {
			st = s.tx.Stmt(p)
		} else {
			var err error
			if st, err = s.tx.Prepare(insertSQL[table]); err != nil {
				return fmt.Errorf("writer: prepare %s: %w", table, err)
			}
		}
		s.stmts[table] = st
	}
	if _, err := st.Exec(args...); err != nil {
		return fmt.Errorf("writer: %s: insert into %s: %w", s.cfg.SnapshotPath, table, err)
	}
	s.pending++
	if s.pending >= 20000 {
		s.pending = 0
		if err := s.tx.Commit(); err != nil {
			return fmt.Errorf("writer: %s: commit: %w", s.cfg.SnapshotPath, err)
		}
		return s.begin()
	}
	return nil
}

func (s *Store) nextSeq(table string) int64 {
	s.seq[table]++
	return s.seq[table]
}

// AppendLeaf appends one leaf to the log and returns its index. It is
// exported for tools that must place leaves the record API would not (for
// example the scenario generator's tampered stores).
func (s *Store) AppendLeaf(ctx context.Context, leaf []byte) (uint64, error) {
	idx, err := s.cfg.Log.Append(ctx, leaf)
	if err != nil {
		return 0, fmt.Errorf("writer: log append at index %d: %w", s.leaves, err)
	}
	if idx != s.leaves {
		return 0, fmt.Errorf("writer: log assigned index %d, want %d: leaves must be appended in order", idx, s.leaves)
	}
	if err := s.tree.Append(rfc6962.DefaultHasher.HashLeaf(leaf), nil); err != nil {
		return 0, err
	}
	s.leaves++
	return s.leaves - 1, nil
}

// LogSize is the number of leaves appended so far.
func (s *Store) LogSize() uint64 { return s.leaves }

// Root is the RFC 6962 root of the leaves appended so far.
func (s *Store) Root() []byte {
	r, _ := s.tree.GetRootHash(nil)
	if r == nil {
		return rfc6962.DefaultHasher.EmptyRoot()
	}
	return r
}

// Close commits the snapshot and closes the log, returning the log's
// published checkpoint.
func (s *Store) Close(ctx context.Context) ([]byte, error) {
	if err := s.SetMeta(snapshot.MetaStoreVersion, strconv.FormatUint(s.version, 10)); err != nil {
		return nil, err
	}
	if err := s.signOperatorRows(ctx); err != nil {
		return nil, err
	}
	if err := s.tx.Commit(); err != nil {
		return nil, fmt.Errorf("writer: %s: commit: %w", s.cfg.SnapshotPath, err)
	}
	// The log closes with leaves of this commit: it must be durable even
	// should leaveWAL stop short of its checkpoint.
	if s.cfg.Durable && s.cfg.DeferSync {
		if err := s.SyncWAL(); err != nil {
			return nil, err
		}
	}
	defer s.closeWAL()
	// A WAL still beside the file (another process reading it held it
	// open) keeps every committed row: the error says so, after the log
	// is closed as usual.
	walErr := s.leaveWAL()
	if err := s.db.Close(); err != nil {
		return nil, err
	}
	cp, err := s.cfg.Log.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("writer: close log: %w", err)
	}
	return cp, walErr
}

// SnapshotTo commits what is written so far and copies the store, as it
// stands now, into a new file at path (it must not exist): a snapshot of
// one moment, for stores taken in phases. Writing then continues.
func (s *Store) SnapshotTo(path string) error { return s.SnapshotToContext(context.Background(), path) }

// SnapshotToContext is SnapshotTo; ctx bounds the log appends of the
// operator's records.
func (s *Store) SnapshotToContext(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("writer: %s already exists; evidence is never overwritten", path)
	}
	if err := s.SetMeta(snapshot.MetaStoreVersion, strconv.FormatUint(s.version, 10)); err != nil {
		return err
	}
	if err := s.signOperatorRows(ctx); err != nil {
		return err
	}
	if err := s.tx.Commit(); err != nil {
		return fmt.Errorf("writer: %s: commit: %w", s.cfg.SnapshotPath, err)
	}
	s.pending = 0
	if _, err := s.db.Exec("VACUUM INTO ?", path); err != nil {
		return fmt.Errorf("writer: copy %s to %s: %w", s.cfg.SnapshotPath, path, err)
	}
	return s.begin()
}

// Exec runs a statement inside the writer's transaction. It exists for the
// scenario generator's forged stores and is never needed by an agent runtime.
func (s *Store) Exec(query string, args ...any) error {
	_, err := s.tx.Exec(query, args...)
	return err
}

func nullIndex(i *uint64) any {
	if i == nil {
		return nil
	}
	return int64(*i)
}

func nullBlob(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
