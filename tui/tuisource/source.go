// Package tuisource gives the terminal inspector its data: it implements
// tui.Source on top of an assemble.Session, so every fact the TUI shows
// comes from the same analyses the CLI prints.
package tuisource

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/dagdraw"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

// Source is a tui.Source over one snapshot and log. Entries load in the
// background (the first frame must not wait for a million rows); until
// they are in, EntryCount grows as rows arrive.
type Source struct {
	s      *assemble.Session
	glyphs dagdraw.Glyphs

	// expCase is the Exposure view's analysis, once.
	expCase exposureCase

	// live is what Live keeps between the inspector's polls.
	live liveState

	// verdicts are the per-action defence verdicts (after Verify), one set
	// per tau and label policy the inspector has asked for.
	verdicts map[labelKey][]defences.Row

	// Rows are built on demand from the session's entries (no second copy
	// of a million rows); each row's sanitize.Findings are in its Flags,
	// set before the row is published by the session's Loaded count.
	// Per-row overlays, swapped whole.
	recomputed atomic.Pointer[[]lineage.Trust]
	relabelMu  sync.Mutex // orders relabel (policy.go)
	status     atomic.Pointer[[]tui.Status]
	problems   atomic.Pointer[[]string] // what is wrong, per row (statusByRow)
	done       chan struct{}            // closed when loading ends
	loadErr    error
	stopLoad   context.CancelFunc // ends a background load (Close)
	closeOnce  sync.Once
	shown      chan struct{} // closed by Shown (nil: loaded before New returned)
	shownOnce  sync.Once
	closeErr   error
	gc         gcHold // the collector's pacing on a big store (gcpacing.go)
	// wantVerify is set by Verify: a background load that has not started
	// yet then verifies as it loads (assemble.Session.LoadVerify), reading
	// every row once; checked and total are that verification's progress.
	wantVerify atomic.Bool
	riding     atomic.Bool // the load verifies as it loads
	checked    atomic.Int64
	toCheck    atomic.Int64

	log     *tlog.Reader // nil when the log could not be opened
	logSize uint64
	logRoot []byte
	// Leaves, compactly: kind and the row of the claiming table.
	leaves *leafIndex
	// previews of the rows shown, read back from the snapshot (contents.go)
	previews previewCache
	// opSubjects are the subjects of the operator's leaves (meta keys,
	// checkpoint and vector seqs), indexed by their leaf row.
	opSubjects []string

	mu        sync.Mutex
	replayMu  sync.Mutex // serialises replay (one run of every query)
	gate      []lineage.GateResult
	report    *verify.Report
	rp        *replay.Replayer
	replayErr error
	// replayed is every query replayed now and as it ran, once: the
	// findings and the replay view both read it.
	replayed *replayed
	tr       *timeline.Replay // the timeline over rp, built on first use
	cpStatus []tui.CheckpointRow
	tau      float64              // of recomputed and gate (Relabel)
	policy   atomic.Pointer[bool] // label policy of RelabelPolicy (nil: the session's)
}

var _ tui.Source = (*Source)(nil)

// loadGCPercent is the collector's pacing (GOGC) while the load of a
// store of more than bigLoad entries rides on verification, and while the
// analyses after it run (gcHold).
const (
	loadGCPercent = 50
	bigLoad       = 250000
)

// syncLoadLimit is the largest store whose entries are loaded before New
// returns.
var syncLoadLimit = 20000

// New opens the evidence and starts loading entries in the background.
func New(ctx context.Context, opts assemble.Options, plain bool) (*Source, error) {
	// A million contents are not held: the rows on screen read theirs back.
	opts.LazyContent = true
	s, err := assemble.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	total := s.EntryTotal()
	src := &Source{s: s, glyphs: dagdraw.Box, done: make(chan struct{})}
	if plain {
		src.glyphs = dagdraw.ASCII
	}
	if r, err := tlog.OpenWith(ctx, opts.Log, opts.LogOptions); err == nil {
		src.log = r
		// The size is the checkpoint's claim: the leaf views are sized by
		// it only once the log is shown to hold that many leaves.
		if cp, err := r.PublishedCheckpoint(); err == nil && r.Present(ctx, cp.Size) == nil {
			src.logSize, src.logRoot = cp.Size, cp.Root
		}
	}
	src.leaves = newLeafIndex(src.logSize)
	src.indexLeaves()
	src.cpStatus = src.parseCheckpoints(nil)
	// Small stores load before the first frame (well under a second); big
	// ones load behind the progress bar while the UI is already usable.
	if total <= syncLoadLimit {
		src.load(ctx)
		if src.loadErr != nil {
			s.Close()
			return nil, src.loadErr
		}
	} else {
		// The load outlives New's ctx (the UI is already up); Close ends it.
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		src.stopLoad = cancel
		src.shown = make(chan struct{})
		go func() {
			// The first frame is drawn before the load starts competing
			// for the cores (3.5 s against 0.2 s at 10M on 2 cores), or
			// after a second without one (no terminal: tests, exports).
			select {
			case <-src.shown:
			case <-time.After(time.Second):
			case <-lctx.Done():
			}
			src.load(lctx)
		}()
	}
	return src, nil
}

// Shown implements tui.Shower: the first frame is on screen, the
// background load may start.
func (src *Source) Shown() {
	if src.shown != nil {
		src.shownOnce.Do(func() { close(src.shown) })
	}
}

// Close implements tui.Source: it stops a background load, waits for it,
// and closes the snapshot. Safe to call more than once.
func (src *Source) Close() error {
	src.closeOnce.Do(func() {
		if src.stopLoad != nil {
			src.stopLoad()
		}
		<-src.done
		src.closeErr = src.s.Close()
	})
	return src.closeErr
}

// Session exposes the underlying analyses (for exports and tests).
func (src *Source) Session() *assemble.Session { return src.s }

// WaitLoaded blocks until entries are loaded (or ctx ends).
func (src *Source) WaitLoaded(ctx context.Context) error {
	select {
	case <-src.done:
		return src.loadErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (src *Source) load(ctx context.Context) {
	defer close(src.done)
	// Flags are written before the session's count publishes the row, so
	// readers below the count always see them.
	onEntry := func(i int, e *assemble.Entry) {
		e.Flags = uint16(sanitize.Findings(e.Content) | sanitize.Findings(e.Writer))
		src.setLeaf(e.Leaf, tui.LeafEntry, i)
	}
	var err error
	if src.wantVerify.Load() {
		src.riding.Store(true)
		// Verification's garbage (a decoded record per row) is made while
		// the rows and the lineage builder grow to their full size (230 MB
		// live at 1M entries): at the default pacing the heap doubles that
		// (a 563 MB peak). On a big store the collector runs at half the
		// live heap instead (more cycles, each marking the rows); on a
		// small one the doubling is tens of MB and not worth the cycles.
		if src.s.EntryTotal() > bigLoad {
			defer src.gc.hold()()
		}
		err = src.s.LoadVerify(ctx, func(done, total int) {
			src.checked.Store(int64(done))
			src.toCheck.Store(int64(total))
		}, onEntry)
	} else {
		err = src.s.Load(ctx, nil, onEntry)
	}
	if err != nil {
		src.loadErr = err
		return
	}
	labels, err := src.labelsAt(assemble.DefaultTau)
	if err == nil {
		src.recomputed.Store(src.byRow(labels))
		gate, gerr := src.s.GateAudit(labels)
		if gerr == nil {
			src.mu.Lock()
			src.gate = gate
			src.mu.Unlock()
		}
	}
}

// byRow reorders lineage labels (indexed by the lineage graph) by row.
func (src *Source) byRow(labels []lineage.Trust) *[]lineage.Trust {
	out := make([]lineage.Trust, src.s.HeldEntries())
	for j, l := range labels {
		out[src.s.RowOf(j)] = l
	}
	return &out
}

// labelsAt recomputes (or reuses) every entry's label at tau under the
// label policy in force.
func (src *Source) labelsAt(tau float64) ([]lineage.Trust, error) {
	return src.labelsWith(tau, src.failClosed())
}

// labelsWith is every entry's label at tau under a label policy: the
// session computes each labelling once verification was fed in and keeps
// it (assemble.Session.Labels), so nothing is cached here.
func (src *Source) labelsWith(tau float64, failClosed bool) ([]lineage.Trust, error) {
	return src.s.Labels(tau, failClosed)
}

// Report is the verification report once Verify has finished.
func (src *Source) Report() *verify.Report {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.report
}

// Overview implements tui.Source.
func (src *Source) Overview() tui.Overview {
	s := src.s
	o := tui.Overview{Title: s.Opts.Title, Principals: s.Principals, Entries: s.EntryTotal(), Edges: s.WriteCount(), Queries: len(s.Queries),
		Actions: len(s.Actions), Tombstones: len(s.Tombstones), LogSize: src.logSize, Checkpoints: len(s.Checkpoints), Tau: src.currentTau(), LabelPolicy: "fail-open"}
	if src.failClosed() {
		o.LabelPolicy = "fail-closed"
	}
	o.Anchors = []tui.Anchor{
		{Name: "log key", Pinned: s.Opts.LogKey != "", Detail: keyDetail(s.Opts.LogKey, s.Meta["log_key"])},
		{Name: "registry root", Pinned: len(s.Opts.TrustRoots) > 0, Detail: rootDetail(s)},
	}
	if s.Opts.HMACKey == nil {
		o.Notes = append(o.Notes, "no --hmac-key: HMAC tags are not checked")
	}
	if s.Opts.LogKey == "" {
		o.Notes = append(o.Notes, "no --log-key: checkpoints are checked against the key the snapshot names (unanchored)")
	}
	if len(s.Opts.TrustRoots) == 0 {
		o.Notes = append(o.Notes, "no --trust: registry roots come from the snapshot itself (unanchored)")
	}
	if !isClosed(src.done) {
		// The total is the seq bounds' estimate until every row is read
		// (exact on a store the writer made).
		o.Notes = append(o.Notes, fmt.Sprintf("loading entries: %d of %d", s.Loaded(), s.EntryTotal()))
	}
	o.Notes = append(o.Notes, s.LoadIssues...)
	return o
}

func keyDetail(pinned, fromSnapshot string) string {
	k := pinned
	if k == "" {
		k = fromSnapshot
	}
	if i := strings.IndexByte(k, '+'); i > 0 {
		return k[:i]
	}
	return k
}

func rootDetail(s *assemble.Session) string {
	if len(s.Opts.TrustRoots) > 0 {
		return idform.Head(hex.EncodeToString(s.Opts.TrustRoots[0]), 16)
	}
	if r := s.Meta["root_keys"]; len(r) >= 16 {
		return idform.Head(r, 16)
	}
	return ""
}

// EntryCount implements tui.Source: the rows loaded so far.
func (src *Source) EntryCount() int { return src.s.Loaded() }

// EntryTotal is how many entry rows the store has, known from opening.
func (src *Source) EntryTotal() int { return src.s.EntryTotal() }

// Entry implements tui.Source.
func (src *Source) Entry(i int) tui.EntryRow {
	e := src.s.EntryAt(i)
	r := tui.EntryRow{ID: e.ID, Writer: e.Writer, Recorded: e.Recorded, Recomputed: e.Recorded, TimeNS: e.TS, Suspicious: e.Flags}
	r.Preview, r.PreviewPending = src.preview(i)
	if e.DecodeErr != nil {
		r.Status = tui.Failed
	}
	if l := src.recomputed.Load(); l != nil && i < len(*l) {
		r.Recomputed = (*l)[i]
	}
	if st := src.status.Load(); st != nil && i < len(*st) {
		r.Status = (*st)[i]
	}
	if p := src.problems.Load(); p != nil && i < len(*p) {
		r.Problem = (*p)[i]
	}
	return r
}

// EntryIndex implements tui.Source.
func (src *Source) EntryIndex(id string) (int, bool) {
	select {
	case <-src.done:
	default:
		return 0, false
	}
	return src.s.Index(id)
}

// Findings implements tui.Source: what is known before verification, the
// tables the session could not load. Verification's findings replace these
// (verify reports the same tables, and the unanchored trust roots, itself).
func (src *Source) Findings() []finding.Finding {
	var out []finding.Finding
	for _, issue := range src.s.LoadIssues {
		out = append(out, finding.New(finding.RowMalformed, "snapshot", issue))
	}
	return out
}

// Checkpoints implements tui.Source.
func (src *Source) Checkpoints() []tui.CheckpointRow {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.cpStatus
}

// LeafCount implements tui.Source.
func (src *Source) LeafCount() int { return int(src.leaves.size) }

// Leaf implements tui.Source.
func (src *Source) Leaf(i int) tui.LeafRow {
	kind, row := src.leaves.get(i)
	lr := tui.LeafRow{Index: uint64(i), Kind: kind}
	s := src.s
	switch kind {
	case tui.LeafEntry:
		// An entry claims its leaf just before Load publishes its row.
		if row < s.Loaded() {
			lr.Subject = s.EntryAt(row).ID
		}
	case tui.LeafWrite:
		lr.Subject = s.WriteID(row)
	case tui.LeafRegistry:
		lr.Subject = s.PrincipalLeaves[row].ID
	case tui.LeafTombstone:
		lr.Subject = s.TombstoneLeaves[row].ID
	case tui.LeafQuery:
		lr.Subject = s.Queries[row].ID
	case tui.LeafAction:
		lr.Subject = s.Actions[row].ID
	case tui.LeafGate:
		lr.Subject = s.GateEvents[row].ID
	case tui.LeafNode:
		lr.Subject = s.Nodes[row].ID
	case tui.LeafConfig, tui.LeafSighting, tui.LeafVector:
		lr.Subject = src.opSubjects[row]
	}
	return lr
}

// ActionVerdicts implements tui.Source: the verdicts at the inspector's
// tau and label policy, as the background steps computed them (after
// Verify, and in RelabelPolicy for each new pair); nil until then. The
// render path only reads them.
func (src *Source) ActionVerdicts() []defences.Row {
	key := labelKey{tau: src.currentTau(), failClosed: src.failClosed()}
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.verdicts[key]
}

// Actions implements tui.Source: empty until entries are loaded.
func (src *Source) Actions() []lineage.GateResult {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.gate
}

// Relabel recomputes every entry's label and the gate audit at tau under
// the label policy in force; Entry, Actions and Overview use them from then
// on (the inspector's one tau).
func (src *Source) Relabel(ctx context.Context, tau float64) error {
	return src.RelabelPolicy(ctx, tau, src.failClosed())
}

func (src *Source) currentTau() float64 {
	src.mu.Lock()
	defer src.mu.Unlock()
	return src.tau
}

// RootCauses implements tui.Grouper with assemble.GroupFindings, mapping the
// groups back to positions in fs.
func (src *Source) RootCauses(fs []finding.Finding) []tui.RootCause {
	type key struct {
		code             finding.Code
		subject, message string
	}
	pos := map[key][]int{}
	for i, f := range fs {
		k := key{f.Code, f.Subject, f.Message}
		pos[k] = append(pos[k], i)
	}
	var out []tui.RootCause
	for _, g := range assemble.GroupFindings(fs, src.s.Principals) {
		rc := tui.RootCause{Headline: g.Headline, HasCause: g.Cause != nil}
		for _, f := range g.Findings {
			k := key{f.Code, f.Subject, f.Message}
			if ps := pos[k]; len(ps) > 0 {
				rc.Members = append(rc.Members, ps[0])
				pos[k] = ps[1:]
			}
		}
		out = append(out, rc)
	}
	return out
}

// Coverage implements tui.Coverer: verify's coverage of one row, through
// the session (assemble.Session.Coverage); "not checked" until Verify has
// finished.
func (src *Source) Coverage(table, id string) string { return src.s.Coverage(table, id) }
