// Package verify checks memscope evidence for integrity: signatures against
// the principal registry, canonical encoding, decoded columns against signed
// bytes, every record's inclusion in the Merkle log, the log against its
// checkpoints, tombstones, SMSR HMAC tags and commit-gate non-formation.
// It is pure analysis: it reads through the loader and tlog and prints
// nothing. Its findings are package finding's.
package verify

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/memscope/memscope/internal/present/textscan"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/bigslice"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// Options says what to verify and against which anchors.
type Options struct {
	Snapshot string
	// Snap, when set, is the caller's open handle of Snapshot: verify reads
	// through it and leaves it open, so a session that already opened the
	// file does not open it again.
	Snap *loader.Snapshot
	Log  string // directory or http(s) URL
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
	// EntriesRead, when set, is called once OnEntry has seen every entry
	// row (the entries were read to the end without error), on the same
	// goroutine, while the entries' last checks and the tables after them
	// are still to run: a caller that builds something from every row
	// (the inspector's lineage graph) starts it there.
	EntriesRead func()
	// Now is the verifying clock (nil: time.Now): a record signed more
	// than futureSkew after it is TIME_IN_FUTURE.
	Now func() time.Time
	// AnchorSources names the anchor files that lie inside the evidence.
	AnchorSources AnchorSources
	// SkipEntryCount leaves OpenProvenance's Report.Entries at 0: a
	// monitor's replay reads only the labels, and counting the entries
	// of a live handle that hides rows (loader.OpenLiveBefore) reads
	// every row.
	SkipEntryCount bool
	// RegistryAtClaimedLeaves: OpenProvenance takes each registry event's
	// log position from the leaf its row claims, proved by an inclusion
	// proof, instead of reading every leaf of the log to find it (it reads
	// the log when a claim does not prove, and as Run does when a key was
	// revoked). A monitor's round sets it: its own check trusts claims
	// the same way (CheckNew).
	RegistryAtClaimedLeaves bool
}

// AnchorSources names, for each trust anchor, the file inside the evidence
// it was read from ("" when it was given otherwise). An anchor the evidence
// could have supplied pins nothing against whoever wrote the evidence: it
// is reported "pinned from a file inside the evidence" with an
// ANCHOR_FROM_EVIDENCE warning, never plain "pinned".
type AnchorSources struct {
	LogKey string
	Trust  string
}

// PinnedFromEvidence is an anchor's status when its file lies inside the
// evidence.
const PinnedFromEvidence = "pinned from a file inside the evidence"

// Families are verify's finding families in the order summaries list them;
// Report.Families has a count for each.
var Families = []finding.Family{finding.FamSignatures, finding.FamRegistry, finding.FamEncoding, finding.FamLog,
	finding.FamTombstones, finding.FamHMAC, finding.FamGate, finding.FamReferences, finding.FamCoverage, finding.FamOrder, finding.FamSnapshot}

// Anchors says whether each trust anchor came from the user.
type Anchors struct {
	LogKey   string `json:"log_key"`  // "pinned", PinnedFromEvidence or "unanchored"
	Registry string `json:"registry"` // "pinned", PinnedFromEvidence or "unanchored"
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
	// or structural write whose leaf is missing or whose proof fails (see
	// Entry), by record id.
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
	// entries holds every entry row's id, for Entry.
	entries *entryIndex
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
	// revokedAt is the log position of the key's earliest logged
	// revocation (NoPosition: none, or not in the log). It is the authority: a
	// record logged after it is outside the key's validity whatever its
	// signed timestamp says.
	revokedAt uint64
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
	pf          posFacts
	facts       factStore
	generalOnly bool // tests: always take the general path
	// provUndecided: the provenance pass met a record whose inclusion it
	// cannot decide (Provenance.Undecided).
	provUndecided   bool
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
	// revocations: the registry revokes a key (the provenance pass then
	// keeps every leaf's position).
	revocations bool
	// future is the latest signed time (ns) that is not TIME_IN_FUTURE.
	future uint64

	// importNoteLeaves counts the import notes' leaves, which eventLeaves
	// leaves out (importnotes.go).
	importNoteLeaves int

	// incremental: a monitor's check of the new leaves only (CheckNew);
	// the leaf table then holds the new leaves and the leaves proved by
	// the rows' own claims, and orphans are looked for from newFrom on.
	incremental             bool
	newFrom                 uint64
	unknownTargetsUnchecked int
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
	defer v.closeSnap()
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
	if v.log != nil && v.log.PastDeadline() {
		return nil, false, v.deadlineError()
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
	v.splitViews()
	if v.log != nil && v.log.PastDeadline() {
		return nil, false, v.deadlineError()
	}
	return v.finish(), false, nil
}

// closeSnap closes the snapshot handle verify opened itself (not the
// caller's Options.Snap).
func (v *verifier) closeSnap() {
	if v.opts.Snap == nil {
		v.snap.Close()
	}
}

// openVerifier opens the snapshot (or takes Options.Snap) and parses the
// log key (the caller calls v.closeSnap).
func openVerifier(ctx context.Context, opts Options) (*verifier, note.Verifier, error) {
	snap := opts.Snap
	if snap == nil {
		var err error
		if snap, err = loader.OpenContext(ctx, opts.Snapshot); err != nil {
			return nil, nil, err
		}
	}
	var logVerifier note.Verifier
	if opts.LogKey != "" {
		var err error
		if logVerifier, err = note.NewVerifier(opts.LogKey); err != nil {
			if opts.Snap == nil {
				snap.Close()
			}
			return nil, nil, fmt.Errorf("--log-key: not a note verifier key: %v", err)
		}
	}
	return newVerifier(ctx, opts, snap, logVerifier), logVerifier, nil
}

func newVerifier(ctx context.Context, opts Options, snap *loader.Snapshot, logVerifier note.Verifier) *verifier {
	v := &verifier{ctx: ctx, opts: opts, snap: snap, keys: map[record.KeyID][]*key{}, text: textscan.New(filepath.Base(opts.Snapshot)),
		tombLeaves: map[record.ID]uint64{}, tombLeafData: map[record.ID][]byte{}, tombstoned: map[record.ID]bool{}, eventLeafKind: map[uint64]string{},
		rep: &Report{Snapshot: opts.Snapshot, Log: opts.Log, EntryStatus: map[string]EntryStatus{}, InclusionFailures: map[string]finding.Code{}, WriteStatus: map[string][]finding.Code{},
			Channels: map[string]string{}, BadRecords: map[string]bool{}, BadEvents: map[string]bool{}, entries: newEntryIndex()}}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	v.future = uint64(now().Add(futureSkew).UnixNano())
	v.rep.Anchors = Anchors{LogKey: "unanchored", Registry: "unanchored"}
	v.rep.HMACChecked = opts.HMACKey != nil
	if logVerifier != nil {
		v.rep.Anchors.LogKey = "pinned"
		if f := opts.AnchorSources.LogKey; f != "" {
			v.rep.Anchors.LogKey = PinnedFromEvidence
			v.add(phaseLog, 0, finding.AnchorFromEvidence, "log key", "the log key was read from "+f+", inside the evidence: whoever wrote the evidence chose it, so the checkpoint's signature proves nothing against them; give the key from a source you trust")
		}
	}
	if len(opts.TrustRoots) > 0 {
		v.rep.Anchors.Registry = "pinned"
		if f := opts.AnchorSources.Trust; f != "" {
			v.rep.Anchors.Registry = PinnedFromEvidence
			v.add(phaseRegistry, 0, finding.AnchorFromEvidence, "registry roots", "the registry root keys were read from "+f+", inside the evidence: whoever wrote the evidence chose them; give the roots from a source you trust")
		}
	}
	return v
}

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

// futureSkew is how far past the verifying clock a signed time may be
// before it is TIME_IN_FUTURE: clocks disagree by seconds, time zones
// mistaken for UTC by hours; a day covers both.
const futureSkew = 24 * time.Hour

// inFuture reports a signed time past the verifying clock (plus skew); it
// says whether it did.
func (v *verifier) inFuture(ts uint64, flag func(finding.Code, string)) bool {
	if ts <= v.future {
		return false
	}
	flag(finding.TimeInFuture, fmt.Sprintf("signed at %s (ts %d), more than a day after the verifying clock's date (%s): the signer's clock was set forward, or the time was chosen", time.Unix(0, int64(ts)).UTC().Format(time.RFC3339), ts, time.Unix(0, int64(v.future-uint64(futureSkew))).UTC().Format(time.DateOnly)))
	return true
}

// deadlineError refuses a verification whose log reads ran past their
// deadline: reads after it all failed, so no verdict is drawn (exit 2).
func (v *verifier) deadlineError() error {
	return fmt.Errorf("the log at %s was not read before the deadline (raise it with --log-deadline): %w", v.opts.Log, tlog.ErrDeadline)
}
