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
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/analyses/smsr"
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
	// Durable makes every Commit survive a crash: SQLite keeps a rollback
	// journal and syncs on commit (durable.go). Without it the snapshot is
	// written as fast as possible and is only whole once Close returns.
	Durable bool
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
	cfg     Config
	db      *sql.DB
	tx      *sql.Tx
	stmts   map[string]*sql.Stmt
	pending int
	seq     map[string]int64
	tree    *compact.Range
	leaves  uint64
	version uint64
	// now is the latest record time the store has seen: the time of the
	// operator's records.
	now uint64
	// meta values as written, the value last signed for each key and its
	// revision; checkpoints and vectors not yet signed.
	meta       map[string]string
	metaSigned map[string]string
	metaRev    map[string]uint64
	cpPending  []pendingCheckpoint
	vecPending []pendingVector
}

type pendingCheckpoint struct {
	seq    int64
	seenAt int64
	note   []byte
}

type pendingVector struct {
	seq         int64
	eid         record.ID
	contentHash [32]byte
	dim         int
	vecHash     [32]byte
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
	abs, err := filepath.Abs(cfg.SnapshotPath)
	if err != nil {
		return nil, err
	}
	// A URL keeps '#' and '?' in the path from cutting the file name short.
	dsn := url.URL{Scheme: "file", Path: abs, RawQuery: pragmas(cfg.Durable)}
	db, err := sql.Open("sqlite", dsn.String())
	if err != nil {
		return nil, fmt.Errorf("writer: %s: %w", cfg.SnapshotPath, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(snapshot.Schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("writer: %s: create schema: %w", cfg.SnapshotPath, err)
	}
	s := &Store{cfg: cfg, db: db, stmts: map[string]*sql.Stmt{}, seq: map[string]int64{}, tree: factory.NewEmptyRange(0),
		meta: map[string]string{}, metaSigned: map[string]string{}, metaRev: map[string]uint64{}}
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
		q := insertSQL[table]
		var err error
		if st, err = s.tx.Prepare(q); err != nil {
			return fmt.Errorf("writer: prepare %s: %w", table, err)
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

// SetMeta writes one meta key. With an operator the value is signed when
// the store is closed or copied; until then the row is unsigned.
func (s *Store) SetMeta(key, value string) error {
	if _, signed := s.metaRev[key]; signed && s.metaSigned[key] == value && s.meta[key] == value {
		// The row already holds this value, signed: rewriting it would
		// drop its record (a resumed store closing without a change).
		return nil
	}
	s.meta[key] = value
	return s.exec("meta", key, value, nil, nil)
}

// signOperatorRows signs, as the operator, every meta value not signed at
// its current value, every checkpoint and every vector not yet signed,
// logs them and fills in their rows' leaf_index and record.
func (s *Store) signOperatorRows(ctx context.Context) error {
	op := s.cfg.Operator
	if op == nil {
		return nil
	}
	kid := record.KeyIDOf(op.Key.Public().(ed25519.PublicKey))
	nonce := func(kind, name string, rev uint64) [16]byte {
		h := sha256.New()
		h.Write(op.Nonce[:])
		fmt.Fprintf(h, "%s\x00%s\x00%d", kind, name, rev)
		var n [16]byte
		copy(n[:], h.Sum(nil))
		return n
	}
	sign := func(rec any, sig func() []byte, kind string, id record.ID) ([]byte, uint64, error) {
		if err := record.Sign(rec, op.Key); err != nil {
			return nil, 0, err
		}
		raw, err := record.Encode(rec)
		if err != nil {
			return nil, 0, err
		}
		idx, err := s.AppendLeaf(ctx, record.EventLeaf(kind, id, sig()))
		return raw, idx, err
	}
	keys := make([]string, 0, len(s.meta))
	for k := range s.meta {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := s.meta[k]
		if _, ok := s.metaRev[k]; ok && s.metaSigned[k] == v {
			continue
		}
		rev := s.metaRev[k] + 1
		c := &record.Config{V: record.FormatVersion, Kind: record.KindConfig, Name: k, Rev: rev, Value: v, Writer: op.Principal, KID: kid, TS: s.now, Nonce: nonce(record.KindConfig, k, rev)}
		raw, idx, err := sign(c, func() []byte { return c.Sig }, record.KindConfig, record.ConfigID(k, rev))
		if err != nil {
			return err
		}
		if err := s.exec("meta", k, v, int64(idx), raw); err != nil {
			return err
		}
		s.metaRev[k], s.metaSigned[k] = rev, v
	}
	for _, p := range s.cpPending {
		name := strconv.FormatInt(p.seq, 10)
		c := &record.CheckpointSeen{V: record.FormatVersion, Kind: record.KindCheckpoint, Name: name, NoteHash: sha256.Sum256(p.note), SeenAt: uint64(p.seenAt),
			Writer: op.Principal, KID: kid, TS: s.now, Nonce: nonce(record.KindCheckpoint, name, 0)}
		raw, idx, err := sign(c, func() []byte { return c.Sig }, record.KindCheckpoint, record.EventID(record.KindCheckpoint, name))
		if err != nil {
			return err
		}
		if _, err := s.tx.Exec("UPDATE checkpoints SET leaf_index = ?, record = ? WHERE seq = ?", int64(idx), raw, p.seq); err != nil {
			return fmt.Errorf("writer: sign checkpoint %d: %w", p.seq, err)
		}
	}
	s.cpPending = nil
	for _, p := range s.vecPending {
		name := strconv.FormatInt(p.seq, 10)
		vr := &record.Vector{V: record.FormatVersion, Kind: record.KindVector, Name: name, EID: p.eid, ContentHash: p.contentHash, Dim: uint(p.dim), VecHash: p.vecHash,
			Writer: op.Principal, KID: kid, TS: s.now, Nonce: nonce(record.KindVector, name, 0)}
		raw, idx, err := sign(vr, func() []byte { return vr.Sig }, record.KindVector, record.EventID(record.KindVector, name))
		if err != nil {
			return err
		}
		if _, err := s.tx.Exec("UPDATE vectors SET leaf_index = ?, record = ? WHERE seq = ?", int64(idx), raw, p.seq); err != nil {
			return fmt.Errorf("writer: sign vector %d: %w", p.seq, err)
		}
	}
	s.vecPending = nil
	return nil
}

// Register appends a signed principal-registry event.
func (s *Store) Register(ctx context.Context, ev *record.PrincipalEvent, root ed25519.PrivateKey) error {
	ev.V, ev.Kind = record.FormatVersion, record.KindPrincipal
	copy(ev.Root[:], root.Public().(ed25519.PublicKey))
	if err := record.Sign(ev, root); err != nil {
		return err
	}
	raw, err := record.Encode(ev)
	if err != nil {
		return err
	}
	idx, err := s.AppendLeaf(ctx, record.RecordLeaf(ev.RID, ev.Sig))
	if err != nil {
		return err
	}
	s.saw(ev.TS)
	return s.InsertPrincipalRow(ev, raw, &idx)
}

// InsertPrincipalRow stores a registry event row as given (low level).
func (s *Store) InsertPrincipalRow(ev *record.PrincipalEvent, raw []byte, leaf *uint64) error {
	return s.exec("principals", s.nextSeq("principals"), ev.RID.String(), ev.Op, ev.Principal, ev.Channel, int64(ev.TS), nullIndex(leaf), raw)
}

// EntryOptions carries the per-entry values that are not part of the signed
// record.
type EntryOptions struct {
	SessionID string
	// NoTag leaves the HMAC tag empty even when the store has an HMAC key.
	NoTag bool
}

// AddEntry signs an entry with the writer principal's key, appends its leaf
// and stores it. The entry's V, Kind and KID are filled in.
func (s *Store) AddEntry(ctx context.Context, e *record.Entry, key ed25519.PrivateKey, opt EntryOptions) error {
	sess := opt.SessionID
	e.Session = &sess
	raw, err := SignEntry(e, key)
	if err != nil {
		return err
	}
	return s.AddSignedEntry(ctx, e, raw, opt)
}

// SignEntry fills in an entry's V, Kind, KID and signature with the writer
// principal's key and returns its encoding. It touches no store, so a bulk
// writer can sign on every core and add the entries in order with
// AddSignedEntry; the result is the same as AddEntry's.
func SignEntry(e *record.Entry, key ed25519.PrivateKey) ([]byte, error) {
	e.V, e.Kind = record.FormatVersion, record.KindEntry
	e.KID = record.KeyIDOf(key.Public().(ed25519.PublicKey))
	if e.Parents == nil {
		e.Parents = []record.ID{}
	}
	if e.Weights == nil {
		e.Weights = []float64{}
	}
	// The session is signed with the entry ("" for none), so that the
	// session_id column is evidence rather than a claim: the caller sets
	// e.Session to the session AddSignedEntry will store.
	if e.Session == nil {
		none := ""
		e.Session = &none
	}
	if err := record.Sign(e, key); err != nil {
		return nil, err
	}
	return record.Encode(e)
}

// AddSignedEntry appends the leaf of an entry SignEntry prepared (raw is
// what it returned) and stores the entry.
func (s *Store) AddSignedEntry(ctx context.Context, e *record.Entry, raw []byte, opt EntryOptions) error {
	idx, err := s.AppendLeaf(ctx, record.RecordLeaf(e.EID, e.Sig))
	if err != nil {
		return err
	}
	tag := ""
	if s.cfg.HMACKey != nil && !opt.NoTag {
		tag = smsr.Tag(s.cfg.HMACKey, e.Content, opt.SessionID, int64(e.TS))
	}
	s.version++
	s.saw(e.TS)
	return s.InsertEntryRow(EntryRow{Entry: e, Raw: raw, SessionID: opt.SessionID, HMACTag: tag, Leaf: &idx})
}

// EntryRow is one row of the entries table. The decoded columns normally
// come from Entry; the scenario generator overrides them to forge evidence.
type EntryRow struct {
	Entry     *record.Entry
	Raw       []byte
	SessionID string
	HMACTag   string
	Leaf      *uint64
	// Column overrides (nil: take the value from Entry).
	Writer  *string
	Trust   *int
	Content *string
}

// InsertEntryRow stores an entries row as given (low level).
func (s *Store) InsertEntryRow(r EntryRow) error {
	writer, trust, content := r.Entry.Writer, int(r.Entry.Trust), r.Entry.Content
	if r.Writer != nil {
		writer = *r.Writer
	}
	if r.Trust != nil {
		trust = *r.Trust
	}
	if r.Content != nil {
		content = *r.Content
	}
	return s.exec("entries", s.nextSeq("entries"), r.Entry.EID.String(), writer, trust, int64(r.Entry.TS), content,
		nullString(r.SessionID), nullString(r.HMACTag), nullIndex(r.Leaf), r.Raw)
}

// AddWrite signs a structural write, appends its leaf and stores it.
func (s *Store) AddWrite(ctx context.Context, w *record.Write, key ed25519.PrivateKey) error {
	w.V = record.FormatVersion
	if w.Kind == "" {
		w.Kind = record.KindEdge
	}
	w.KID = record.KeyIDOf(key.Public().(ed25519.PublicKey))
	if w.Sources == nil {
		w.Sources = []record.ID{}
	}
	if err := record.Sign(w, key); err != nil {
		return err
	}
	raw, err := record.Encode(w)
	if err != nil {
		return err
	}
	idx, err := s.AppendLeaf(ctx, record.RecordLeaf(w.WID, w.Sig))
	if err != nil {
		return err
	}
	s.version++
	s.saw(w.TS)
	return s.InsertWriteRow(w, raw, &idx)
}

// InsertWriteRow stores a writes row as given (low level).
func (s *Store) InsertWriteRow(w *record.Write, raw []byte, leaf *uint64) error {
	return s.exec("writes", s.nextSeq("writes"), w.WID.String(), w.Kind, w.Src, w.Dst, w.Rel, w.Weight, w.Writer, int64(w.TS), nullIndex(leaf), raw)
}

// Delete tombstones an entry: the signed tombstone goes to the log and the
// tombstones table, and the entry's row leaves the store. The entry's own
// leaf stays in the log, still provable.
//
// Unless the caller filled them, the tombstone carries what lineage needs
// of the deleted entry (writer, trust, parents, weights), read from its
// signed record, so the entries derived from it keep their ancestor.
func (s *Store) Delete(ctx context.Context, t *record.Tombstone, key ed25519.PrivateKey) error {
	if t.EntryWriter == "" {
		var raw []byte
		if err := s.tx.QueryRow("SELECT record FROM entries WHERE eid = ?", t.Target.String()).Scan(&raw); err == nil {
			if e, err := record.DecodeEntry(raw); err == nil {
				tr := e.Trust
				t.EntryWriter, t.EntryTrust, t.EntryParents, t.EntryWeights = e.Writer, &tr, e.Parents, e.Weights
			}
		}
	}
	if err := s.AddTombstone(ctx, t, key); err != nil {
		return err
	}
	if _, err := s.tx.Exec("DELETE FROM entries WHERE eid = ?", t.Target.String()); err != nil {
		return fmt.Errorf("writer: delete entry %s: %w", t.Target, err)
	}
	return nil
}

// AddTombstone logs and stores a tombstone without removing the entry row
// (Delete does both; a tombstone alone leaves a tombstoned record live).
func (s *Store) AddTombstone(ctx context.Context, t *record.Tombstone, key ed25519.PrivateKey) error {
	t.V, t.Kind = record.FormatVersion, record.KindTombstone
	t.KID = record.KeyIDOf(key.Public().(ed25519.PublicKey))
	if err := record.Sign(t, key); err != nil {
		return err
	}
	raw, err := record.Encode(t)
	if err != nil {
		return err
	}
	leaf, err := record.TombstoneLeaf(t)
	if err != nil {
		return err
	}
	idx, err := s.AppendLeaf(ctx, leaf)
	if err != nil {
		return err
	}
	s.version++
	s.saw(t.TS)
	return s.InsertTombstoneRow(t, raw, &idx)
}

// Node is a vertex of the graph memory. Vertices carry no authority of their
// own: every vertex stays in G_auth, and a passage names the entry it shows.
type Node struct {
	ID    string
	Kind  string // snapshot.NodePassage or snapshot.NodeEntity
	Label string
	EID   *record.ID
	// TS is when the node was declared; only a signed declaration
	// (DeclareNode) carries it.
	TS int64
}

// AddNode stores a graph vertex as an unsigned row (imports of stores that
// sign nothing); an agent runtime declares nodes with DeclareNode.
func (s *Store) AddNode(n Node) error { return s.insertNode(n, nil, nil) }

func (s *Store) insertNode(n Node, leaf *uint64, raw []byte) error {
	var eid any
	if n.EID != nil {
		eid = n.EID.String()
	}
	return s.exec("nodes", s.nextSeq("nodes"), n.ID, n.Kind, n.Label, eid, nullIndex(leaf), nullBlob(raw))
}

// Signer is who signs an event record: the principal that produced it, its
// key, and the record's nonce (the record's time is the event's own).
type Signer struct {
	Principal string
	Key       ed25519.PrivateKey
	Nonce     [16]byte
}

// signEvent fills in the signer's fields of an event record (through the
// setters), signs it, appends its kind-tagged leaf and returns the encoding
// and leaf index.
func (s *Store) signEvent(ctx context.Context, kind, name string, rec any, sg Signer, set func(record.KeyID)) ([]byte, *uint64, error) {
	set(record.KeyIDOf(sg.Key.Public().(ed25519.PublicKey)))
	if err := record.Sign(rec, sg.Key); err != nil {
		return nil, nil, err
	}
	raw, err := record.Encode(rec)
	if err != nil {
		return nil, nil, err
	}
	if ts, ok := eventTS(rec); ok {
		s.saw(ts)
	}
	sig := reflectSig(rec)
	idx, err := s.AppendLeaf(ctx, record.EventLeaf(kind, record.EventID(kind, name), sig))
	if err != nil {
		return nil, nil, err
	}
	return raw, &idx, nil
}

// DeclareNode signs a graph vertex's declaration (by the writer of the
// passage's entry, or of the write that introduced the entity), logs it and
// stores its row.
func (s *Store) DeclareNode(ctx context.Context, n Node, sg Signer) error {
	rec := &record.Node{V: record.FormatVersion, Kind: record.KindNode, Name: n.ID, NodeKind: n.Kind, Label: n.Label, EID: n.EID,
		Writer: sg.Principal, TS: uint64(n.TS), Nonce: sg.Nonce}
	raw, idx, err := s.signEvent(ctx, record.KindNode, n.ID, rec, sg, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return err
	}
	return s.insertNode(n, idx, raw)
}

// Query is a retrieval the agent ran, with the reset vector its selector used.
type Query struct {
	ID    string
	Text  string
	K     int
	Reset map[string]float64 // node id -> reset mass
	// Dense holds per-passage dense retrieval scores, for replaying with a
	// selector that does not walk the graph.
	Dense    map[string]float64
	Selected []string // the selection the agent saw, if recorded
	TS       int64
}

// AddQuery stores a query as an unsigned row (imports); an agent runtime
// records queries with RecordQuery.
func (s *Store) AddQuery(q Query) error { return s.insertQuery(q, nil, nil) }

// RecordQuery signs a query as the principal that ran it (the record's
// time is q.TS), logs it and stores its row.
func (s *Store) RecordQuery(ctx context.Context, q Query, sg Signer) error {
	if q.Reset == nil {
		q.Reset = map[string]float64{}
	}
	if q.K < 0 {
		return fmt.Errorf("writer: query %s: k %d is negative", q.ID, q.K)
	}
	rec := &record.Query{V: record.FormatVersion, Kind: record.KindQuery, Name: q.ID, Text: q.Text, K: uint(q.K), Reset: q.Reset,
		Dense: q.Dense, Selected: q.Selected, Writer: sg.Principal, TS: uint64(q.TS), Nonce: sg.Nonce}
	raw, idx, err := s.signEvent(ctx, record.KindQuery, q.ID, rec, sg, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return err
	}
	return s.insertQuery(q, idx, raw)
}

func (s *Store) insertQuery(q Query, leaf *uint64, raw []byte) error {
	reset, err := json.Marshal(q.Reset)
	if err != nil {
		return err
	}
	var dense, sel any
	if q.Dense != nil {
		b, _ := json.Marshal(q.Dense)
		dense = string(b)
	}
	if q.Selected != nil {
		b, _ := json.Marshal(q.Selected)
		sel = string(b)
	}
	return s.exec("queries", s.nextSeq("queries"), q.ID, q.Text, q.K, string(reset), dense, sel, q.TS, nullIndex(leaf), nullBlob(raw))
}

// Action is a tool call the agent made, with the entries that justified it.
type Action struct {
	ID            string
	Tool          string
	Params        map[string]string
	Justification []record.ID
	Dispatched    bool
	TS            int64
	// Query is the query whose selection the action followed ("": none).
	Query string
	// Sources says, per parameter, which entries its value came from
	// (From) and which other entries offered a value for it (Alt): what
	// MemLineage's parameter-level gate needs. nil: not recorded.
	Sources map[string]ParamSources
}

// ParamSources are the entries behind one action parameter.
type ParamSources struct {
	From []record.ID
	Alt  []record.ID
}

// AddAction stores an action as an unsigned row (imports); an agent runtime
// records actions with RecordAction.
func (s *Store) AddAction(a Action) error { return s.insertAction(a, nil, nil) }

// RecordAction signs an action as the agent that made it (the record's
// time is a.TS), logs it and stores its row.
func (s *Store) RecordAction(ctx context.Context, a Action, sg Signer) error {
	if a.Params == nil {
		a.Params = map[string]string{}
	}
	if a.Justification == nil {
		a.Justification = []record.ID{}
	}
	rec := &record.Action{V: record.FormatVersion, Kind: record.KindAction, Name: a.ID, Tool: a.Tool, Params: a.Params,
		Justification: a.Justification, Query: a.Query, Dispatched: a.Dispatched, Writer: sg.Principal, TS: uint64(a.TS), Nonce: sg.Nonce}
	if a.Sources != nil {
		rec.Sources = map[string]record.ParamSources{}
		for p, ps := range a.Sources {
			rec.Sources[p] = record.ParamSources{From: nonNilIDs(ps.From), Alt: nonNilIDs(ps.Alt)}
		}
	}
	raw, idx, err := s.signEvent(ctx, record.KindAction, a.ID, rec, sg, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return err
	}
	return s.insertAction(a, idx, raw)
}

func nonNilIDs(ids []record.ID) []record.ID {
	if ids == nil {
		return []record.ID{}
	}
	return ids
}

func (s *Store) insertAction(a Action, leaf *uint64, raw []byte) error {
	params, _ := json.Marshal(a.Params)
	just, _ := json.Marshal(idStrings(a.Justification))
	var query, sources any
	if a.Query != "" {
		query = a.Query
	}
	if a.Sources != nil {
		m := map[string]map[string][]string{}
		for p, ps := range a.Sources {
			m[p] = map[string][]string{"from": idStrings(ps.From), "alt": idStrings(ps.Alt)}
		}
		b, _ := json.Marshal(m)
		sources = string(b)
	}
	return s.exec("actions", s.nextSeq("actions"), a.ID, a.Tool, string(params), string(just), boolInt(a.Dispatched), a.TS, query, sources, nullIndex(leaf), nullBlob(raw))
}

func idStrings(ids []record.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}

// GateEvent is one decision of a commit gate over a candidate write.
type GateEvent struct {
	ID            string
	CandidateEID  record.ID
	CandidateHash [32]byte // SHA-256 of the candidate record's encoding
	Verdict       string   // snapshot.GateAccept or snapshot.GateReject
	Reason        string
	VersionBefore uint64
	VersionAfter  uint64
	TS            int64
}

// AddGateEvent stores a commit-gate decision as an unsigned row (imports);
// a gate records its decisions with RecordGateEvent.
func (s *Store) AddGateEvent(g GateEvent) error { return s.insertGateEvent(g, nil, nil) }

// RecordGateEvent signs a commit-gate decision as the gate's principal (the
// record's time is g.TS), logs it and stores its row.
func (s *Store) RecordGateEvent(ctx context.Context, g GateEvent, sg Signer) error {
	rec := &record.GateEvent{V: record.FormatVersion, Kind: record.KindGate, Name: g.ID, Candidate: g.CandidateEID, CandidateHash: g.CandidateHash,
		Verdict: g.Verdict, Reason: g.Reason, VersionBefore: g.VersionBefore, VersionAfter: g.VersionAfter, Writer: sg.Principal, TS: uint64(g.TS), Nonce: sg.Nonce}
	raw, idx, err := s.signEvent(ctx, record.KindGate, g.ID, rec, sg, func(k record.KeyID) { rec.KID = k })
	if err != nil {
		return err
	}
	return s.insertGateEvent(g, idx, raw)
}

func (s *Store) insertGateEvent(g GateEvent, leaf *uint64, raw []byte) error {
	return s.exec("gate_events", s.nextSeq("gate_events"), g.ID, g.CandidateEID.String(), fmt.Sprintf("%x", g.CandidateHash[:]),
		g.Verdict, g.Reason, int64(g.VersionBefore), int64(g.VersionAfter), g.TS, nullIndex(leaf), nullBlob(raw))
}

// AddVector records a vector index entry for the memory eid whose signed
// bytes hash to contentHash. The first call creates the optional vector
// table (snapshot.VectorSchema): a store that never indexes vectors has
// none, which readers tell apart from an empty index.
func (s *Store) AddVector(eid record.ID, contentHash [32]byte, vec []float32) error {
	if len(vec) == 0 {
		return fmt.Errorf("writer: vector for %s is empty", eid)
	}
	if s.seq[snapshot.VectorTable] == 0 {
		if _, err := s.tx.Exec(snapshot.VectorSchema); err != nil {
			return fmt.Errorf("writer: %s: create vector table: %w", s.cfg.SnapshotPath, err)
		}
	}
	b := make([]byte, 4*len(vec))
	for i, x := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	seq := s.nextSeq(snapshot.VectorTable)
	if s.cfg.Operator != nil {
		s.vecPending = append(s.vecPending, pendingVector{seq: seq, eid: eid, contentHash: contentHash, dim: len(vec), vecHash: sha256.Sum256(b)})
	}
	return s.exec(snapshot.VectorTable, seq, eid.String(), fmt.Sprintf("%x", contentHash[:]), len(vec), b, nil, nil)
}

// Version is the store's version counter: one step per accepted write.
func (s *Store) Version() uint64 { return s.version }

// BumpVersion advances the version without a write (a write-first gate that
// rolled back still advanced it).
func (s *Store) BumpVersion() { s.version++ }

// CandidateHash is the hash a gate event records for a candidate record.
func CandidateHash(raw []byte) [32]byte { return sha256.Sum256(raw) }

// Checkpoint signs a checkpoint of the log as it is now and records it as
// seen by the store at seenAt.
func (s *Store) Checkpoint(seenAt int64) ([]byte, error) {
	cp, err := tlog.SignCheckpoint(s.cfg.LogSigner, s.cfg.Origin, s.leaves, s.Root())
	if err != nil {
		return nil, err
	}
	return cp, s.RecordCheckpoint(seenAt, cp)
}

// RecordCheckpoint stores a checkpoint note as seen by the store (low
// level). With an operator, the sighting is signed when the store is
// closed or copied.
func (s *Store) RecordCheckpoint(seenAt int64, note []byte) error {
	seq := s.nextSeq("checkpoints")
	if seenAt > 0 {
		s.saw(uint64(seenAt))
	}
	if s.cfg.Operator != nil {
		s.cpPending = append(s.cpPending, pendingCheckpoint{seq: seq, seenAt: seenAt, note: append([]byte(nil), note...)})
	}
	return s.exec("checkpoints", seq, seenAt, string(note), nil, nil)
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
	if err := s.db.Close(); err != nil {
		return nil, err
	}
	cp, err := s.cfg.Log.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("writer: close log: %w", err)
	}
	return cp, nil
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

// eventTS reads an event record's time.
func eventTS(rec any) (uint64, bool) {
	switch r := rec.(type) {
	case *record.Query:
		return r.TS, true
	case *record.Action:
		return r.TS, true
	case *record.GateEvent:
		return r.TS, true
	case *record.Node:
		return r.TS, true
	}
	return 0, false
}

// reflectSig reads the Sig field record.Sign filled in.
func reflectSig(rec any) []byte {
	switch r := rec.(type) {
	case *record.Query:
		return r.Sig
	case *record.Action:
		return r.Sig
	case *record.GateEvent:
		return r.Sig
	case *record.Node:
		return r.Sig
	}
	return nil
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

// InsertTombstoneRow stores a tombstones row as given (low level).
func (s *Store) InsertTombstoneRow(t *record.Tombstone, raw []byte, leaf *uint64) error {
	return s.exec("tombstones", s.nextSeq("tombstones"), t.Target.String(), nullIndex(leaf), raw)
}
