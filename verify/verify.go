// Package verify checks memscope evidence for integrity: signatures against
// the principal registry, canonical encoding, decoded columns against signed
// bytes, every record's inclusion in the Merkle log, the log against its
// checkpoints, tombstones, SMSR HMAC tags and commit-gate non-formation.
// It is pure analysis: it reads through the loader and tlog and prints
// nothing. Its findings are package finding's.
package verify

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/memscope/memscope/internal/present/textscan"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/bigslice"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// Options says what to verify and against which anchors.
type Options struct {
	Snapshot string
	Log      string // directory or http(s) URL
	// LogKey is the log's note verifier key, supplied by the user. Empty
	// means unanchored: the checkpoint is parsed but proves nothing.
	LogKey string
	// TrustRoots are the registry root public keys supplied by the user.
	// Empty means unanchored: the roots named in the snapshot are used and
	// reported as such.
	TrustRoots []ed25519.PublicKey
	HMACKey    []byte
	// LogOptions bound the log reads (HTTP time limits, redirects).
	LogOptions tlog.Options
	// Workers bounds parallel signature checking (0: GOMAXPROCS).
	Workers int
	// Progress, when set, is called from one goroutine with the number of
	// records checked so far and the total.
	Progress func(done, total int)
	// OnEntry, when set, sees every entry row as verification reads it:
	// decoded (r.Entry or r.DecodeErr set), in stored order, on the one
	// reading goroutine, before the row is checked. A caller that needs the
	// rows as well (the inspector's load) then reads and decodes each row
	// once instead of twice. It must not modify r; an error stops the run
	// and is returned.
	OnEntry func(r *loader.EntryRow) error
}

// Families are verify's finding families in the order summaries list them;
// Report.Families has a count for each.
var Families = []finding.Family{finding.FamSignatures, finding.FamRegistry, finding.FamEncoding, finding.FamLog,
	finding.FamTombstones, finding.FamHMAC, finding.FamGate, finding.FamReferences, finding.FamCoverage, finding.FamOrder, finding.FamSnapshot}

// Anchors says whether each trust anchor came from the user.
type Anchors struct {
	LogKey   string `json:"log_key"`  // "pinned" or "unanchored"
	Registry string `json:"registry"` // "pinned" or "unanchored"
}

// EntryStatus is the verification outcome of one entry, for views that show
// a status column; entries absent from Report.EntryStatus passed.
type EntryStatus struct {
	Codes []finding.Code
}

// Report is the result of a verification run.
type Report struct {
	Snapshot    string            `json:"snapshot"`
	Log         string            `json:"log"`
	TreeSize    uint64            `json:"tree_size"`
	RootHash    []byte            `json:"root_hash"` // base64 in JSON, as in the checkpoint
	Records     int               `json:"records"`
	Entries     int               `json:"entries"`
	Edges       int               `json:"edges"`
	Principals  int               `json:"principals"`
	Tombstones  int               `json:"tombstones"`
	Checkpoints int               `json:"checkpoints"`
	Anchors     Anchors           `json:"anchors"`
	Findings    []finding.Finding `json:"findings"`
	OK          bool              `json:"ok"`
	// Families counts findings per family, every family present.
	Families map[finding.Family]int `json:"families"`
	// EntryStatus lists the entries with at least one finding.
	EntryStatus map[string]EntryStatus `json:"-"`
	// WriteStatus lists the finding codes of structural writes that have any.
	WriteStatus map[string][]finding.Code `json:"-"`
	// Principals' channels as registered (principal -> channel), and the
	// writers whose keys verified: replay's write-provenance labels use them.
	Channels map[string]string `json:"-"`
	// Registrations are the applied registry events in log order, for
	// the channel a record had when it was logged (ChannelAt).
	Registrations []Registration `json:"-"`
	// BadRecords lists record ids (entries and writes) whose signature or
	// registration failed.
	BadRecords map[string]bool `json:"-"`
	// BadEvents lists the signed event rows (subject "query NAME",
	// "action NAME", "gate NAME", "node NAME") that failed a check: record
	// decoding, a column against the record, the signer, or log inclusion.
	BadEvents map[string]bool `json:"-"`
	// CheckpointVerdicts has one verdict per recorded checkpoint, in
	// snapshot order (empty when the checkpoints table is unreadable).
	CheckpointVerdicts []CheckpointVerdict `json:"-"`
	// InclusionFailures names the first inclusion failure of each entry
	// whose leaf is missing or whose proof fails (see Entry).
	InclusionFailures map[string]finding.Code `json:"-"`
	// LogChecked is set when the log and its published checkpoint were
	// read, so that inclusion was checked for every record.
	LogChecked bool `json:"-"`
	// HMACChecked is false when no HMAC key was given: tags were not
	// checked, which is not a pass.
	HMACChecked bool `json:"hmac_checked"`
	// Coverage says, per table (and per unsigned column of a signed
	// table), how many rows a signature or tag covers.
	Coverage []TableCoverage `json:"coverage"`
	// Partial is set on a Provenance report: only the registry, the
	// writes' signatures and the entries given to CheckEntry were checked,
	// and there are no findings. It is never a verification.
	Partial bool `json:"-"`
	// Unsigned names the tables (and columns) with rows no signature or tag
	// covers.
	Unsigned []string `json:"unsigned"`
	// SignedRows lists, for a partially covered table, the row ids a
	// signature or tag covers (see Covered); fully signed and unsigned
	// tables need no list.
	SignedRows map[string]map[string]bool `json:"-"`
	// Config holds the meta values whose signed configuration record
	// passed every check (decoding, column against record, signer and
	// authority, log inclusion, latest revision). Analyses that let a
	// meta value decide anything read it from here; a value only in the
	// snapshot's meta table is an unsigned claim.
	Config map[string]string `json:"-"`
}

// TableCoverage is how many rows of one table a signature or tag covers.
// Status is "signed" (every row), "partial", "unsigned" (none) or "empty".
type TableCoverage struct {
	Table  string `json:"table"`
	Rows   int    `json:"rows"`
	Signed int    `json:"signed"`
	By     string `json:"by"` // what covers the rows
	Status string `json:"status"`
}

// key is one registered principal key with its validity window.
type key struct {
	principal string
	pub       ed25519.PublicKey
	ed        *edKey // pub decoded once (nil: use pub)
	channel   string
	from      uint64
	until     uint64 // 0: not revoked
}

type verifier struct {
	text *textscan.Scanner // evidence text that would act on a terminal or hide text
	// ctx is Run's: the per-record helpers (inLog's proofs read tiles)
	// must stop on Ctrl-C like the loops that call them.
	ctx      context.Context
	opts     Options
	snap     *loader.Snapshot
	log      *tlog.Reader
	rep      *Report
	mu       sync.Mutex
	findings []ordered
	keys     map[record.KeyID][]*key

	// log state
	size       uint64
	root       []byte
	logOK      bool
	leafByID   leafTable // record leaves, sorted by id once the log is read
	tombLeaves map[record.ID]uint64
	seenLeaf   leafBits // leaves a row claimed

	entryIDs *entrySet // every entry id of the snapshot
	// parentsLater holds the parent references the entries pass could not
	// answer while rows were still arriving (see entries).
	parentsLater []parentLater
	// arena holds Run's per-leaf arrays outside the heap (freed when Run
	// returns); nil: the heap (the provenance pass keeps its verifier).
	arena *bigslice.Arena
	// pf, tombs and seenCheckpoints feed crossChecks (tamper.go); facts
	// is filled only when pf cannot hold a store's facts (general).
	pf              posFacts
	facts           factStore
	generalOnly     bool // tests: always take the general path
	tombs           []tombFact
	seenCheckpoints []seenCheckpoint
	tombLeafData    map[record.ID][]byte // ts: leaf bytes after the prefix
	gateRows        int                  // gate_events rows, malformed ones included
	tombstoned      map[record.ID]bool

	// event leaves: how many, and the kind of each by leaf index (for
	// orphan messages); gate events as gate() read them.
	eventLeaves   int
	eventLeafKind map[uint64]string
	gateEvents    []loader.GateEvent
	gateErr       error
	// entries whose record signs their session, and those whose session
	// column is set but whose record predates signed sessions.
	sessionUnsigned []string
	signing         bool // the store signs its event tables (signsEvents)
	// the operator's checkpoint sightings (read with the checkpoints), and
	// the log ids of meta revisions a later one superseded.
	cpRecords  []*loader.RowRecord
	superseded map[record.ID]bool
}

// ordered keeps findings in a stable order: by phase, then row, then code.
// rowsAfterEntries orders the text of node and query rows after every
// entry's (entries are ordered by seq) for textscan.
const rowsAfterEntries = 1 << 62

type ordered struct {
	phase int
	seq   int64
	f     finding.Finding
}

func (v *verifier) add(phase int, seq int64, code finding.Code, subject, msg string) {
	f := finding.New(code, subject, msg)
	v.mu.Lock()
	v.findings = append(v.findings, ordered{phase, seq, f})
	v.mu.Unlock()
}

// Run verifies a snapshot and its log. The error is for failures to run at
// all (unreadable snapshot, unusable key); everything wrong with the
// evidence itself is a finding.
func Run(ctx context.Context, opts Options) (*Report, error) {
	rep, _, err := run(ctx, opts, false)
	return rep, err
}

// run is Run; general forces the cross-record checks' general path (tests
// compare it with the per-position one), and tookGeneral says which path
// ran.
func run(ctx context.Context, opts Options, general bool) (rep *Report, tookGeneral bool, err error) {
	v, logVerifier, err := openVerifier(ctx, opts)
	if err != nil {
		return nil, false, err
	}
	defer func() { tookGeneral = v.pf.general || !v.logOK }()
	defer v.snap.Close()
	v.arena = &bigslice.Arena{}
	defer v.arena.Free()
	if v.opts.LogOptions.TileCache == 0 {
		// Records arrive in about log order, so inclusion needs the tiles
		// around the current leaf, not the default 33 MB of them.
		v.opts.LogOptions.TileCache = verifyTileCache
	}
	v.generalOnly = general
	snap := v.snap
	for i, p := range snap.Problems() {
		v.add(phaseSnapshot, int64(i), p.Kind, p.Object, p.Message)
	}
	if err := v.openLog(ctx, logVerifier); err != nil {
		return nil, false, err
	}
	if err := v.registry(ctx); err != nil {
		return nil, false, err
	}
	if err := v.tombstones(ctx); err != nil {
		return nil, false, err
	}
	if err := v.entries(ctx); err != nil {
		return nil, false, err
	}
	if err := v.writes(ctx); err != nil {
		return nil, false, err
	}
	if err := v.checkpoints(ctx, logVerifier); err != nil {
		return nil, false, err
	}
	if err := v.gate(ctx); err != nil {
		return nil, false, err
	}
	if err := v.plainRows(ctx); err != nil {
		return nil, false, err
	}
	// After every table has claimed its leaves (event rows in plainRows).
	v.orphanLeaves()
	if err := v.crossChecks(ctx); err != nil {
		return nil, false, err
	}
	return v.finish(), false, nil
}

// openVerifier opens the snapshot and parses the log key (the caller
// closes v.snap).
func openVerifier(ctx context.Context, opts Options) (*verifier, note.Verifier, error) {
	snap, err := loader.OpenContext(ctx, opts.Snapshot)
	if err != nil {
		return nil, nil, err
	}
	var logVerifier note.Verifier
	if opts.LogKey != "" {
		if logVerifier, err = note.NewVerifier(opts.LogKey); err != nil {
			snap.Close()
			return nil, nil, fmt.Errorf("--log-key: not a note verifier key: %v", err)
		}
	}
	return newVerifier(ctx, opts, snap, logVerifier), logVerifier, nil
}

func newVerifier(ctx context.Context, opts Options, snap *loader.Snapshot, logVerifier note.Verifier) *verifier {
	v := &verifier{ctx: ctx, opts: opts, snap: snap, keys: map[record.KeyID][]*key{}, text: textscan.New(filepath.Base(opts.Snapshot)),
		tombLeaves: map[record.ID]uint64{}, tombLeafData: map[record.ID][]byte{}, tombstoned: map[record.ID]bool{}, eventLeafKind: map[uint64]string{},
		rep: &Report{Snapshot: opts.Snapshot, Log: opts.Log, EntryStatus: map[string]EntryStatus{}, InclusionFailures: map[string]finding.Code{}, WriteStatus: map[string][]finding.Code{},
			Channels: map[string]string{}, BadRecords: map[string]bool{}, BadEvents: map[string]bool{}}}
	v.rep.Anchors = Anchors{LogKey: "unanchored", Registry: "unanchored"}
	v.rep.HMACChecked = opts.HMACKey != nil
	if logVerifier != nil {
		v.rep.Anchors.LogKey = "pinned"
	}
	if len(opts.TrustRoots) > 0 {
		v.rep.Anchors.Registry = "pinned"
	}
	return v
}

// verifyTileCache is the tile cache of Run's log reader (about 4 MB).
const verifyTileCache = 256

const (
	phaseSnapshot = iota
	phaseLog
	phaseRegistry
	phaseTombstones
	phaseEntries
	phaseWrites
	phaseOrphans
	phaseCheckpoints
	phaseGate
	phaseRows
	phaseCross
	phaseContent // TEXT_CONTROL_CHARS, TEXT_HIDDEN_CHARS (textscan)
)

func (v *verifier) openLog(ctx context.Context, lv note.Verifier) error {
	return v.readLog(ctx, lv, true, nil)
}

// readLog reads the published checkpoint and the leaves. With check, the
// tiles are checked against the checkpoint (Run always does). keep, when
// set, limits the leaf table to the record ids it accepts (the provenance
// pass needs only the registry's); tombstone leaves are always kept.
func (v *verifier) readLog(ctx context.Context, lv note.Verifier, check bool, keep func(record.ID) bool) error {
	r, err := tlog.OpenWith(ctx, v.opts.Log, v.opts.LogOptions)
	if err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", err.Error())
		return nil
	}
	v.log = r
	raw, err := r.Checkpoint(ctx)
	if err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "checkpoint", err.Error())
		return nil
	}
	var verifiers []note.Verifier
	if lv != nil {
		verifiers = append(verifiers, lv)
	}
	cp, err := tlog.ParseCheckpoint(raw, verifiers...)
	if err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "checkpoint", "published checkpoint: "+err.Error())
		return nil
	}
	switch cp.Status {
	case tlog.SigInvalid:
		v.add(phaseLog, 0, finding.CheckpointSigInvalid, "checkpoint (published)", "the published checkpoint's signature does not verify under the pinned log key")
	case tlog.Unanchored:
		if lv != nil {
			v.add(phaseLog, 0, finding.CheckpointSigInvalid, "checkpoint (published)", "the published checkpoint carries no signature by the pinned log key")
		} else {
			v.add(phaseLog, 0, finding.CheckpointUnanchored, "checkpoint (published)", "no --log-key given: the checkpoint's signature was not checked against a key you trust")
		}
	}
	if want := v.snap.Meta[snapshot.MetaOrigin]; want != "" && cp.Origin != want {
		v.add(phaseLog, 0, finding.CheckpointSigInvalid, "checkpoint (published)", fmt.Sprintf("checkpoint origin %q differs from the store's log origin %q", cp.Origin, want))
	}
	v.size, v.root = cp.Size, cp.Root
	v.rep.TreeSize, v.rep.RootHash = cp.Size, cp.Root
	// The size is the checkpoint's claim: prove the leaves exist before
	// anything is sized by it.
	if err := r.Present(ctx, cp.Size); err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", err.Error())
		return nil
	}
	// The tree check (Check recomputes it from every leaf) runs beside the
	// leaf scan below, on the other core. Its outcome is reported as if it
	// had run first: when it cannot read the log, nothing the scan read
	// counts.
	type checked struct {
		problems []tlog.Problem
		err      error
	}
	var chk chan checked
	if check {
		chk = make(chan checked, 1)
		go func() {
			p, err := r.Check(ctx, cp.Size, cp.Root)
			chk <- checked{p, err}
		}()
	}
	finishCheck := func() bool {
		if chk == nil {
			return true
		}
		c := <-chk
		chk = nil
		if c.err != nil {
			v.add(phaseLog, 0, finding.LogUnreadable, "log", c.err.Error())
			return false
		}
		for _, p := range c.problems {
			v.add(phaseLog, int64(p.Index), finding.TileMismatch, p.Resource, p.String())
		}
		return true
	}
	defer finishCheck() // an early return still waits for the check
	if cp.Size > math.MaxUint32 {
		if finishCheck() {
			v.add(phaseLog, 0, finding.LogUnreadable, "log", fmt.Sprintf("the log claims %d leaves: verify holds at most %d", cp.Size, uint64(math.MaxUint32)))
		}
		return nil
	}
	if keep == nil {
		// Sized once and kept outside the heap (bigslice): growing a
		// 10M-leaf table by appends would hold the old and the new array
		// at once, and on the heap the collector lets as much garbage pile
		// up again.
		v.seenLeaf = bigslice.Make[uint64](v.arena, int(cp.Size+63)/64)
		v.leafByID = bigslice.Make[leafRef](v.arena, int(cp.Size))[:0]
		v.pf.alloc(v.arena, int(cp.Size))
	}
	type malformed struct {
		index uint64
		msg   string
	}
	var bad []malformed
	var leafErr error
	for leaf, err := range r.Leaves(ctx, 0, cp.Size) {
		if err != nil {
			leafErr = err
			break
		}
		pl, perr := record.ParseLeaf(leaf.Data)
		switch {
		case perr != nil:
			bad = append(bad, malformed{leaf.Index, perr.Error()})
		case pl.Kind == record.LeafTombstone:
			v.tombLeaves[pl.ID] = leaf.Index
			v.tombLeafData[pl.ID] = leaf.Data[len(record.TombstonePrefix):]
		case pl.Kind == record.LeafEvent:
			v.eventLeaves++
			v.eventLeafKind[leaf.Index] = pl.EventKind
			if keep == nil || keep(pl.ID) {
				v.leafByID = append(v.leafByID, leafRef{pl.ID, uint32(leaf.Index)})
			}
		case keep == nil || keep(pl.ID):
			v.leafByID = append(v.leafByID, leafRef{pl.ID, uint32(leaf.Index)})
		}
	}
	if !finishCheck() {
		v.seenLeaf, v.leafByID, v.pf = nil, nil, posFacts{}
		v.tombLeaves, v.tombLeafData, v.eventLeaves, v.eventLeafKind = map[record.ID]uint64{}, map[record.ID][]byte{}, 0, map[uint64]string{}
		return nil
	}
	for _, b := range bad {
		v.add(phaseLog, int64(b.index), finding.LeafMalformed, leafSubject(b.index), b.msg)
	}
	if leafErr != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", leafErr.Error())
		return nil
	}
	v.leafByID.sort()
	v.logOK = true
	v.rep.LogChecked = true
	return nil
}

func shortHash(h []byte) string {
	if len(h) < 6 {
		return hex.EncodeToString(h)
	}
	return hex.EncodeToString(h[:6]) + "…"
}

func leafSubject(i uint64) string { return "leaf " + strconv.FormatUint(i, 10) }

// inLog checks that a record's leaf is in the log at the index the snapshot
// names, and that the leaf's inclusion proof verifies against the root.
func (v *verifier) inLog(phase int, seq int64, id record.ID, subject string, leaf []byte, rowIndex int64) (failed []finding.Code) {
	// A provenance pass proves no inclusion: no label reads it.
	if !v.logOK || v.rep.Partial {
		return nil
	}
	idx, ok := v.leafByID.lookup(id)
	return v.inLogAt(phase, seq, id, subject, leaf, rowIndex, idx, ok)
}

// inLogAt is inLog for a record whose leaf lookup (idx, ok) is done.
func (v *verifier) inLogAt(phase int, seq int64, id record.ID, subject string, leaf []byte, rowIndex int64, idx uint64, ok bool) (failed []finding.Code) {
	if !v.logOK || v.rep.Partial {
		return nil
	}
	fail := func(code finding.Code, msg string) {
		v.add(phase, seq, code, subject, msg)
		failed = append(failed, code)
	}
	if !ok {
		fail(finding.RecordNotInLog, "no log leaf carries this record's id")
		return
	}
	v.mu.Lock()
	v.seenLeaf.set(idx)
	v.mu.Unlock()
	if rowIndex >= 0 && uint64(rowIndex) != idx {
		fail(finding.InclusionFailed, fmt.Sprintf("the snapshot places this record at leaf %d but the log has it at leaf %d", rowIndex, idx))
	}
	// CheckLeaf proves each full tile once and then compares leaf hashes:
	// the answer of one inclusion proof per record, at a fraction of the
	// hashing.
	ok, err := v.log.CheckLeaf(v.ctx, rfc6962.DefaultHasher.HashLeaf(leaf), idx, v.size, v.root)
	if err != nil && v.ctx.Err() != nil {
		return nil // interrupted: the calling loop reports it, not a finding
	}
	if err != nil {
		fail(finding.InclusionFailed, fmt.Sprintf("leaf %d: cannot build inclusion proof: %v", idx, err))
		return
	}
	if !ok {
		fail(finding.InclusionFailed, fmt.Sprintf("leaf %d: the inclusion proof built from the log's tiles does not reach the checkpoint root %s (the leaf differs from the signed record, or the tiles were altered)", idx, shortHash(v.root)))
	}
	return
}

// claimLeaf marks the leaf of a row whose record could not be decoded, by
// the id in the row's key column.
func (v *verifier) claimLeaf(rowID string) {
	id, err := record.ParseID(rowID)
	if err != nil || !v.logOK {
		return
	}
	if idx, ok := v.leafByID.lookup(id); ok {
		v.mu.Lock()
		v.seenLeaf.set(idx)
		v.mu.Unlock()
	}
}

func (v *verifier) recordFinding(phase int, seq int64, subject string, err error) {
	if errors.Is(err, loader.ErrRow) {
		v.add(phase, seq, finding.RowMalformed, subject, err.Error())
		return
	}
	if errors.Is(err, record.ErrNotCanonical) {
		v.add(phase, seq, finding.RecordNotCanonical, subject, err.Error())
		return
	}
	v.add(phase, seq, finding.RecordMalformed, subject, err.Error())
}

func (v *verifier) registry(ctx context.Context) error {
	roots := map[[32]byte]bool{}
	for _, k := range v.opts.TrustRoots {
		var r [32]byte
		copy(r[:], k)
		roots[r] = true
	}
	if len(roots) == 0 {
		for _, h := range strings.Split(v.snap.Meta[snapshot.MetaRootKeys], ",") {
			b, err := hex.DecodeString(strings.TrimSpace(h))
			if err == nil && len(b) == 32 {
				var r [32]byte
				copy(r[:], b)
				roots[r] = true
			}
		}
		v.add(phaseRegistry, 0, finding.RegistryRootUnanchored, "registry", "no --trust root keys given: registry events were checked against roots named in the snapshot itself")
	}
	// Registry events apply in log order, never in the snapshot's unsigned
	// row order: moving a revoke row before its register row must not make
	// the revocation vanish. Events whose leaf is not in the log (already a
	// finding) follow, by signed timestamp.
	var events []*loader.PrincipalRow
	order := v.newRowOrder("principals")
	err := v.snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		order.next(r.Seq, r.LeafIndex)
		events = append(events, r)
		return nil
	})
	if err != nil {
		return err
	}
	v.sortByLog(events)
	checked := map[[32]byte]error{}
	for _, r := range events {
		v.registryEvent(r, roots, checked)
	}
	return nil
}

// registryEvent checks one registry event and applies it to the key table.
func (v *verifier) registryEvent(r *loader.PrincipalRow, roots map[[32]byte]bool, checked map[[32]byte]error) {
	v.rep.Principals++
	v.rep.Records++
	subj := "principal " + r.RID
	if r.DecodeErr != nil {
		v.claimLeaf(r.RID)
		v.recordFinding(phaseRegistry, r.Seq, subj, r.DecodeErr)
		return
	}
	ev := r.Event
	v.addFact(fact{id: ev.RID, subject: subj, writer: fmt.Sprintf("registry root %x", ev.Root[:8]), ts: ev.TS})
	if r.Principal != ev.Principal || r.Op != ev.Op || r.Channel != ev.Channel || r.TS != int64(ev.TS) || r.RID != ev.RID.String() {
		v.add(phaseRegistry, r.Seq, finding.ColumnMismatch, subj, "decoded columns (rid, op, principal, channel, ts) disagree with the signed registry event")
	}
	v.inLog(phaseRegistry, r.Seq, ev.RID, subj, record.RecordLeaf(ev.RID, ev.Sig), r.LeafIndex)
	bad := false
	if !roots[ev.Root] {
		v.add(phaseRegistry, r.Seq, finding.RegistrySigInvalid, subj, fmt.Sprintf("signed by %x…, which is not a registry root", ev.Root[:8]))
		bad = true
	} else if ok, _ := record.VerifySignature(ev, ev.Root[:]); !ok {
		v.add(phaseRegistry, r.Seq, finding.RegistrySigInvalid, subj, "the root signature does not verify")
		bad = true
	}
	err, seen := checked[ev.PublicKey]
	if !seen {
		err = CheckPublicKey(ev.PublicKey[:])
		checked[ev.PublicKey] = err
		if err != nil {
			v.add(phaseRegistry, r.Seq, finding.KeyMalformed, subj, fmt.Sprintf("key of %s: %v", ev.Principal, err))
		}
	}
	if err != nil {
		bad = true
	}
	kid := record.KeyIDOf(ev.PublicKey[:])
	switch ev.Op {
	case record.OpRegister:
		if bad {
			return
		}
		k := &key{principal: ev.Principal, pub: ed25519.PublicKey(append([]byte{}, ev.PublicKey[:]...)), channel: ev.Channel, from: ev.TS}
		k.ed, _ = newEdKey(k.pub)
		v.keys[kid] = append(v.keys[kid], k)
		v.rep.Channels[ev.Principal] = ev.Channel
		v.rep.Registrations = append(v.rep.Registrations, Registration{Principal: ev.Principal, Key: kid, Op: ev.Op, Channel: ev.Channel, Pos: v.logPos(ev.RID)})
	case record.OpRevoke:
		if bad {
			return
		}
		v.rep.Registrations = append(v.rep.Registrations, Registration{Principal: ev.Principal, Key: kid, Op: ev.Op, Pos: v.logPos(ev.RID)})
		for _, k := range v.keys[kid] {
			if k.principal == ev.Principal && (k.until == 0 || ev.TS < k.until) {
				k.until = ev.TS
			}
		}
	}
}

// checkSigner verifies a signed record against the registry and returns the
// finding code and message, or "" when it verifies. raw is the record's
// canonical encoding (already checked) and sig its signature: the signed
// bytes are cut from raw rather than re-encoded.
func (v *verifier) checkSigner(raw, sig []byte, writer string, kid record.KeyID, ts uint64) (finding.Code, string) {
	return v.checkSignerWith(raw, sig, writer, kid, ts, sigUnchecked)
}

// sigAnswer is a signature's answer computed ahead (by verifyBatch), or
// sigUnchecked.
type sigAnswer uint8

const (
	sigUnchecked sigAnswer = iota
	sigGood
	sigBad
)

// signerKey is the registered key checkSigner verifies with: the first of
// kid's keys registered to writer, or nil.
func (v *verifier) signerKey(writer string, kid record.KeyID) *key {
	for _, k := range v.keys[kid] {
		if k.principal == writer {
			return k
		}
	}
	return nil
}

// sigJob prepares the signature checkSigner would verify for verifyBatch;
// false when checkSigner would not reach edKey.verify (no key, no decoded
// point, no signing bytes), which then answers itself.
func (v *verifier) sigJob(raw, sig []byte, writer string, kid record.KeyID) (sigJob, bool) {
	k := v.signerKey(writer, kid)
	if k == nil || k.ed == nil {
		return sigJob{}, false
	}
	msg, err := record.SigningBytesOf(raw, sig)
	if err != nil {
		return sigJob{}, false
	}
	return sigJob{k: k.ed, msg: msg, sig: sig}, true
}

// checkSignerWith is checkSigner using pre, the signature's answer when
// it was computed ahead for the same key and bytes (sigJob).
func (v *verifier) checkSignerWith(raw, sig []byte, writer string, kid record.KeyID, ts uint64, pre sigAnswer) (finding.Code, string) {
	match := v.signerKey(writer, kid)
	if match == nil {
		return finding.WriterUnregistered, fmt.Sprintf("writer %s with key %s is not in the principal registry", writer, kid)
	}
	switch pre {
	case sigBad:
		return finding.SigInvalid, fmt.Sprintf("signature does not verify under %s's key %s", writer, kid)
	case sigUnchecked:
		msg, err := record.SigningBytesOf(raw, sig)
		if err != nil || !match.verify(msg, sig) {
			return finding.SigInvalid, fmt.Sprintf("signature does not verify under %s's key %s", writer, kid)
		}
	}
	if ts < match.from || (match.until != 0 && ts >= match.until) {
		return finding.KeyOutsideValidity, fmt.Sprintf("signed at ts %d with %s's key %s, valid from %d%s", ts, writer, kid, match.from, untilText(match.until))
	}
	return "", ""
}

func (k *key) verify(msg, sig []byte) bool {
	if k.ed != nil {
		return k.ed.verify(msg, sig)
	}
	return ed25519.Verify(k.pub, msg, sig)
}

func untilText(u uint64) string {
	if u == 0 {
		return ""
	}
	return fmt.Sprintf(" until %d", u)
}

func (v *verifier) tombstones(ctx context.Context) error {
	order := v.newRowOrder("tombstones")
	return v.snap.EachTombstone(ctx, func(r *loader.TombstoneRow) error {
		order.next(r.Seq, r.LeafIndex)
		v.rep.Tombstones++
		v.rep.Records++
		subj := "tombstone " + r.Target
		if r.DecodeErr != nil {
			v.recordFinding(phaseTombstones, r.Seq, subj, r.DecodeErr)
			return nil
		}
		t := r.Tombstone
		if t.Target.String() != r.Target {
			v.add(phaseTombstones, r.Seq, finding.ColumnMismatch, subj, "target column disagrees with the signed tombstone")
		}
		v.tombstoned[t.Target] = true
		v.tombs = append(v.tombs, tombFact{r.Seq, subj, t})
		v.tombLeafMatches(r.Seq, subj, r.Raw, t.Target)
		if code, msg := v.checkSigner(r.Raw, t.Sig, t.Writer, t.KID, t.TS); code != "" {
			v.add(phaseTombstones, r.Seq, code, subj, msg)
		}
		if v.logOK {
			idx, ok := v.tombLeaves[t.Target]
			if !ok {
				v.add(phaseTombstones, r.Seq, finding.TombstoneNotInLog, subj, "no ts: leaf in the log names this entry")
				return nil
			}
			v.seenLeaf.set(idx)
			if r.LeafIndex >= 0 && uint64(r.LeafIndex) != idx {
				v.add(phaseTombstones, r.Seq, finding.InclusionFailed, subj, fmt.Sprintf("the snapshot places this tombstone at leaf %d but the log has its ts: leaf at %d", r.LeafIndex, idx))
			}
		}
		return nil
	})
}

func (v *verifier) entries(ctx context.Context) error {
	total, err := v.snap.Count(ctx, "entries")
	if err != nil {
		return err
	}
	// Every row's id (of its eid column) joins the set as the row is
	// read, before workers see the row: a parent in an earlier row is
	// found at once, and the few references the set cannot answer yet (a
	// later row, or an id without a record leaf) wait in parentsLater
	// until every row is read. This used to be a separate first pass.
	var leaves uint64
	if v.logOK {
		leaves = v.size
	}
	v.entryIDs = newEntrySet(v.logPos, leaves)
	v.parentsLater = nil
	var done int
	order := v.newRowOrder("entries")
	err = fanOutBatches(v.opts.Workers, func(yield func(*loader.EntryRow) error) error {
		return v.snap.EachEntryRaw(ctx, func(r *loader.EntryRow) error {
			// The canonical text parses without allocating; other
			// spellings ParseID accepts take the general way.
			id, ok := record.CanonicalID(r.EID)
			if !ok {
				var err error
				id, err = record.ParseID(r.EID)
				ok = err == nil
			}
			if ok {
				v.entryIDs.add(id)
			}
			// Decoded here, on the reading goroutine: with one signature
			// worker the other core then decodes while it verifies.
			v.snap.DecodeEntryRow(r)
			if v.opts.OnEntry != nil {
				if err := v.opts.OnEntry(r); err != nil {
					return err
				}
			}
			order.next(r.Seq, r.LeafIndex)
			v.rep.Entries++
			v.rep.Records++
			return yield(r)
		})
	}, v.checkEntries, func(n int) {
		if v.opts.Progress != nil {
			done += n
			v.opts.Progress(done, total)
		}
	})
	v.entryIDs.sort()
	// Each entry's deferred parents are in its parent order, and a parent
	// finding is the last check of an entry, so codes and findings come
	// out as if checked in the row.
	for _, l := range v.parentsLater {
		if !v.entryIDs.hasAt(l.parent, l.pos) && !v.tombstoned[l.parent] {
			v.add(phaseEntries, l.seq, finding.ParentMissing, "entry "+l.eid, fmt.Sprintf("parent %s is neither in the store nor tombstoned", l.parent))
			v.markEntry(l.eid, finding.ParentMissing)
		}
	}
	v.parentsLater = nil
	return err
}

// parentLater is a parent reference checked after every entry row is read.
type parentLater struct {
	seq    int64
	eid    string
	parent record.ID
	pos    uint64
}

// fanOut hands the rows stream yields to workers (0: GOMAXPROCS) in
// batches and runs check on each row; after each batch, done is called
// with its size, one call at a time. Signature checks dominate verify, so
// every signed table goes through here.
func fanOut[T any](workers int, stream func(yield func(T) error) error, check func(T), done func(n int)) error {
	return fanOutBatches(workers, stream, func(batch []T) {
		for _, r := range batch {
			check(r)
		}
	}, done)
}

// fanOutBatches is fanOut with check called once per batch, for checks
// that share work across a batch's rows (verifyBatch).
func fanOutBatches[T any](workers int, stream func(yield func(T) error) error, check func([]T), done func(n int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const batchSize = 256
	jobs := make(chan []T, workers*2)
	var wg sync.WaitGroup
	var doneMu sync.Mutex
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range jobs {
				check(batch)
				if done != nil {
					doneMu.Lock()
					done(len(batch))
					doneMu.Unlock()
				}
			}
		}()
	}
	batch := make([]T, 0, batchSize)
	err := stream(func(r T) error {
		batch = append(batch, r)
		if len(batch) == batchSize {
			jobs <- batch
			batch = make([]T, 0, batchSize)
		}
		return nil
	})
	if len(batch) > 0 {
		jobs <- batch
	}
	close(jobs)
	wg.Wait()
	return err
}

func (v *verifier) markEntry(eid string, code finding.Code) {
	v.mu.Lock()
	st := v.rep.EntryStatus[eid]
	st.Codes = append(st.Codes, code)
	v.rep.EntryStatus[eid] = st
	v.mu.Unlock()
}

// checkEntries checks a batch of decoded entry rows, their signatures
// first in one verifyBatch; it is called from several workers.
func (v *verifier) checkEntries(batch []*loader.EntryRow) {
	jobs := make([]sigJob, 0, len(batch))
	at := make([]int, len(batch))
	for i, r := range batch {
		at[i] = -1
		if r.DecodeErr != nil {
			continue
		}
		if j, ok := v.sigJob(r.Raw, r.Entry.Sig, r.Entry.Writer, r.Entry.KID); ok {
			at[i] = len(jobs)
			jobs = append(jobs, j)
		}
	}
	verifyBatch(jobs)
	for i, r := range batch {
		pre := sigUnchecked
		if at[i] >= 0 {
			pre = sigBad
			if jobs[at[i]].ok {
				pre = sigGood
			}
		}
		v.checkEntry(r, pre)
	}
}

// checkEntry runs every per-entry check of a decoded row
// (DecodeEntryRow), with its signature's answer when checkEntries had it.
func (v *verifier) checkEntry(r *loader.EntryRow, pre sigAnswer) {
	subj := "entry " + r.EID
	flag := func(code finding.Code, msg string) {
		v.add(phaseEntries, r.Seq, code, subj, msg)
		v.markEntry(r.EID, code)
	}
	if r.DecodeErr != nil {
		// The row still claims its leaf: the finding is the encoding, not
		// a deletion.
		v.claimLeaf(r.EID)
		flag(entryDecodeCode(r.DecodeErr), r.DecodeErr.Error())
		v.mu.Lock()
		v.rep.BadRecords[r.EID] = true
		v.mu.Unlock()
		return
	}
	e := r.Entry
	// Signed text can still be hostile to the responder's terminal.
	v.text.CheckAt(r.Seq, textscan.Field{Record: subj, Name: "content", Text: e.Content})
	// Every position is looked up once: the entry's for its fact and its
	// inclusion, each parent's for its fact and its presence.
	f := fact{id: e.EID, subject: subj, writer: e.Writer, ts: e.TS, trust: e.Trust, entry: true, parents: e.Parents,
		posSet: true, pos: v.logPos(e.EID), parentPos: make([]uint64, len(e.Parents))}
	for k, p := range e.Parents {
		f.parentPos[k] = v.logPos(p)
	}
	v.addFact(f)
	v.checkWeights(e, flag)
	var diff []string
	if r.EID != e.EID.String() {
		diff = append(diff, "eid")
	}
	if r.Writer != e.Writer {
		diff = append(diff, "writer")
	}
	if r.Trust != int(e.Trust) {
		diff = append(diff, "trust")
	}
	if r.TS != int64(e.TS) {
		diff = append(diff, "ts")
	}
	if r.Content != e.Content {
		diff = append(diff, "content")
	}
	if e.Session != nil {
		if r.SessionID != *e.Session {
			diff = append(diff, "session_id")
		}
	} else if r.SessionID != "" {
		v.mu.Lock()
		v.sessionUnsigned = append(v.sessionUnsigned, r.EID)
		v.mu.Unlock()
	}
	if len(diff) > 0 {
		flag(finding.ColumnMismatch, "column(s) "+strings.Join(diff, ", ")+" disagree with the signed record")
	}
	if code, msg := v.checkSignerWith(r.Raw, e.Sig, e.Writer, e.KID, e.TS, pre); code != "" {
		flag(code, msg)
		v.mu.Lock()
		v.rep.BadRecords[r.EID] = true
		v.mu.Unlock()
	}
	// Inclusion failures are kept apart from EntryStatus, whose codes other
	// analyses read as "the record failed verification".
	if failed := v.inLogAt(phaseEntries, r.Seq, e.EID, subj, record.RecordLeaf(e.EID, e.Sig), r.LeafIndex, f.pos, f.pos != math.MaxUint64); len(failed) > 0 {
		v.mu.Lock()
		v.rep.InclusionFailures[r.EID] = failed[0]
		v.mu.Unlock()
	}
	if v.tombstoned[e.EID] {
		flag(finding.TombstonedLive, "the entry was deleted by a tombstone but is still in the store")
	}
	if v.opts.HMACKey != nil {
		switch smsr.CheckTag(v.opts.HMACKey, r.HMACTag, e.Content, r.SessionID, int64(e.TS)) {
		case smsr.TagMissing:
			flag(finding.HMACMissing, "no HMAC tag stored for this entry")
		case smsr.TagMalformed:
			flag(finding.HMACWrong, "the stored HMAC tag is not 64 hex digits")
		case smsr.TagWrong:
			flag(finding.HMACWrong, "the HMAC tag does not match content, session and timestamp under the given key")
		}
	}
	for k, p := range e.Parents {
		if !v.entryIDs.hasNow(f.parentPos[k]) && !v.tombstoned[p] {
			v.mu.Lock()
			v.parentsLater = append(v.parentsLater, parentLater{r.Seq, r.EID, p, f.parentPos[k]})
			v.mu.Unlock()
		}
	}
}

// entryDecodeCode is the finding code of an entry row whose record could
// not be decoded.
func entryDecodeCode(err error) finding.Code {
	switch {
	case errors.Is(err, loader.ErrRow):
		return finding.RowMalformed
	case errors.Is(err, record.ErrNotCanonical):
		return finding.RecordNotCanonical
	}
	return finding.RecordMalformed
}

// writeSigner is the code that makes a structural write's signature
// unusable for its label (WriteStatus), or "": an undecodable record, an
// unregistered writer, a bad signature or one outside the key's validity.
func (v *verifier) writeSigner(r *loader.WriteRow) (finding.Code, string) {
	if r.DecodeErr != nil {
		return finding.RecordMalformed, r.DecodeErr.Error()
	}
	w := r.Write
	return v.checkSigner(r.Raw, w.Sig, w.Writer, w.KID, w.TS)
}

func (v *verifier) writes(ctx context.Context) error {
	order := v.newRowOrder("writes")
	return fanOut(v.opts.Workers, func(yield func(*loader.WriteRow) error) error {
		return v.snap.EachWrite(ctx, func(r *loader.WriteRow) error {
			order.next(r.Seq, r.LeafIndex)
			v.rep.Edges++
			v.rep.Records++
			return yield(r)
		})
	}, v.checkWrite, nil)
}

// checkWrite runs every check of one structural write; it is called from
// several workers.
func (v *verifier) checkWrite(r *loader.WriteRow) {
	subj := "write " + r.WID
	bad := func(code finding.Code) {
		v.mu.Lock()
		v.rep.BadRecords[r.WID] = true
		v.rep.WriteStatus[r.WID] = append(v.rep.WriteStatus[r.WID], code)
		v.mu.Unlock()
	}
	if r.DecodeErr != nil {
		v.claimLeaf(r.WID)
		v.recordFinding(phaseWrites, r.Seq, subj, r.DecodeErr)
		code, _ := v.writeSigner(r)
		bad(code)
		return
	}
	w := r.Write
	v.addFact(fact{id: w.WID, subject: subj, writer: w.Writer, ts: w.TS})
	if r.WID != w.WID.String() || r.Kind != w.Kind || r.Src != w.Src || r.Dst != w.Dst || r.Rel != w.Rel || r.Weight != w.Weight || r.Writer != w.Writer || r.TS != int64(w.TS) {
		v.add(phaseWrites, r.Seq, finding.ColumnMismatch, subj, "decoded columns disagree with the signed write")
	}
	if code, msg := v.writeSigner(r); code != "" {
		v.add(phaseWrites, r.Seq, code, subj, msg)
		bad(code)
	}
	v.inLog(phaseWrites, r.Seq, w.WID, subj, record.RecordLeaf(w.WID, w.Sig), r.LeafIndex)
	for _, s := range w.Sources {
		if !v.entryIDs.has(s) && !v.tombstoned[s] {
			v.add(phaseWrites, r.Seq, finding.SourceMissing, subj, fmt.Sprintf("source entry %s does not exist", s))
		}
	}
}

// orphanLeaves reports record leaves that no snapshot row claimed: a record
// deleted without a tombstone.
func (v *verifier) orphanLeaves() {
	if !v.logOK {
		return
	}
	for _, ref := range v.leafByID {
		l := struct {
			id    record.ID
			index uint64
		}{ref.id, uint64(ref.index)}
		if v.seenLeaf.has(l.index) {
			continue
		}
		if _, ok := v.tombLeaves[l.id]; ok || v.tombstoned[l.id] || v.superseded[l.id] {
			continue
		}
		if kind, ok := v.eventLeafKind[l.index]; ok {
			v.add(phaseOrphans, int64(l.index), finding.LeafWithoutRecord, leafSubject(l.index), fmt.Sprintf("%s leaf for record %s has no signed row in the %s table: the log shows a %s the store no longer holds", kind, l.id, eventTable[kind], kind))
			continue
		}
		v.add(phaseOrphans, int64(l.index), finding.LeafWithoutRecord, leafSubject(l.index), fmt.Sprintf("leaf for record %s has no record in the snapshot and no tombstone", l.id))
	}
	// A ts: leaf that no tombstone row claims: the store lost the record
	// of a deletion the log still shows.
	for id, idx := range v.tombLeaves {
		if !v.seenLeaf.has(idx) {
			v.add(phaseOrphans, int64(idx), finding.LeafWithoutRecord, leafSubject(idx), fmt.Sprintf("tombstone leaf for entry %s has no tombstone row in the snapshot", id))
		}
	}
}

func (v *verifier) checkpoints(ctx context.Context, lv note.Verifier) error {
	rows, err := v.snap.Checkpoints(ctx)
	for _, r := range rows {
		if r.Record != nil {
			v.cpRecords = append(v.cpRecords, r.Record)
		}
	}
	if err != nil {
		v.add(phaseCheckpoints, 0, finding.RowMalformed, "checkpoints", err.Error())
		return nil
	}
	v.rep.Checkpoints = len(rows)
	var verifiers []note.Verifier
	if lv != nil {
		verifiers = append(verifiers, lv)
	}
	bySize := map[uint64][]byte{}
	v.checkpointOrder(rows)
	for _, row := range rows {
		cv := v.checkpoint(ctx, row, lv != nil, verifiers, bySize)
		v.rep.CheckpointVerdicts = append(v.rep.CheckpointVerdicts, cv)
	}
	return nil
}

// checkpoint checks one recorded checkpoint: its signature under the pinned
// key, its agreement with others of its size, and its consistency with the
// log. Each failure is a finding; the verdict says what was and was not
// checked.
func (v *verifier) checkpoint(ctx context.Context, row loader.CheckpointRow, pinned bool, verifiers []note.Verifier, bySize map[uint64][]byte) CheckpointVerdict {
	subj := "checkpoint " + strconv.FormatInt(row.Seq, 10)
	cv := CheckpointVerdict{Seq: row.Seq}
	fail := func(which *Check, code finding.Code, msg string) {
		v.add(phaseCheckpoints, row.Seq, code, subj, msg)
		*which = Failed
		if cv.Code == "" {
			cv.Code, cv.Message = code, msg
		}
	}
	cp, err := tlog.ParseCheckpoint(row.Note, verifiers...)
	if err != nil {
		fail(&cv.Signature, finding.RowMalformed, err.Error())
		return cv
	}
	cv.Parsed, cv.Size, cv.Root = true, cp.Size, cp.Root
	if pinned {
		if cp.Status != tlog.Verified {
			fail(&cv.Signature, finding.CheckpointSigInvalid, fmt.Sprintf("checkpoint of size %d is not validly signed by the pinned log key (%s)", cp.Size, cp.Status))
			return cv
		}
		cv.Signature = Passed
	}
	v.seenCheckpoints = append(v.seenCheckpoints, seenCheckpoint{row.Seq, cp.Size, row.SeenAt})
	if prev, ok := bySize[cp.Size]; ok && !bytes.Equal(prev, cp.Root) {
		fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("two checkpoints of size %d with different roots", cp.Size))
	}
	bySize[cp.Size] = cp.Root
	if !v.logOK {
		return cv
	}
	switch {
	case cp.Size > v.size:
		fail(&cv.Consistent, finding.LogRollback, fmt.Sprintf("the store saw a checkpoint of size %d but the log has only %d leaves", cp.Size, v.size))
	case cp.Size == v.size:
		if !bytes.Equal(cp.Root, v.root) {
			fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("checkpoint of size %d has a different root than the log's", cp.Size))
		}
	case cp.Size == 0:
		// Every tree extends the empty one; there is nothing to prove, and
		// proofs from size 0 are rejected outright.
	default:
		p, err := v.log.ConsistencyProof(ctx, cp.Size, v.size)
		if err != nil {
			fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("cannot build a consistency proof from size %d to %d: %v", cp.Size, v.size, err))
		} else if err := tlog.VerifyConsistency(cp.Size, v.size, p, cp.Root, v.root); err != nil {
			fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("checkpoint of size %d is not consistent with the log at size %d: the consistency proof does not link its root %s to the log's root", cp.Size, v.size, shortHash(cp.Root)))
		}
	}
	if cv.Consistent != Failed {
		cv.Consistent = Passed
	}
	return cv
}

func (v *verifier) gate(ctx context.Context) error {
	events, err := v.snap.GateEvents(ctx)
	if err != nil && !v.rowErrors(ctx, phaseGate, "gate_events", err) {
		return err
	}
	v.gateEvents, v.gateErr = events, err
	v.gateRows = len(events)
	var re loader.RowErrors
	if errors.As(err, &re) {
		v.gateRows += len(re)
	}
	for i, g := range events {
		if g.Verdict != snapshot.GateReject {
			continue
		}
		subj := "gate " + g.ID
		var why []string
		if g.VersionAfter != g.VersionBefore {
			why = append(why, fmt.Sprintf("store version advanced %d -> %d", g.VersionBefore, g.VersionAfter))
		}
		if id, err := record.ParseID(g.CandidateEID); err == nil {
			if v.entryIDs.has(id) {
				why = append(why, "the candidate is in the store")
			}
			if _, ok := v.leafByID.lookup(id); ok {
				why = append(why, "the candidate is in the log")
			}
		}
		if len(why) > 0 {
			v.add(phaseGate, int64(i), finding.GateMaterialised, subj, fmt.Sprintf("rejected candidate %s left a trace: %s", g.CandidateEID, strings.Join(why, "; ")))
		}
	}
	return nil
}

// plainRows reads the unsigned tables so that malformed rows are reported
// (one finding per row; the other rows are still read), and reports what
// each table's rows are covered by.
func (v *verifier) plainRows(ctx context.Context) error {
	rows := map[string]int{}
	count := func(table string, n int, err error) error {
		rows[table] = n
		if err == nil {
			return nil
		}
		var re loader.RowErrors
		if errors.As(err, &re) {
			rows[table] += len(re)
		}
		if !v.rowErrors(ctx, phaseRows, table, err) {
			return err
		}
		return nil
	}
	er := &eventRows{malformed: map[string][]string{}}
	n, err := v.snap.Nodes(ctx)
	er.malformed[record.KindNode] = malformedNames(err)
	if err := count("nodes", len(n), err); err != nil {
		return err
	}
	for i := range n {
		er.add(n[i].Record)
	}
	q, err := v.snap.Queries(ctx)
	er.malformed[record.KindQuery] = malformedNames(err)
	if err := count("queries", len(q), err); err != nil {
		return err
	}
	for i := range q {
		er.add(q[i].Record)
	}
	v.queryNodes(n, q)
	// Unsigned text read from the rows: labels and query text are shown,
	// and a responder reads them on a terminal.
	for i := range n {
		v.text.CheckAt(rowsAfterEntries+int64(i), textscan.Field{Record: "node " + n[i].ID, Name: "label", Text: n[i].Label})
	}
	for i := range q {
		v.text.CheckAt(rowsAfterEntries+int64(len(n)+i), textscan.Field{Record: "query " + q[i].ID, Name: "text", Text: q[i].Text})
	}
	a, err := v.snap.Actions(ctx)
	er.malformed[record.KindAction] = malformedNames(err)
	if err := count("actions", len(a), err); err != nil {
		return err
	}
	for i := range a {
		er.add(a[i].Record)
	}
	er.malformed[record.KindGate] = malformedNames(v.gateErr)
	for i := range v.gateEvents {
		er.add(v.gateEvents[i].Record)
	}
	rows["gate_events"] = v.gateRows
	if err := v.operatorRows(ctx, er, count); err != nil {
		return err
	}
	signed := v.checkEvents(ctx, er)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	v.coverage(rows, signed)
	return nil
}

// queryNodes reports each recorded query whose selector input names a node
// the nodes table lacks: replay cannot run that query (it fails alone), so
// verify says so instead of passing what replay refuses.
func (v *verifier) queryNodes(nodes []loader.Node, queries []loader.Query) {
	known := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		known[n.ID] = true
	}
	for i, q := range queries {
		var missing []string
		add := func(where, id string) {
			if !known[id] && len(missing) < 4 {
				missing = append(missing, fmt.Sprintf("%s %q", where, id))
			}
		}
		for _, id := range sortedKeys(q.Reset) {
			add("reset node", id)
		}
		for _, id := range sortedKeys(q.Dense) {
			add("dense-score node", id)
		}
		for _, id := range q.Selected {
			add("selected node", id)
		}
		if len(missing) > 0 {
			v.add(phaseRows, int64(i), finding.QueryUnknownNode, "query "+q.ID,
				"the query names nodes the nodes table does not have ("+strings.Join(missing, ", ")+"); replay cannot run it")
		}
	}
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rowErrors reports each malformed row of a table read as ROW_MALFORMED
// (the other rows were read), or a table that could not be read at all as
// one ROW_MALFORMED. It returns false only when the run was cancelled.
func (v *verifier) rowErrors(ctx context.Context, phase int, table string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var re loader.RowErrors
	if !errors.As(err, &re) {
		v.add(phase, 0, finding.RowMalformed, table, "table could not be read: "+err.Error())
		return true
	}
	for i, e := range re {
		subj := table
		if e.Record != "" {
			subj = table + " " + e.Record
		}
		v.add(phase, int64(i), finding.RowMalformed, subj, e.Error())
	}
	return true
}

// coverage lists every table with what covers its rows. Signed record
// tables are covered by their signatures (whether those verify is the
// signature findings' business); entries.session_id is covered only by the
// SMSR tag, so only when a key was given; checkpoints by the log key only
// when it is pinned. Every other table is unsigned, and says so.
func (v *verifier) coverage(plain, signedRows map[string]int) {
	r := v.rep
	cov := func(table string, rows, signed int, by string) {
		st := StatusSigned
		switch {
		case rows == 0:
			st = StatusEmpty
		case signed == 0:
			st = StatusUnsigned
		case signed < rows:
			st = StatusPartial
		}
		r.Coverage = append(r.Coverage, TableCoverage{Table: table, Rows: rows, Signed: signed, By: by, Status: st})
	}
	cov("principals", r.Principals, r.Principals, "registry root signature")
	cov("entries", r.Entries, r.Entries, "writer signature")
	var sess int
	by := "writer signature (session signed in the entry)"
	if r.HMACChecked {
		sess, by = r.Entries, "writer signature or SMSR HMAC tag"
	} else if len(v.sessionUnsigned) > 0 {
		// Entries without a signed session whose column is empty claim
		// nothing; only a set column is an unsigned claim, and in a store
		// that signs sessions it is an error.
		sess = r.Entries - len(v.sessionUnsigned)
		if v.signing {
			sort.Strings(v.sessionUnsigned)
			for i, eid := range v.sessionUnsigned {
				v.add(phaseRows, int64(i), finding.RowUnsigned, "entry "+eid, "the entry's session_id is set but its signed record carries no session, although this store signs sessions")
			}
		}
		by = "writer signature (session signed in the entry), or SMSR HMAC tag with --hmac-key"
	} else {
		sess = r.Entries
	}
	cov(TableSessions, r.Entries, sess, by)
	cov("writes", r.Edges, r.Edges, "writer signature")
	cov("tombstones", r.Tombstones, r.Tombstones, "writer signature")
	for _, t := range []string{TableNodes, TableQueries, TableActions, TableGateEvents} {
		by := "principal signature"
		if signedRows[t] == 0 {
			by = "nothing"
		}
		cov(t, plain[t], signedRows[t], by)
	}
	v.operatorCoverage(plain, signedRows, cov)
	var unsigned []string
	for i, c := range r.Coverage {
		if c.Status == StatusUnsigned || c.Status == StatusPartial {
			unsigned = append(unsigned, c.Table)
			v.add(phaseRows, int64(10+i), finding.TableUnsigned, c.Table, fmt.Sprintf("%d of %d rows are covered by no signature or tag (%s): every value read from them is an unsigned claim", c.Rows-c.Signed, c.Rows, c.By))
		}
	}
	r.Unsigned = unsigned
}

func (v *verifier) finish() *Report {
	for i, f := range v.text.Findings() {
		v.findings = append(v.findings, ordered{phaseContent, int64(i), f})
	}
	sort.SliceStable(v.findings, func(i, j int) bool {
		a, b := v.findings[i], v.findings[j]
		if a.phase != b.phase {
			return a.phase < b.phase
		}
		if a.seq != b.seq {
			return a.seq < b.seq
		}
		return a.f.Code < b.f.Code
	})
	rep := v.rep
	rep.Findings = make([]finding.Finding, 0, len(v.findings))
	rep.Families = map[finding.Family]int{}
	for _, fam := range Families {
		rep.Families[fam] = 0
	}
	rep.OK = true
	for _, o := range v.findings {
		rep.Findings = append(rep.Findings, o.f)
		rep.Families[o.f.Family]++
		if o.f.Severity == finding.SevError {
			rep.OK = false
		}
	}
	return rep
}
