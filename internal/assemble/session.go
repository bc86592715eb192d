// Package assemble runs memscope's analyses together over one snapshot and
// log: it loads the evidence once through the loader, and hands the
// records to verify, lineage and replay. The CLI's --json output and the
// terminal inspector both read their facts from here, so the two never
// disagree and neither re-implements an analysis.
package assemble

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// Options name the evidence, the anchors and the analysis parameters.
type Options struct {
	Snapshot   string
	Log        string
	LogKey     string
	TrustRoots []ed25519.PublicKey
	HMACKey    []byte
	LogOptions tlog.Options // log read limits and permissions
	// AnchorSources names anchor files inside the evidence (verify reports
	// them as pinned from the evidence).
	AnchorSources verify.AnchorSources
	Title         string

	Tau        float64 // lineage threshold
	FailClosed bool
	GatePolicy *lineage.Policy // nil: lineage.DefaultPolicy

	ReplayPolicy string  // replay label policy name ("" = default)
	K            int     // default top-k (0: 5)
	Damping      float64 // 0: 0.5
	// DeferEntries is kept for callers that set it: Open no longer
	// allocates Entries in any case (Load does, in the background).
	DeferEntries bool
	// LazyContent: Load keeps no entry's content (Entry.Content stays
	// empty once onEntry has seen it); Content and Contents read it back
	// from the snapshot by rows. A million contents are then not held
	// (the inspector sets it: it shows a screenful at a time).
	LazyContent bool
	// CulpritMode is how replay searches for culprit writes ("": fast).
	CulpritMode replay.CulpritMode
	// Workers bounds the goroutines verification and replay run on
	// (0: GOMAXPROCS). The inspector sets it one below GOMAXPROCS so a
	// P stays free for the interface while they hold the cores.
	Workers int
	// Evictions runs replay's single-edge eviction probe (slow: one
	// bisection per selected target).
	Evictions bool
	// EntriesByIndex: the provenance pass reads what replay's labels need
	// by look-up, not by scanning: the entries it reads by their id
	// through the UNIQUE index on entries.eid (the caller has checked it
	// is declared) instead of reading every row's id first; the registry
	// events' log positions from the leaves their rows claim, each proved
	// (verify.Options.RegistryAtClaimedLeaves), instead of reading every
	// leaf; no count of the entries; the timeline's ordering entries only
	// when asked. A monitor sets it on a live handle
	// (loader.OpenLiveBefore), whose one connection cannot serve the
	// pass's parallel scan anyway.
	EntriesByIndex bool
}

// Entry is the in-memory summary of one entry row, kept for every entry.
type Entry struct {
	ID       string
	Writer   string
	Recorded record.Trust
	// Flags are the caller's per-row marks, set from Load's onEntry (the
	// inspector keeps its sanitiser findings here: they fit in the
	// padding after Recorded, so a million rows cost nothing more).
	Flags   uint16
	TS      int64
	Content string
	Leaf    int64 // -1: the row names no leaf
	// DecodeErr is set when the signed record could not be decoded; the
	// other fields then come from the row's convenience columns.
	DecodeErr error
}

// Write is a structural write with its decoded fields.
type Write struct {
	ID       string
	Kind     string
	Src, Dst string
	Rel      string
	Weight   float64
	Writer   string
	Sources  []string
	TS       int64
	Leaf     int64
	Bad      error // decode failure
}

// PrincipalEvent is a registry event's summary (for the timeline).
type PrincipalEvent struct {
	ID, Op, Principal, Channel string
	TS                         int64
	Leaf                       int64
}

// TombstoneRec is a tombstone's summary (for the timeline).
type TombstoneRec struct {
	Target, Writer, Reason string
	TS                     int64
	Leaf                   int64
	// Ghost is what the signed tombstone says of the deleted entry, for
	// lineage (Known false when it does not say).
	Ghost lineage.Ghost
}

// ClaimedLeaf is a record id and the leaf index its row claims.
type ClaimedLeaf struct {
	ID   string
	Leaf int64
}

// Session is one opened snapshot with everything loaded once.
type Session struct {
	Opts Options
	Snap *loader.Snapshot
	Meta map[string]string

	// rows are the entry rows Load has read (EntryAt, HeldEntries),
	// published before each Loaded step; nil before Load and after
	// LoadLineage, which keeps none.
	rows atomic.Pointer[entryStore]
	// estimate is Open's cheap bound on the entry rows (from the seq
	// column's bounds, never a count(*), which reads every row); exact
	// after Load.
	estimate atomic.Int64
	loaded   atomic.Int64
	// Where row i is in the table: seq seqLo+i, unless seqs is set (a
	// store whose seqs are not consecutive). Written by Load before it
	// publishes the rows.
	seqLo int64
	seqs  []int64
	seqMu sync.RWMutex
	rowOf []int32 // lineage node index -> entry row

	// writes are the structural write rows in stored order (WriteCount,
	// WriteAt): held by column, a million of them being most of what a
	// replay of a large graph holds.
	writes      *writeTable
	Nodes       []loader.Node
	Queries     []loader.Query
	Actions     []loader.Action
	GateEvents  []loader.GateEvent
	Checkpoints []loader.CheckpointRow
	Tombstones  []string // tombstoned entry ids
	Principals  int
	// Leaves the snapshot claims for registry events and tombstones (entry
	// and write leaves are on Entry.Leaf and Write.Leaf).
	PrincipalLeaves []ClaimedLeaf
	TombstoneLeaves []ClaimedLeaf
	// Registry events and tombstones in stored order, decoded where the
	// signed bytes allow (the row's columns otherwise).
	PrincipalEvents []PrincipalEvent
	TombstoneRecs   []TombstoneRec
	// LoadIssues are tables that could not be read; analyses continue
	// without them.
	LoadIssues []string
	// unreadNodes are the ids of node rows that could not be read: the
	// replay graph holds them as placeholders (unreadNodePlaceholders),
	// so the writes naming them still replay.
	unreadNodes unreadNodes

	Lineage *lineage.Graph

	// FellBack says why the provenance pass declined and replay's labels
	// came from the full verification ("" when it did not).
	FellBack string

	mu     sync.Mutex
	report *verify.Report
	// loadStarted and loadDone let a caller that needs the entries wait
	// for a Load another goroutine runs instead of starting a second one.
	loadStarted atomic.Bool
	loadDone    chan struct{}
	loadErr     error
	preloadRows int // LoadVerify's (0: preloadRows; tests set fewer)
	// The provenance pass (provenance.go), run once.
	provMu    sync.Mutex
	prov      *provenance
	provErr   error
	verifying chan struct{} // closed when the running verification ends
	// linMu serialises feeding verification into the lineage graph with
	// propagation; resolved says it was fed.
	linMu    sync.Mutex
	resolved bool
	// resolvedLabels are Labels' results once verification was fed in,
	// by tau and policy: the inspector's steps after "verified" (its own
	// labels, the defences, the summary, the replay graph) ask for the
	// same labelling, and each propagation is a pass over every entry.
	resolvedLabels map[labelKey][]lineage.Trust
	// heldCollisions are the entry id collisions of every row, once
	// LoadVerify has found them (LineageCollisions).
	heldCollisions atomic.Pointer[[]finding.Finding]
	// ghostFindings are the tombstone-claim findings of the last Resolve.
	ghostFindings []finding.Finding
}

// Open opens the snapshot and reads its small tables. Entries are read by
// Load, which is the slow part on big stores. The session's handle is the
// only one: verification, the provenance pass and Contents read through it
// (nothing reopens the path).
func Open(ctx context.Context, opts Options) (*Session, error) {
	snap, err := loader.OpenContext(ctx, opts.Snapshot)
	if err != nil {
		return nil, err
	}
	return OpenOn(ctx, opts, snap)
}

// OpenOn is Open on a snapshot handle the caller opened (a live one, for
// a monitor); the session owns it from here and closes it, also when
// OpenOn fails.
func OpenOn(ctx context.Context, opts Options, snap *loader.Snapshot) (*Session, error) {
	var err error
	s := &Session{Opts: opts, Snap: snap, Meta: snap.Meta, loadDone: make(chan struct{})}
	opened := false
	defer func() {
		if !opened {
			snap.Close()
		}
	}()
	for _, p := range snap.Problems() {
		s.LoadIssues = append(s.LoadIssues, string(p.Kind)+": "+p.Message)
	}
	if s.Opts.Title == "" {
		s.Opts.Title = opts.Snapshot
	}
	// The first frame must not wait for a count of every row: the seq
	// bounds are two index look-ups.
	s.estimate.Store(int64(estimateRows(ctx, snap, "entries", opts.Snapshot)))
	// A malformed row is skipped and listed; the other rows are kept.
	issue := func(err error) error {
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var re loader.RowErrors
		if errors.As(err, &re) {
			for _, e := range re {
				s.LoadIssues = append(s.LoadIssues, e.Error())
			}
			return nil
		}
		s.LoadIssues = append(s.LoadIssues, err.Error())
		return nil
	}
	s.Nodes, err = snap.Nodes(ctx)
	s.unreadNodes = unreadNodeRows(err)
	if err := issue(err); err != nil {
		return nil, err
	}
	s.Queries, err = snap.Queries(ctx)
	if err := issue(err); err != nil {
		return nil, err
	}
	s.Actions, err = snap.Actions(ctx)
	if err := issue(err); err != nil {
		return nil, err
	}
	s.GateEvents, err = snap.GateEvents(ctx)
	if err := issue(err); err != nil {
		return nil, err
	}
	s.Checkpoints, err = snap.Checkpoints(ctx)
	if err := issue(err); err != nil {
		return nil, err
	}
	err = snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		s.Principals++
		s.PrincipalLeaves = append(s.PrincipalLeaves, ClaimedLeaf{r.RID, r.LeafIndex})
		pe := PrincipalEvent{ID: r.RID, Op: r.Op, Principal: r.Principal, Channel: r.Channel, TS: r.TS, Leaf: r.LeafIndex}
		if r.Event != nil {
			pe.Op, pe.Principal, pe.Channel, pe.TS = r.Event.Op, r.Event.Principal, r.Event.Channel, int64(r.Event.TS)
		}
		s.PrincipalEvents = append(s.PrincipalEvents, pe)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = snap.EachTombstone(ctx, func(r *loader.TombstoneRow) error {
		s.Tombstones = append(s.Tombstones, r.Target)
		s.TombstoneLeaves = append(s.TombstoneLeaves, ClaimedLeaf{r.Target, r.LeafIndex})
		tr := TombstoneRec{Target: r.Target, Leaf: r.LeafIndex}
		if r.Tombstone != nil {
			tr.Writer, tr.Reason, tr.TS = r.Tombstone.Writer, r.Tombstone.Reason, int64(r.Tombstone.TS)
			if t := r.Tombstone; t.EntryTrust != nil {
				tr.Ghost = lineage.Ghost{Writer: t.EntryWriter, Recorded: *t.EntryTrust, Known: true}
			}
		}
		s.TombstoneRecs = append(s.TombstoneRecs, tr)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A million writes name a few kinds, relations and writers, and nodes
	// and sources many times over: each string is held once.
	srcs := map[record.ID]string{}
	s.writes = newWriteTable(estimateRows(ctx, snap, "writes", opts.Snapshot))
	var scratch []string
	err = snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		w := Write{ID: r.WID, Kind: r.Kind, Src: r.Src, Dst: r.Dst, Rel: r.Rel, Weight: r.Weight, Writer: r.Writer, TS: r.TS, Leaf: r.LeafIndex, Bad: r.DecodeErr}
		if r.Write != nil {
			w.Kind, w.Src, w.Dst, w.Rel, w.Weight, w.Writer, w.TS = r.Write.Kind, r.Write.Src, r.Write.Dst, r.Write.Rel, r.Write.Weight, r.Write.Writer, int64(r.Write.TS)
			scratch = scratch[:0]
			for _, id := range r.Write.Sources {
				str, ok := srcs[id]
				if !ok {
					str = id.String()
					srcs[id] = str
				}
				scratch = append(scratch, str)
			}
			w.Sources = scratch
		}
		s.writes.add(&w)
		return nil
	})
	if err != nil {
		return nil, err
	}
	opened = true
	return s, nil
}

// EntryCount returns the number of entry rows without loading them.
func (s *Session) EntryCount(ctx context.Context) (int, error) {
	return s.Snap.Count(ctx, "entries")
}

// minRowBytes bounds how many rows a file can hold: no entry or write row
// of the format (ids, a signed record) takes fewer bytes than this, so a
// hostile seq range cannot make an estimate that outgrows the file.
const minRowBytes = 64

// estimateRows is a table's row count as far as the seq bounds tell
// (seqs are distinct integers, so at most hi-lo+1), capped by what the
// file could hold; 0 when unknown. It sizes arrays and progress bars only:
// nothing is decided by it.
func estimateRows(ctx context.Context, snap *loader.Snapshot, table, path string) int {
	lo, hi, ok, err := snap.SeqBounds(ctx, table)
	if err != nil || !ok || hi < lo {
		return 0
	}
	n := uint64(hi-lo) + 1
	if st, err := os.Stat(path); err == nil {
		n = min(n, uint64(st.Size())/minRowBytes)
	} else {
		n = min(n, 1<<20)
	}
	return int(n)
}

// EntryTotal is the number of entry rows: Open's estimate while Load runs
// (the seq bounds; exact on a store the writer made), the rows read once
// it has finished.
func (s *Session) EntryTotal() int { return int(s.estimate.Load()) }

// EntryAt is entry row i, also while Load runs (for i < Loaded()).
func (s *Session) EntryAt(i int) Entry { return s.rows.Load().at(i) }

// HeldEntries is the number of entry rows held: every row once Load has
// finished, none after LoadLineage.
func (s *Session) HeldEntries() int { return s.rows.Load().len() }

// DefaultTau is the lineage threshold views use unless told otherwise: at 0
// every positive-weight derivation edge is strong.
const DefaultTau = 0.0

// Load reads every entry (decoding the signed bytes, without checking
// signatures) into the session's rows and builds the lineage graph.
// progress, when set, gets the number of rows read and the total; onEntry,
// when set, sees each entry before it is stored (from the loading
// goroutine, in row order; what it sets in Flags is kept). EntryAt(i) is
// complete once Loaded() > i, so other goroutines may read the rows loaded
// so far.
func (s *Session) Load(ctx context.Context, progress func(done, total int), onEntry ...func(i int, e *Entry)) error {
	if !s.loadStarted.CompareAndSwap(false, true) {
		return fmt.Errorf("inspect: Load called twice on %s", s.Opts.Snapshot)
	}
	err := s.load(ctx, progress, onEntry)
	s.loadErr = err
	close(s.loadDone)
	return err
}

// ensureLoaded loads the entries (when start is set and no Load has
// begun), or waits for the Load another goroutine runs.
func (s *Session) ensureLoaded(ctx context.Context, start bool) error {
	if start && s.loadStarted.CompareAndSwap(false, true) {
		err := s.load(ctx, nil, nil)
		s.loadErr = err
		close(s.loadDone)
		return err
	}
	select {
	case <-s.loadDone:
		return s.loadErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Session) load(ctx context.Context, progress func(done, total int), onEntry []func(i int, e *Entry)) error {
	l := s.newEntryLoader(progress, onEntry)
	if err := s.Snap.EachEntry(ctx, l.add); err != nil {
		return err
	}
	l.finish()
	return nil
}

// LoadLineage builds the lineage graph from one streaming read of the
// entries without keeping them: no row is held, so only what needs no
// entry row works afterwards (Labels, LineageSummary, GateAudit). It is
// for commands that ask lineage a store-wide question, which at a million
// entries would otherwise hold every content string and id. Verify, when
// wanted, runs before it, so the two working sets do not add up.
func (s *Session) LoadLineage(ctx context.Context) error {
	if !s.loadStarted.CompareAndSwap(false, true) {
		return fmt.Errorf("inspect: entries of %s already loaded", s.Opts.Snapshot)
	}
	err := s.loadLineage(ctx)
	s.loadErr = err
	close(s.loadDone)
	return err
}

func (s *Session) loadLineage(ctx context.Context) error {
	lin := lineage.NewBuilder(s.EntryTotal())
	n := 0
	err := s.Snap.EachEntry(ctx, func(r *loader.EntryRow) error {
		w := r.Writer
		if r.Entry != nil {
			w = r.Entry.Writer
		}
		addLineage(lin, r, w)
		n++
		return nil
	})
	if err != nil {
		return err
	}
	s.loaded.Store(int64(n))
	g := lin.Graph()
	s.mu.Lock()
	s.estimate.Store(int64(n))
	s.Lineage = g
	s.mu.Unlock()
	return nil
}

// addLineage adds an entry row to a lineage builder as lineageOf sees it,
// without turning the parent ids into text.
func addLineage(b *lineage.Builder, r *loader.EntryRow, writer string) {
	if r.Entry != nil {
		b.AddRecord(r.EID, writer, r.Entry.Trust, r.Entry.Parents, r.Entry.Weights)
		return
	}
	b.AddRecord(r.EID, writer, lineage.Trust(r.Trust), nil, nil)
}

// noteSeq records row n's seq: nothing while the seqs run consecutively
// from the first, the whole list from the first row that breaks the run.
func (s *Session) noteSeq(n int, seq int64) {
	// Only the loading goroutine writes seqLo and seqs, so it reads them
	// without the lock, and takes it only to change them (not at all
	// while the seqs run on).
	if n > 0 && s.seqs == nil && seq == s.seqLo+int64(n) {
		return
	}
	s.seqMu.Lock()
	defer s.seqMu.Unlock()
	switch {
	case n == 0:
		s.seqLo = seq
	case s.seqs != nil:
		s.seqs = append(s.seqs, seq)
	case seq != s.seqLo+int64(n):
		s.seqs = make([]int64, n, n+1)
		for i := range s.seqs {
			s.seqs[i] = s.seqLo + int64(i)
		}
		s.seqs = append(s.seqs, seq)
	}
}

func (s *Session) seqOf(i int) int64 {
	s.seqMu.RLock()
	defer s.seqMu.RUnlock()
	if s.seqs != nil {
		return s.seqs[i]
	}
	return s.seqLo + int64(i)
}

// Content is entry row i's content (the signed record's, as Load read
// it), read back from the snapshot under LazyContent.
func (s *Session) Content(ctx context.Context, i int) (string, error) {
	c, err := s.Contents(ctx, i, i+1)
	if err != nil {
		return "", err
	}
	return c[0], nil
}

// Contents is the content of entry rows from..to-1 (all loaded): one
// range scan of the seq index under LazyContent, the held strings
// otherwise. A row read back is matched by its seq and id, so a store
// whose seqs repeat still gets each row's own content; a row that cannot
// be matched again (the file would have had to change) is an error.
func (s *Session) Contents(ctx context.Context, from, to int) ([]string, error) {
	if from < 0 || to > s.Loaded() || from >= to {
		return nil, fmt.Errorf("inspect: content of rows %d..%d of %d loaded", from, to, s.Loaded())
	}
	out := make([]string, to-from)
	if !s.Opts.LazyContent {
		for i := range out {
			out[i] = s.EntryAt(from + i).Content
		}
		return out, nil
	}
	snap, err := s.pagerSnap(ctx)
	if err != nil {
		return nil, err
	}
	type key struct {
		seq int64
		id  string
	}
	want := make(map[key][]int, len(out))
	for i := range out {
		k := key{s.seqOf(from + i), s.EntryAt(from + i).ID}
		want[k] = append(want[k], i)
	}
	found := 0
	intern := func(w string) string { return w }
	err = snap.EntriesInSeqRange(ctx, s.seqOf(from), s.seqOf(to-1), func(r *loader.EntryRow) error {
		k := key{r.Seq, r.EID}
		if rows := want[k]; len(rows) > 0 {
			out[rows[0]] = entryOf(r, intern).Content
			want[k] = rows[1:]
			found++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if found != len(out) {
		return nil, fmt.Errorf("%s: %d of %d entry rows could not be read again", s.Opts.Snapshot, len(out)-found, len(out))
	}
	return out, nil
}

// pagerSnap is the handle Contents reads with: the session's one handle,
// whose connection pool grows while a whole-table scan holds a connection.
func (s *Session) pagerSnap(context.Context) (*loader.Snapshot, error) { return s.Snap, nil }

// lineageOf is the lineage view of an entry row: the signed record's
// fields when it decoded, the row's columns otherwise.
func lineageOf(r *loader.EntryRow, writer string) lineage.Entry {
	le := lineage.Entry{ID: r.EID, Writer: writer, Recorded: lineage.Trust(r.Trust), TS: r.TS}
	if r.Entry != nil {
		le.Recorded, le.TS = r.Entry.Trust, int64(r.Entry.TS)
		le.Parents = make([]string, len(r.Entry.Parents))
		for i, p := range r.Entry.Parents {
			le.Parents[i] = p.String()
		}
		le.Weights = r.Entry.Weights
	}
	return le
}

// Loaded is the number of entry rows read so far.
func (s *Session) Loaded() int { return int(s.loaded.Load()) }

// loadedGraph returns the lineage graph and the node-to-row map under the
// lock Load publishes them with (other goroutines may call Index while
// Load is still running).
func (s *Session) loadedGraph() (*lineage.Graph, []int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Lineage, s.rowOf
}

// Index maps an entry id to its row (after Load).
func (s *Session) Index(id string) (int, bool) {
	g, rowOf := s.loadedGraph()
	if g == nil {
		return 0, false
	}
	j, ok := g.Index(id)
	if !ok || rowOf == nil { // rowOf is nil after LoadLineage: no rows held
		return 0, false
	}
	return int(rowOf[j]), true
}

// RowOf maps a lineage node index to its entry row (after Load).
func (s *Session) RowOf(node int) int {
	_, rowOf := s.loadedGraph()
	return int(rowOf[node])
}

// Verify runs the integrity verification once and caches the report.
// Concurrent callers share one run: the others wait for it (or for their
// own ctx). A run that fails is not cached; the next call tries again.
func (s *Session) Verify(ctx context.Context, progress func(done, total int)) (*verify.Report, error) {
	for {
		s.mu.Lock()
		if r := s.report; r != nil {
			s.mu.Unlock()
			return r, nil
		}
		if wait := s.verifying; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		s.verifying = done
		s.mu.Unlock()

		rep, err := verify.Run(ctx, s.verifyOptions(progress))
		s.endVerify(done, rep, err)
		if err != nil {
			return nil, err
		}
		return rep, nil
	}
}

// Report returns the verification report if Verify has run.
func (s *Session) Report() *verify.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.report
}

// Close releases the snapshot.
func (s *Session) Close() error {
	return s.Snap.Close()
}

func (s *Session) lineageActions() []lineage.Action {
	out := make([]lineage.Action, len(s.Actions))
	for i, a := range s.Actions {
		out[i] = lineage.Action{ID: a.ID, Tool: a.Tool, Params: a.Params, Justification: a.Justification, Dispatched: a.Dispatched, TS: a.TS}
	}
	return out
}

func (s *Session) needLoaded() error {
	if g, _ := s.loadedGraph(); g == nil {
		return fmt.Errorf("inspect: entries not loaded")
	}
	return nil
}
