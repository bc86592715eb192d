package assemble

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// The provenance pass labels replay's edges without verifying or loading
// every entry. A write's label reads its own signature and writer (every
// write is checked), the registry (applied in full), and the trust of the
// entries it cites as sources, which closure min-inheritance takes from
// their ancestors; a passage's label reads its entry's signature and
// writer. So the pass checks the writes, the registry, and only the cited
// sources, their ancestors and the passages' entries, with verify's own
// checks (verify.Provenance) and lineage's own propagation over that
// ancestor-closed subgraph (labels flow from parents to children only, so
// they are the labels the whole graph gives those entries).
//
// Where the subset cannot decide as the full path would, the pass declines
// (errNeedFull) and the caller loads and verifies everything: an entry row
// whose id or leaf cannot be read, an id the store holds twice, or an
// ancestor deleted by a tombstone (whether the deletion was lawful depends
// on cross-record checks over the whole store).

// errNeedFull says the provenance pass cannot decide a label as the full
// path would; the reason follows.
var errNeedFull = errors.New("the provenance pass needs the full verification")

// keyRow is one entry row's id and claimed leaf.
type keyRow struct {
	id   record.ID
	seq  int64
	leaf int64
}

// entryTable maps entry ids to their rows: a sorted array of 32-byte rows
// instead of a map of strings, so a million entries cost 32 MB.
type entryTable struct {
	rows []keyRow
	// odd holds rows whose id is not a canonical record id (they still
	// exist as rows and may be named as parents or sources).
	odd map[string][]keyRow
}

func cmpKey(a, b keyRow) int { return bytes.Compare(a.id[:], b.id[:]) }

func readEntryTable(ctx context.Context, snap *loader.Snapshot, rows int) (*entryTable, error) {
	lo, hi, ok, err := snap.SeqBounds(ctx, "entries")
	if err != nil || !ok {
		return &entryTable{odd: map[string][]keyRow{}}, err
	}
	// Two halves by seq on two connections: the scan is the one pass over
	// every row, and the log read beside it leaves a core partly idle.
	// Both fill one array of the counted size, the first half from the
	// front and the second from the back, so the table is held once.
	mid := lo + (hi-lo)/2
	all := make([]keyRow, rows)
	var used atomic.Int64
	claim := func() bool { return used.Add(1) <= int64(len(all)) }
	var front, back int
	odd := [2]map[string][]keyRow{{}, {}}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		errs[0] = readEntryRange(ctx, snap, lo, mid, odd[0], func(r keyRow) bool {
			if !claim() {
				return false
			}
			all[front] = r
			front++
			return true
		})
	}()
	go func() {
		defer wg.Done()
		errs[1] = readEntryRange(ctx, snap, mid+1, hi, odd[1], func(r keyRow) bool {
			if !claim() {
				return false
			}
			back++
			all[len(all)-back] = r
			return true
		})
	}()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// The back half went in last row first: turn it round and close the
	// gap the non-canonical ids left.
	tail := all[len(all)-back:]
	slices.Reverse(tail)
	copy(all[front:], tail)
	t := &entryTable{rows: all[:front+back], odd: odd[0]}
	for id, rs := range odd[1] {
		t.odd[id] = append(t.odd[id], rs...)
	}
	slices.SortStableFunc(t.rows, cmpKey)
	return t, nil
}

// readEntryRange reads the id and leaf of the rows lo <= seq <= hi: a
// canonical id goes to add, any other to odd. add refuses a row when the
// table holds more rows than were counted (the file changed while open).
func readEntryRange(ctx context.Context, snap *loader.Snapshot, lo, hi int64, odd map[string][]keyRow, add func(keyRow) bool) error {
	return snap.EachEntryKeyRange(ctx, lo, hi, func(k loader.EntryKey) error {
		if k.Err != nil {
			return fmt.Errorf("%w: %v", errNeedFull, k.Err)
		}
		id, ok := record.CanonicalID(k.EID)
		if !ok {
			odd[k.EID] = append(odd[k.EID], keyRow{seq: k.Seq, leaf: k.Leaf})
			return nil
		}
		if !add(keyRow{id: id, seq: k.Seq, leaf: k.Leaf}) {
			return fmt.Errorf("%w: more entry rows than counted: the file changed while open", errNeedFull)
		}
		return nil
	})
}

// lookup returns the rows whose id column is eid.
func (t *entryTable) lookup(eid string) []keyRow {
	id, ok := record.CanonicalID(eid)
	if !ok {
		return t.odd[eid]
	}
	i, ok := slices.BinarySearchFunc(t.rows, keyRow{id: id}, cmpKey)
	if !ok {
		return nil
	}
	j := i
	for j < len(t.rows) && t.rows[j].id == id {
		j++
	}
	return t.rows[i:j]
}

// provenance is the outcome of the pass.
type provenance struct {
	rep *verify.Report // partial: see verify.Provenance
	// g holds the cited sources, the passages' entries and every ancestor
	// of them; labels are its labels at DefaultTau, fail-open.
	g      *lineage.Graph
	labels []lineage.Trust
	// entries are the closure's entries by id (each id has one row).
	entries map[string]*Entry
	// ordering are the entries that can decide where a query falls among
	// the writes in the timeline (see asRanEntries), in row order.
	ordering []Entry
	// orderingLater: ordering was not read (passOrdering reads it).
	orderingLater bool
}

// provenancePass runs the pass once per session; concurrent callers share
// it.
func (s *Session) provenancePass(ctx context.Context) (*provenance, error) {
	s.provMu.Lock()
	defer s.provMu.Unlock()
	if s.prov != nil || s.provErr != nil {
		return s.prov, s.provErr
	}
	p, err := s.runProvenance(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, err // cancelled: let a later call try again
	}
	s.prov, s.provErr = p, err
	return p, err
}

func (s *Session) runProvenance(ctx context.Context) (*provenance, error) {
	if s.Snap.Refused("entries") != "" {
		return nil, fmt.Errorf("%w: the entries table is refused", errNeedFull)
	}
	// The registry and the writes' signatures on one core, the scan of
	// the entries' ids on the other (none when they are found by index).
	var table *entryTable
	var tableErr error
	scanned := make(chan struct{})
	if s.Opts.EntriesByIndex {
		close(scanned)
	} else {
		go func() {
			defer close(scanned)
			table, tableErr = readEntryTable(ctx, s.Snap, s.EntryTotal())
		}()
	}
	pv, err := verify.OpenProvenance(ctx, verify.Options{Snapshot: s.Opts.Snapshot, Snap: s.Snap, Log: s.Opts.Log, LogKey: s.Opts.LogKey, LogOptions: s.Opts.LogOptions,
		TrustRoots: s.Opts.TrustRoots, HMACKey: s.Opts.HMACKey, SkipEntryCount: s.Opts.EntriesByIndex, RegistryAtClaimedLeaves: s.Opts.EntriesByIndex})
	<-scanned
	if err != nil {
		return nil, err
	}
	if tableErr != nil {
		return nil, tableErr
	}
	p := &provenance{rep: pv.Report(), entries: map[string]*Entry{}}
	// The roots: every cited source and every passage's entry, each once
	// in order of first mention (a million writes cite a few thousand).
	var frontier []string
	queued := map[string]bool{}
	root := func(id string) {
		if !queued[id] {
			queued[id] = true
			frontier = append(frontier, id)
		}
	}
	for i := range s.WriteCount() {
		s.writes.sources(i, root)
	}
	for _, n := range s.Nodes {
		if n.EID != "" {
			root(n.EID)
		}
	}
	queued = nil
	seen := map[string]bool{}
	var lin []lineage.Entry
	var linSeq []int64
	writers := map[string]string{}
	for len(frontier) > 0 {
		var next []string
		err := s.frontierRows(ctx, table, frontier, seen, func(r *loader.EntryRow) error {
			if r.DecodeErr != nil && errors.Is(r.DecodeErr, loader.ErrRow) {
				return fmt.Errorf("%w: %v", errNeedFull, r.DecodeErr)
			}
			pv.CheckEntry(r)
			pv.CheckInclusion(r)
			e := entryOf(r, internIn(writers))
			p.entries[r.EID] = &e
			le := lineageOf(r, e.Writer)
			lin, linSeq = append(lin, le), append(linSeq, r.Seq)
			next = append(next, le.Parents...)
			return nil
		})
		if err != nil {
			return nil, err
		}
		frontier = next
	}
	if pv.Undecided() {
		return nil, fmt.Errorf("%w: a record's leaf is not proved where its row places it (no leaf claimed, beyond the tree, or a tile that does not prove it), which only the full verification decides", errNeedFull)
	}
	// Lineage builds in row order, as Load feeds it.
	order := make([]int, len(lin))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(linSeq[a], linSeq[b]) })
	sorted := make([]lineage.Entry, len(lin))
	for i, j := range order {
		sorted[i] = lin[j]
	}
	p.g = lineage.Build(sorted)
	// A parent outside the store is missing, unless a tombstone deleted it:
	// whether that deletion was lawful takes the whole store to decide.
	tomb := map[string]bool{}
	for _, t := range s.TombstoneRecs {
		tomb[t.Target] = true
	}
	for i := 0; i < p.g.Len(); i++ {
		ids, _ := p.g.MissingParents(i)
		for _, id := range ids {
			if tomb[id] {
				return nil, fmt.Errorf("%w: entry %s descends from %s, which a tombstone deleted", errNeedFull, p.g.ID(i), id)
			}
		}
	}
	p.g.Resolve(unverifiedEntries(p.rep), nil)
	if p.labels, err = p.g.Propagate(s.propagateOptions(DefaultTau, false)); err != nil {
		return nil, err
	}
	if table == nil {
		p.orderingLater = true // read when a timeline asks (passOrdering)
	} else if p.ordering, err = s.asRanEntries(ctx, table); err != nil {
		return nil, err
	}
	return p, nil
}

// frontierRows reads the entry rows of the ids of frontier not yet seen
// (marking them seen), in batches, by the scanned table's seqs or, when
// table is nil (Options.EntriesByIndex), by the UNIQUE eid index. An id
// held by two rows, or a row that is not one asked for (it changed while
// read, or the index matched another spelling), makes the pass decline.
func (s *Session) frontierRows(ctx context.Context, table *entryTable, frontier []string, seen map[string]bool, fn func(*loader.EntryRow) error) error {
	want := map[string]int{}
	var ids []string
	var seqs []int64
	for _, id := range frontier {
		if seen[id] {
			continue
		}
		seen[id] = true
		want[id] = 0
		if table == nil {
			ids = append(ids, id)
			continue
		}
		rows := table.lookup(id)
		if len(rows) > 1 {
			return fmt.Errorf("%w: entry id \"%s\" is held by %d rows", errNeedFull, id, len(rows))
		}
		for _, r := range rows {
			seqs = append(seqs, r.seq)
		}
	}
	check := func(r *loader.EntryRow) error {
		n, ok := want[r.EID]
		if !ok {
			return fmt.Errorf("%w: entry row seq %d changed while read", errNeedFull, r.Seq)
		}
		if n > 0 {
			return fmt.Errorf("%w: entry id \"%s\" is held by more than one row", errNeedFull, r.EID)
		}
		want[r.EID] = n + 1
		return fn(r)
	}
	if table == nil {
		if err := s.Snap.EntriesByID(ctx, ids, check); err != nil {
			return err
		}
		return s.unfoundByIndex(want)
	}
	return s.Snap.EntriesBySeq(ctx, seqs, check)
}

// unfoundByIndex makes the pass decline when an id it looked up by the
// eid index (want: rows found per id) has no row. The index finds a row
// only by an exact text match, so a row whose id cell is stored
// otherwise (a blob, say) or an index that does not match its table would
// hide a row the scan of the table sees; whether such an id is missing
// takes that scan. A tombstone row naming the id does not excuse it: the
// table's target column is not the signed record, and a forged one beside
// a blob id would make this pass drop an entry the scan keeps.
func (s *Session) unfoundByIndex(want map[string]int) error {
	for id, n := range want {
		if n == 0 {
			return fmt.Errorf("%w: no row of entry \"%s\" was found by the eid index", errNeedFull, id)
		}
	}
	return nil
}

// passOrdering is the pass's ordering entries (asRanEntries), read now
// when the pass found its entries by index and left them for later.
func (s *Session) passOrdering(ctx context.Context, p *provenance) ([]Entry, error) {
	if !p.orderingLater {
		return p.ordering, nil
	}
	table, err := readEntryTable(ctx, s.Snap, s.EntryTotal())
	if err != nil {
		return nil, err
	}
	return s.asRanEntries(ctx, table)
}

// asRanEntries reads the entries that can change where a query falls among
// the writes. The timeline places a query (which has no leaf) before the
// first logged event recorded later than it; so whether a write precedes a
// query depends only on the times of the logged events up to that write.
// An entry logged after every write changes no such order, and an entry
// without a leaf is placed by time and changes none either.
func (s *Session) asRanEntries(ctx context.Context, table *entryTable) ([]Entry, error) {
	last := int64(-1)
	for i := range s.WriteCount() {
		last = max(last, s.WriteLeaf(i))
	}
	var seqs []int64
	add := func(r keyRow) {
		if r.leaf >= 0 && r.leaf <= last {
			seqs = append(seqs, r.seq)
		}
	}
	for _, r := range table.rows {
		add(r)
	}
	for _, rs := range table.odd {
		for _, r := range rs {
			add(r)
		}
	}
	var out []Entry
	writers := map[string]string{}
	err := s.Snap.EntriesBySeq(ctx, seqs, func(r *loader.EntryRow) error {
		out = append(out, entryOf(r, internIn(writers)))
		return nil
	})
	return out, err
}

// internIn interns writer names in m: a million rows share a few writers.
func internIn(m map[string]string) func(string) string {
	return func(w string) string {
		if v, ok := m[w]; ok {
			return v
		}
		m[w] = w
		return w
	}
}

// entryOf is the in-memory summary of an entry row: the signed record's
// fields when it decoded, the row's columns otherwise.
func entryOf(r *loader.EntryRow, intern func(string) string) Entry {
	e := Entry{ID: r.EID, Writer: intern(r.Writer), Recorded: record.Trust(r.Trust), TS: r.TS, Content: r.Content, Leaf: r.LeafIndex, DecodeErr: r.DecodeErr}
	if r.Entry != nil {
		e.Writer, e.Recorded, e.TS, e.Content = intern(r.Entry.Writer), r.Entry.Trust, int64(r.Entry.TS), r.Entry.Content
	}
	return e
}

// view is the provenance view replay's labels read.
func (p *provenance) view() provenanceView {
	return provenanceView{
		rep: p.rep,
		writer: func(eid string) (string, int64, bool) {
			e, ok := p.entries[eid]
			if !ok {
				return "", 0, false
			}
			return e.Writer, e.Leaf, true
		},
		source: sourceProblems(p.g, p.labels, p.rep),
	}
}

// PassageEntry is the entry a passage shows as the provenance pass read it
// (before Load has reached it); false when the pass has not run or did not
// read it.
func (s *Session) PassageEntry(eid string) (Entry, bool) {
	s.provMu.Lock()
	defer s.provMu.Unlock()
	if s.prov == nil {
		return Entry{}, false
	}
	e, ok := s.prov.entries[eid]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}
