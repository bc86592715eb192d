package verify

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/bigslice"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"golang.org/x/mod/sumdb/note"
)

// verifyTileCache is the tile cache of Run's log reader (about 4 MB).
const verifyTileCache = 256

func (v *verifier) openLog(ctx context.Context, lv note.Verifier) error {
	return v.readLog(ctx, lv, true, nil)
}

// readLog reads the published checkpoint and the leaves. With check, the
// tiles are checked against the checkpoint (Run always does). keep, when
// set, limits the leaf table to the record ids it accepts (the provenance
// pass needs only the registry's); tombstone leaves are always kept.
func (v *verifier) readLog(ctx context.Context, lv note.Verifier, check bool, keep func(record.ID) bool) error {
	r, cp, err := v.logCheckpoint(ctx, lv, check)
	if err != nil || cp == nil {
		return err
	}
	v.readLeaves(ctx, r, cp, check, keep)
	return nil
}

// readLeaves is readLog's read of the leaves up to cp, from r as
// logCheckpoint opened it.
func (v *verifier) readLeaves(ctx context.Context, r *tlog.Reader, cp *tlog.Checkpoint, check bool, keep func(record.ID) bool) {
	if keep == nil {
		// Sized once and kept outside the heap (bigslice): growing a
		// 10M-leaf table by appends would hold the old and the new array
		// at once, and on the heap the collector lets as much garbage pile
		// up again.
		v.seenLeaf = bigslice.Make[uint64](v.arena, int(cp.Size+63)/64)
		v.leafByID = bigslice.Make[leafRef](v.arena, int(cp.Size))[:0]
		v.pf.alloc(v.arena, int(cp.Size))
	}
	scan := &leafScan{v: v, keep: keep}
	if check {
		if !v.reportCheck(v.checkedLeaves(ctx, r, cp, scan)) {
			v.seenLeaf, v.leafByID, v.pf = nil, nil, posFacts{}
			v.tombLeaves, v.tombLeafData, v.eventLeaves, v.eventLeafKind = map[record.ID]uint64{}, map[record.ID][]byte{}, 0, map[uint64]string{}
			return
		}
	} else {
		for leaf, err := range r.Leaves(ctx, 0, cp.Size) {
			if err != nil {
				scan.err = err
				break
			}
			scan.leaf(leaf.Index, leaf.Data)
		}
	}
	for _, b := range scan.bad {
		v.add(phaseLog, int64(b.index), finding.LeafMalformed, leafSubject(b.index), b.msg)
	}
	if scan.err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", scan.err.Error())
		return
	}
	v.leafByID.sort()
	v.logOK = true
	v.rep.LogChecked = true
}

// logCheckpoint opens the log and reads its published checkpoint for
// readLog (v.log, v.size and v.root set). A nil checkpoint, with a nil
// error, means the log cannot be read: the finding is added.
func (v *verifier) logCheckpoint(ctx context.Context, lv note.Verifier, check bool) (*tlog.Reader, *tlog.Checkpoint, error) {
	r, err := tlog.OpenWith(ctx, v.opts.Log, v.opts.LogOptions)
	if errors.Is(err, tlog.ErrDeadline) {
		return nil, nil, v.deadlineError()
	}
	if err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", err.Error())
		return nil, nil, nil
	}
	v.log = r
	cp := v.publishedCheckpoint(ctx, r, lv)
	if cp == nil {
		return nil, nil, nil
	}
	v.size, v.root = cp.Size, cp.Root
	v.rep.TreeSize, v.rep.RootHash = cp.Size, cp.Root
	// The size is the checkpoint's claim: prove the leaves exist before
	// anything is sized by it.
	if err := r.Present(ctx, cp.Size); err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", err.Error())
		return nil, nil, nil
	}
	if cp.Size > math.MaxUint32 {
		if !check || v.reportCheck(r.Check(ctx, cp.Size, cp.Root)) {
			v.add(phaseLog, 0, finding.LogUnreadable, "log", fmt.Sprintf("the log claims %d leaves: verify holds at most %d", cp.Size, uint64(math.MaxUint32)))
		}
		return nil, nil, nil
	}
	return r, cp, nil
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
		if v.incremental {
			fail(finding.RecordNotInLog, "neither a leaf new in this round nor the leaf the row claims (if any) carries this record's id")
			return
		}
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
		if v.seenLeaf.has(l.index) || l.index < v.newFrom {
			continue
		}
		if _, ok := v.eventLeafKind[l.index]; ok && v.incremental {
			continue // event rows are not read by CheckNew
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
		if !v.seenLeaf.has(idx) && idx >= v.newFrom {
			v.add(phaseOrphans, int64(idx), finding.LeafWithoutRecord, leafSubject(idx), fmt.Sprintf("tombstone leaf for entry %s has no tombstone row in the snapshot", id))
		}
	}
}

// publishedCheckpoint reads and parses the log's published checkpoint and
// reports its signature status; nil when it cannot be read or parsed.
func (v *verifier) publishedCheckpoint(ctx context.Context, r *tlog.Reader, lv note.Verifier) *tlog.Checkpoint {
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
		v.add(phaseLog, 0, finding.CheckpointSigInvalid, "checkpoint (published)", fmt.Sprintf("checkpoint origin \"%s\" differs from the store's log origin \"%s\"", cp.Origin, want))
	}
	return &cp
}

// checkedLeaves runs the tree check (Check recomputes the tree from every
// leaf) and scans the leaves it hashed, on the other core. The scan reads
// no bundle itself: each bundle is fetched once, by the check, and the
// scan sees exactly the bytes that were hashed against the checkpoint
// root. A second read could be answered with other bytes (a server that
// hides an orphan leaf from the scan but not from the hash).
func (v *verifier) checkedLeaves(ctx context.Context, r *tlog.Reader, cp *tlog.Checkpoint, scan *leafScan) ([]tlog.Problem, error) {
	type bundle struct {
		index   uint64
		entries [][]byte
		err     error
	}
	bundles := make(chan bundle, 4)
	type checked struct {
		problems []tlog.Problem
		err      error
	}
	done := make(chan checked, 1)
	go func() {
		p, err := r.CheckWith(ctx, cp.Size, cp.Root, func(index uint64, entries [][]byte, err error) {
			bundles <- bundle{index, entries, err}
		})
		close(bundles)
		done <- checked{p, err}
	}()
	for b := range bundles { // drained to the end: the check never blocks
		if scan.err != nil {
			continue
		}
		if b.err != nil {
			scan.err = b.err
			continue
		}
		first := b.index * layout.EntryBundleWidth
		for k, data := range b.entries {
			scan.leaf(first+uint64(k), data)
		}
	}
	c := <-done
	return c.problems, c.err
}

// reportCheck reports the tree check's outcome: false when it could not
// read the log, and then nothing the scan read counts.
func (v *verifier) reportCheck(problems []tlog.Problem, err error) bool {
	if err != nil {
		v.add(phaseLog, 0, finding.LogUnreadable, "log", err.Error())
		return false
	}
	for _, p := range problems {
		v.add(phaseLog, int64(p.Index), finding.TileMismatch, p.Resource, p.String())
	}
	return true
}

// leafScan files each log leaf by kind: record leaves into the id table
// (only those keep accepts, when set), tombstone and event leaves into
// theirs; malformed leaves and the first read error are kept for findings.
type leafScan struct {
	v    *verifier
	keep func(record.ID) bool
	bad  []malformedLeaf
	err  error
}

type malformedLeaf struct {
	index uint64
	msg   string
}

func (s *leafScan) leaf(index uint64, data []byte) {
	v := s.v
	pl, perr := record.ParseLeaf(data)
	switch {
	case perr != nil:
		s.bad = append(s.bad, malformedLeaf{index, perr.Error()})
	case pl.Kind == record.LeafTombstone:
		v.tombLeaves[pl.ID] = index
		v.tombLeafData[pl.ID] = data[len(record.TombstonePrefix):]
	case pl.Kind == record.LeafEvent:
		if pl.EventKind == record.KindImportNote {
			v.importNoteLeaves++
		} else {
			v.eventLeaves++
		}
		v.eventLeafKind[index] = pl.EventKind
		if s.keep == nil || s.keep(pl.ID) {
			v.leafByID = append(v.leafByID, leafRef{pl.ID, uint32(index)})
		}
	case s.keep == nil || s.keep(pl.ID):
		v.leafByID = append(v.leafByID, leafRef{pl.ID, uint32(index)})
	}
}

// splitViews reports every tile and bundle the log answered with different
// bytes on different reads, once every read that counts is done.
func (v *verifier) splitViews() {
	if v.log == nil {
		return
	}
	for i, sv := range v.log.SplitViews() {
		v.add(phaseLog, int64(i), finding.LogSplitView, sv.Resource, sv.String())
	}
}
