package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/textscan"
	"github.com/memscope/memscope/loader"
)

func (v *verifier) tombstones(ctx context.Context) error {
	order := v.newRowOrder("tombstones")
	return v.snap.EachTombstone(ctx, func(r *loader.TombstoneRow) error {
		order.next(r.Seq, r.LeafIndex)
		v.rep.Tombstones++
		v.rep.Records++
		v.checkTombstone(r)
		return nil
	})
}

// checkTombstone runs every per-row check of one tombstone: decoding, its
// target column, its signer, and its ts: leaf.
func (v *verifier) checkTombstone(r *loader.TombstoneRow) {
	subj := "tombstone " + r.Target
	if r.DecodeErr != nil {
		v.recordFinding(phaseTombstones, r.Seq, subj, r.DecodeErr)
		return
	}
	t := r.Tombstone
	if t.Target.String() != r.Target {
		v.add(phaseTombstones, r.Seq, finding.ColumnMismatch, subj, "target column disagrees with the signed tombstone")
	}
	v.tombstoned[t.Target] = true
	v.tombs = append(v.tombs, tombFact{r.Seq, subj, t})
	v.tombLeafMatches(r.Seq, subj, r.Raw, t.Target)
	pos := uint64(NoPosition)
	if idx, ok := v.tombLeaves[t.Target]; ok && v.logOK {
		pos = idx
	}
	v.inFuture(t.TS, func(c finding.Code, m string) { v.add(phaseTombstones, r.Seq, c, subj, m) })
	code, msg := v.checkSigner(r.Raw, t.Sig, t.Writer, t.KID, t.TS, pos)
	v.signerFindings(code, msg, t.Writer, t.KID, t.TS, pos, func(c finding.Code, m string) { v.add(phaseTombstones, r.Seq, c, subj, m) })
	if v.logOK {
		idx, ok := v.tombLeaves[t.Target]
		if !ok {
			v.add(phaseTombstones, r.Seq, finding.TombstoneNotInLog, subj, "no ts: leaf in the log names this entry")
			return
		}
		v.seenLeaf.set(idx)
		if r.LeafIndex >= 0 && uint64(r.LeafIndex) != idx {
			v.add(phaseTombstones, r.Seq, finding.InclusionFailed, subj, fmt.Sprintf("the snapshot places this tombstone at leaf %d but the log has its ts: leaf at %d", r.LeafIndex, idx))
		}
	}
}

func (v *verifier) entries(ctx context.Context) error {
	total, err := v.snap.Count(ctx, "entries")
	if err != nil {
		return err
	}
	v.rep.entries.reserve(total)
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
		err := v.snap.EachEntryRaw(ctx, func(r *loader.EntryRow) error {
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
			v.rep.entries.add(r.EID)
			v.rep.Entries++
			v.rep.Records++
			return yield(r)
		})
		if err == nil && v.opts.EntriesRead != nil {
			v.opts.EntriesRead()
		}
		return err
	}, v.checkEntries, func(n int) {
		if v.opts.Progress != nil {
			done += n
			v.opts.Progress(done, total)
		}
	})
	v.entryIDs.sort()
	v.resolveParentsLater()
	return err
}

// resolveParentsLater reports the deferred parent references (see
// entries) once every entry id is in entryIDs. Each entry's deferred
// parents are in its parent order, and a parent finding is the last check
// of an entry, so codes and findings come out as if checked in the row.
func (v *verifier) resolveParentsLater() {
	for _, l := range v.parentsLater {
		if !v.entryIDs.hasAt(l.parent, l.pos) && !v.tombstoned[l.parent] {
			v.add(phaseEntries, l.seq, finding.ParentMissing, "entry "+l.eid, fmt.Sprintf("parent %s is neither in the store nor tombstoned", l.parent))
			v.markEntry(l.eid, finding.ParentMissing)
		}
	}
	v.parentsLater = nil
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
	v.inFuture(e.TS, flag)
	code, msg := v.checkSignerWith(r.Raw, e.Sig, e.Writer, e.KID, e.TS, f.pos, pre)
	if v.signerFindings(code, msg, e.Writer, e.KID, e.TS, f.pos, flag) != "" {
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
	return v.checkSigner(r.Raw, w.Sig, w.Writer, w.KID, w.TS, v.logPos(w.WID))
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
	v.inFuture(w.TS, func(c finding.Code, m string) { v.add(phaseWrites, r.Seq, c, subj, m) })
	code, msg := v.writeSigner(r)
	if v.signerFindings(code, msg, w.Writer, w.KID, w.TS, v.logPos(w.WID), func(c finding.Code, m string) { v.add(phaseWrites, r.Seq, c, subj, m) }) != "" {
		bad(code)
	}
	// A write the log does not prove is unverified: replay's default label
	// reads it from InclusionFailures (keyed by id, like the entries').
	if failed := v.inLog(phaseWrites, r.Seq, w.WID, subj, record.RecordLeaf(w.WID, w.Sig), r.LeafIndex); len(failed) > 0 {
		v.mu.Lock()
		v.rep.InclusionFailures[r.WID] = failed[0]
		v.mu.Unlock()
	}
	for _, s := range w.Sources {
		if !v.entryIDs.has(s) && !v.tombstoned[s] {
			v.add(phaseWrites, r.Seq, finding.SourceMissing, subj, fmt.Sprintf("source entry %s does not exist", s))
		}
	}
}
