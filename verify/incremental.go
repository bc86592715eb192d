package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// NewLeaves is what a monitor's round proved before it looks at the
// store: the checkpoint it verified (Size, Root) and the leaves [From,
// Size) it read and proved into Root, each leaf's bytes in Leaves.
type NewLeaves struct {
	From, Size uint64
	Root       []byte
	Leaves     [][]byte
	// Log is the reader the round proved them with (its tiles are then
	// read once); nil: CheckNew opens opts.Log and reads its checkpoint.
	Log *tlog.Reader
}

// Marks are, per record table CheckNew reads (MarkTables), the largest
// seq whose row a round has checked: the rows a store appends after it
// are the rows with a larger seq. A missing table means "every row".
type Marks map[string]int64

// MarkTables are the tables CheckNew finds new rows of.
var MarkTables = []string{"entries", "writes", "tombstones", "principals"}

// NewCheck is the outcome of CheckNew.
type NewCheck struct {
	// Report holds the findings of the checks, as Run reports them for the
	// same records (Report.Partial is false, but the report covers only
	// the records NewCheck names: it is never shown as a verification).
	Report *Report
	// HeldBack names, with a RECORD_NOT_IN_LOG finding each, the rows that
	// claim a leaf at or beyond Size: they are left for the round whose
	// checkpoint covers them.
	HeldBack []finding.Finding
	// Marks are the marks the next round starts from: past every row
	// checked here, before the first held-back row.
	Marks Marks
	// NewWrites are the ids of the structural writes checked (new leaves
	// or new rows); NewTombstones and NewPrincipals count the other rows
	// that change what replay's graph is.
	NewWrites     []string
	NewTombstones int
	NewPrincipals int
	// EventLeaves counts new event leaves (queries, actions, gate events,
	// nodes, configuration): their rows are not checked here.
	EventLeaves int
	// UnknownTargetsUnchecked counts new tombstones whose target has
	// neither a row nor a leaf among those read: whether it ever existed
	// takes the whole log (memscope verify).
	UnknownTargetsUnchecked int
	// Checked counts the record rows checked; Context the rows read only
	// as context (parents, sources, tombstone targets, the registry).
	Checked, Context int
}

// maxNewRows bounds the rows one CheckNew holds: past it the caller falls
// back to the whole-store check.
const maxNewRows = 1 << 20

// ErrTooManyNew says CheckNew met more new rows than it holds.
var ErrTooManyNew = errors.New("more new rows than an incremental check holds")

// ErrUnclaimed says a registry row names no leaf and its event is not on
// a new leaf: keys are valid by the log order of the registry events, and
// where that event is in the log (Run looks every id up) takes reading
// the whole log. memscope's writer gives every row its leaf. (An entry,
// write or tombstone row in that state is RECORD_NOT_IN_LOG, as Run
// reports a row whose record is on no leaf.)
var ErrUnclaimed = errors.New("a registry row names no leaf, and its event is not among the new leaves: its log position takes the whole log")

// CheckNew checks the records of a round's new leaves and the rows a
// store appended since marks, with the per-record checks Run applies
// (checkEntry, checkWrite, checkTombstone, registryEvent and the parent
// and tombstone cross-checks), reading through opts.Snap (required; a
// live handle, loader.OpenLive) only:
//   - the rows whose id a new leaf carries, by the UNIQUE id indexes;
//   - the rows with seq past marks (rows that claim an older leaf, a
//     leaf the log does not have, or none);
//   - the registry (every principals row: keys are valid by log order);
//   - the parents and sources those rows name, and tombstones of them.
//
// A leaf a row claims outside the new range counts only once an
// inclusion proof of the row's record at that leaf verifies against Root
// (logarithmic); the leaf table then holds the new leaves and such proved
// claims, never the whole log. What this cannot see: a record id carried
// by two leaves (Run's DUPLICATE_ID), a tombstone whose target left no
// row (UnknownTargetsUnchecked), writers' clocks across older records,
// and any change to a row older than marks. memscope verify checks those.
func CheckNew(ctx context.Context, opts Options, nl NewLeaves, marks Marks) (*NewCheck, error) {
	if opts.Snap == nil {
		return nil, errors.New("verify: CheckNew needs an open snapshot")
	}
	if nl.Size < nl.From || uint64(len(nl.Leaves)) != nl.Size-nl.From || nl.Size > math.MaxUint32 {
		return nil, fmt.Errorf("verify: %d leaves for the range [%d, %d)", len(nl.Leaves), nl.From, nl.Size)
	}
	r := nl.Log
	if r == nil {
		var err error
		if r, err = tlog.OpenWith(ctx, opts.Log, opts.LogOptions); err != nil {
			return nil, err
		}
		// The reader proves nothing beyond the checkpoint it read.
		if _, err := r.Checkpoint(ctx); err != nil {
			return nil, err
		}
	}
	v := newVerifier(ctx, opts, opts.Snap, nil)
	v.incremental, v.newFrom = true, nl.From
	v.log, v.size, v.root, v.logOK = r, nl.Size, nl.Root, true
	v.rep.TreeSize, v.rep.RootHash, v.rep.LogChecked = nl.Size, nl.Root, true
	v.seenLeaf = make(leafBits, (nl.Size+63)/64)
	scan := &leafScan{v: v}
	for i, data := range nl.Leaves {
		scan.leaf(nl.From+uint64(i), data)
	}
	nc := &NewCheck{Marks: Marks{}, EventLeaves: v.eventLeaves + v.importNoteLeaves}
	in := &newRows{v: v, nc: nc, known: map[record.ID]bool{}}
	for _, ref := range v.leafByID {
		in.known[ref.id] = true
	}
	if err := in.read(ctx, marks); err != nil {
		return nil, err
	}
	v.leafByID.sort()
	in.check()
	nc.UnknownTargetsUnchecked = v.unknownTargetsUnchecked
	nc.Report = v.finish()
	nc.Report.Partial = false
	return nc, nil
}

// newRows gathers what CheckNew reads before it checks anything: the
// leaf table must be complete (sorted once) before the first lookup.
type newRows struct {
	v     *verifier
	nc    *NewCheck
	known map[record.ID]bool // ids already in the leaf table

	principals []*loader.PrincipalRow
	entries    []*loader.EntryRow
	writes     []*loader.WriteRow
	tombstones []*loader.TombstoneRow
	context    []*loader.EntryRow // parents, sources, targets
	seen       map[string]map[int64]bool
	readIDs    map[string]bool // "table key" of every row read
	// before are the marks the round starts from; maxSeq the largest seq
	// read past them and minHeld the smallest held back, per table.
	before, maxSeq, minHeld map[string]int64
}

// read fills the row lists and the leaf table.
func (in *newRows) read(ctx context.Context, marks Marks) error {
	v, snap := in.v, in.v.snap
	in.seen, in.readIDs = map[string]map[int64]bool{}, map[string]bool{}
	in.before, in.maxSeq, in.minHeld = map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, t := range MarkTables {
		in.seen[t] = map[int64]bool{}
		in.before[t] = markOf(marks, t)
	}
	if err := snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		in.principals = append(in.principals, r)
		if r.Event != nil {
			in.claim(r.Event.RID, record.RecordLeaf(r.Event.RID, r.Event.Sig), r.LeafIndex)
		}
		if cur, ok := in.maxSeq["principals"]; r.Seq > in.before["principals"] {
			in.nc.NewPrincipals++
			if !ok || r.Seq > cur {
				in.maxSeq["principals"] = r.Seq
			}
		}
		return nil
	}); err != nil {
		return err
	}
	// The rows the new leaves name, by id.
	var recIDs, tombTargets []string
	for _, ref := range v.leafByID {
		if _, ev := v.eventLeafKind[uint64(ref.index)]; !ev && uint64(ref.index) >= v.newFrom {
			recIDs = append(recIDs, ref.id.String())
		}
	}
	for id := range v.tombLeaves {
		tombTargets = append(tombTargets, id.String())
	}
	slices.Sort(tombTargets)
	if err := in.readRows(ctx, recIDs, tombTargets); err != nil {
		return err
	}
	if err := in.unclaimed(); err != nil {
		return err
	}
	return in.readContext(ctx)
}

// unclaimed refuses a registry CheckNew cannot order (ErrUnclaimed).
func (in *newRows) unclaimed() error {
	for _, r := range in.principals {
		if r.Event != nil && r.LeafIndex < 0 && !in.known[r.Event.RID] {
			return fmt.Errorf("%w (principal %s)", ErrUnclaimed, r.RID)
		}
	}
	return nil
}

func markOf(marks Marks, table string) int64 {
	if m, ok := marks[table]; ok {
		return m
	}
	return math.MinInt64
}

// readRows reads the new leaves' rows and the rows past marks, once each,
// holding back those that claim a leaf the checkpoint does not cover.
func (in *newRows) readRows(ctx context.Context, recIDs, tombTargets []string) error {
	snap := in.v.snap
	var bySeq bool
	entry := func(r *loader.EntryRow) error {
		in.readIDs["entries "+r.EID] = true
		if in.take("entries", r.Seq, r.LeafIndex, bySeq) {
			in.entries = append(in.entries, r)
			if r.Entry != nil {
				in.claim(r.Entry.EID, record.RecordLeaf(r.Entry.EID, r.Entry.Sig), r.LeafIndex)
			}
		}
		return in.bound()
	}
	write := func(r *loader.WriteRow) error {
		in.readIDs["writes "+r.WID] = true
		if in.take("writes", r.Seq, r.LeafIndex, bySeq) {
			in.writes = append(in.writes, r)
			if r.Write != nil {
				in.claim(r.Write.WID, record.RecordLeaf(r.Write.WID, r.Write.Sig), r.LeafIndex)
			}
		}
		return in.bound()
	}
	tomb := func(r *loader.TombstoneRow) error {
		in.readIDs["tombstones "+r.Target] = true
		if in.take("tombstones", r.Seq, r.LeafIndex, bySeq) {
			in.tombstones = append(in.tombstones, r)
			in.claimTombstone(r)
		}
		return in.bound()
	}
	// The rows past the marks first, then by id the rows the new leaves
	// name that were not among them (rows committed before an earlier
	// round): each row is read once.
	bySeq = true
	for _, step := range []func() error{
		func() error { return snap.EntriesAfter(ctx, in.before["entries"], entry) },
		func() error { return snap.WritesAfter(ctx, in.before["writes"], write) },
		func() error { return snap.TombstonesAfter(ctx, in.before["tombstones"], tomb) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	bySeq = false
	unread := func(table string, ids []string) []string {
		return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return in.readIDs[table+" "+id] })
	}
	for _, step := range []func() error{
		func() error { return snap.EntriesByID(ctx, unread("entries", recIDs), entry) },
		func() error { return snap.WritesByID(ctx, unread("writes", recIDs), write) },
		func() error { return snap.TombstonesByTarget(ctx, unread("tombstones", tombTargets), tomb) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	in.nextMarks()
	return nil
}

// bound stops a read that would hold more rows than maxNewRows.
func (in *newRows) bound() error {
	if len(in.entries)+len(in.writes)+len(in.tombstones) > maxNewRows {
		return ErrTooManyNew
	}
	return nil
}

// take says whether a row is to be checked: not seen before in this
// round and, for a row found past its table's mark (bySeq), claiming no
// leaf at or past the checkpoint. Such a row is held back (named in
// HeldBack) for the round whose checkpoint covers it.
func (in *newRows) take(table string, seq, leaf int64, bySeq bool) bool {
	if in.seen[table][seq] {
		return false
	}
	in.seen[table][seq] = true
	if cur, ok := in.maxSeq[table]; seq > in.before[table] && (!ok || seq > cur) {
		in.maxSeq[table] = seq
	}
	if bySeq && leaf >= 0 && uint64(leaf) >= in.v.size {
		in.nc.HeldBack = append(in.nc.HeldBack, finding.New(finding.RecordNotInLog, fmt.Sprintf("%s row at leaf %d", table, leaf),
			fmt.Sprintf("a row of %s claims leaf %d, which the verified checkpoint does not cover yet: the round checks the store without it", table, leaf)))
		if h, ok := in.minHeld[table]; !ok || seq < h {
			in.minHeld[table] = seq
		}
		return false
	}
	return true
}

// nextMarks are the marks after this round: past every row read, but
// before the first held-back one, so the round whose checkpoint covers it
// reads it (and those after it) again.
func (in *newRows) nextMarks() {
	for _, t := range MarkTables {
		m := in.before[t]
		if s, ok := in.maxSeq[t]; ok && s > m {
			m = s
		}
		if h, ok := in.minHeld[t]; ok {
			m = min(m, h-1)
		}
		in.nc.Marks[t] = m
	}
}

// claim adds the leaf a row claims for its record to the leaf table when
// the record is not already there and the claim proves.
func (in *newRows) claim(id record.ID, leaf []byte, index int64) {
	if in.known[id] || !in.proves(leaf, index) {
		return
	}
	in.known[id] = true
	in.v.leafByID = append(in.v.leafByID, leafRef{id, uint32(index)})
}

// claimTombstone is claim for a tombstone's ts: leaf.
func (in *newRows) claimTombstone(r *loader.TombstoneRow) {
	v := in.v
	if r.Tombstone == nil {
		return
	}
	t := r.Tombstone.Target
	if _, ok := v.tombLeaves[t]; ok || !in.proves(append([]byte(record.TombstonePrefix), r.Raw...), r.LeafIndex) {
		return
	}
	v.tombLeaves[t] = uint64(r.LeafIndex)
	v.tombLeafData[t] = r.Raw
}

// proves says whether leaf is the log's leaf at index: an inclusion proof
// of it verifies against the round's root.
func (in *newRows) proves(leaf []byte, index int64) bool {
	v := in.v
	if index < 0 || uint64(index) >= v.size {
		return false
	}
	ok, err := v.log.CheckLeaf(v.ctx, rfc6962.DefaultHasher.HashLeaf(leaf), uint64(index), v.size, v.root)
	return err == nil && ok
}

// readContext reads the entries the new rows name (parents, sources,
// tombstone targets) and the tombstones of any of them.
func (in *newRows) readContext(ctx context.Context) error {
	snap := in.v.snap
	have := map[string]bool{}
	for _, r := range in.entries {
		have[r.EID] = true
	}
	want := map[string]bool{}
	for _, r := range in.entries {
		if r.Entry != nil {
			for _, p := range r.Entry.Parents {
				want[p.String()] = true
			}
		}
	}
	for _, r := range in.writes {
		if r.Write != nil {
			for _, s := range r.Write.Sources {
				want[s.String()] = true
			}
		}
	}
	for _, r := range in.tombstones {
		if r.Tombstone != nil {
			want[r.Tombstone.Target.String()] = true
		}
	}
	var ids, all []string
	for id := range want {
		all = append(all, id)
		if !have[id] {
			ids = append(ids, id)
		}
	}
	for id := range have {
		all = append(all, id)
	}
	slices.Sort(ids)
	slices.Sort(all)
	if err := snap.EntriesByID(ctx, ids, func(r *loader.EntryRow) error {
		in.context = append(in.context, r)
		if r.Entry != nil {
			in.claim(r.Entry.EID, record.RecordLeaf(r.Entry.EID, r.Entry.Sig), r.LeafIndex)
		}
		return nil
	}); err != nil {
		return err
	}
	// A parent or source deleted by a tombstone is not missing.
	return snap.TombstonesByTarget(ctx, all, func(r *loader.TombstoneRow) error {
		if r.Tombstone != nil && r.Tombstone.Target.String() == r.Target {
			in.v.tombstoned[r.Tombstone.Target] = true
		}
		return nil
	})
}

// check runs the per-record checks on the rows read, in Run's phase
// order, then the cross-checks that concern them.
func (in *newRows) check() {
	v, nc := in.v, in.nc
	v.applyRegistry(in.principals, v.registryRoots())
	nc.Context = len(in.principals) + len(in.context)
	for _, r := range in.tombstones {
		v.rep.Tombstones++
		v.rep.Records++
		v.checkTombstone(r)
	}
	nc.NewTombstones = len(in.tombstones)
	v.entryIDs = newEntrySet(v.logPos, v.size)
	// The checked entries and the entries they cite, for the entry set
	// and for the cross-checks below.
	withContext := append(slices.Clone(in.entries), in.context...)
	for _, r := range withContext {
		if id, err := record.ParseID(r.EID); err == nil {
			v.entryIDs.add(id)
		}
	}
	v.entryIDs.sort()
	for _, r := range in.entries {
		v.rep.entries.add(r.EID)
		v.rep.Entries++
		v.rep.Records++
	}
	// On every worker, as Run checks them.
	_ = fanOutBatches(v.opts.Workers, each(in.entries), v.checkEntries, nil)
	v.resolveParentsLater()
	for _, r := range in.writes {
		v.rep.Edges++
		v.rep.Records++
		nc.NewWrites = append(nc.NewWrites, r.WID)
	}
	_ = fanOut(v.opts.Workers, each(in.writes), v.checkWrite, nil)
	nc.Checked = len(in.entries) + len(in.writes) + len(in.tombstones)
	v.orphanLeaves()
	// Parent order and tombstone authority over the checked rows and
	// their context (Run's general path, on these facts only).
	for _, r := range withContext {
		if e := r.Entry; e != nil {
			v.addGeneralFact(fact{id: e.EID, subject: "entry " + r.EID, writer: e.Writer, ts: e.TS, trust: e.Trust, entry: true, parents: e.Parents})
		}
	}
	for _, r := range in.writes {
		if w := r.Write; w != nil {
			v.addGeneralFact(fact{id: w.WID, subject: "write " + r.WID, writer: w.Writer, ts: w.TS})
		}
	}
	facts, byID := v.sortedFacts()
	v.crossParents(facts, byID)
	v.crossTombstones(byID)
}

// each streams a slice to fanOut.
func each[T any](rows []T) func(yield func(T) error) error {
	return func(yield func(T) error) error {
		for _, r := range rows {
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
}
