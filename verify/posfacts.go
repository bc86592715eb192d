package verify

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/bigslice"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// posFacts holds what the cross-record checks need of each signed record
// by its log position, in 7 bytes: the signed time, the writer (interned)
// and a flag byte. It replaces a list of per-record facts with their ids
// and parents (about 100 bytes a record, which put a 10M-entry verify at
// 4.4 GB). Parent references are checked as each entry arrives, against
// the parent's facts if it already arrived, else kept until the end (in a
// store written in log order, only the few whose parent was on another
// worker at that moment).
//
// It holds a store whose records each have their own leaf, under their
// own id, from one table: the shape every honest store has. The first
// record that does not fit (no leaf, a second record at a leaf, a key
// column that differs from the signed id, too many writers) switches to
// the general path: crossChecks then reads the records again into the
// general fact list and runs the same checks over it (generalCross).
// Both paths give the same findings in the same order; the tests run both
// on every scenario and tamper case.
type posFacts struct {
	// The signed time at each leaf is an offset from its block's base
	// (the first time stored in that block of tsBlock leaves): 4 bytes
	// instead of 8. A time more than 2^31 from the base is kept in wide.
	tsOff     []int32
	tsBase    []uint64
	tsBaseSet leafBits
	wide      map[uint64]uint64
	writer    []uint16 // index into facts.writers, plus one
	flags     []uint8
	// general is set once a fact did not fit.
	general bool
	// parentHits are the PARENT_AFTER_CHILD findings found so far;
	// pending the parent references whose parent had not arrived.
	parentHits []parentHit
	pending    []pendingParent
}

const (
	pfHas   = 1 << 0
	pfEntry = 1 << 1
	// bits 2-3: the subject prefix (pfPrefixes); bits 4-5: the trust.
	pfPrefixShift = 2
	pfTrustShift  = 4
	pfWide        = 1 << 6 // the time is in wide
)

// tsBlock is how many leaves share a time base: a honest store's times
// across 1024 records stay well within 2^31 of each other.
const tsBlock = 1024

func (p *posFacts) setTS(pos, ts uint64) {
	b := pos / tsBlock
	if !p.tsBaseSet.has(b) {
		p.tsBase[b] = ts
		p.tsBaseSet.set(b)
	}
	base := p.tsBase[b]
	switch {
	case ts >= base && ts-base <= math.MaxInt32:
		p.tsOff[pos] = int32(ts - base)
	case ts < base && base-ts <= -math.MinInt32:
		p.tsOff[pos] = int32(-int64(base - ts))
	default:
		if p.wide == nil {
			p.wide = map[uint64]uint64{}
		}
		p.flags[pos] |= pfWide
		p.wide[pos] = ts
	}
}

func (p *posFacts) tsAt(pos uint64) uint64 {
	if p.flags[pos]&pfWide != 0 {
		return p.wide[pos]
	}
	return p.tsBase[pos/tsBlock] + uint64(int64(p.tsOff[pos]))
}

// pfPrefixes are the subject prefixes of the signed tables with facts.
var pfPrefixes = [...]string{"entry ", "write ", "principal "}

type parentHit struct {
	child  uint64 // child's leaf
	k      int    // parent's place in the child's list
	byTime bool   // seq is the child's rank in the fact order, not its leaf
	code   finding.Code
	subj   string
	msg    string
}

type pendingParent struct {
	child, parent uint64 // leaves
	k             int
	ts            uint64 // child's signed time
	id            record.ID
	subj          string
}

func (p *posFacts) alloc(a *bigslice.Arena, n int) {
	p.tsOff = bigslice.Make[int32](a, n)
	p.tsBase = make([]uint64, (n+tsBlock-1)/tsBlock)
	p.tsBaseSet = make(leafBits, (len(p.tsBase)+63)/64)
	p.writer = bigslice.Make[uint16](a, n)
	p.flags = bigslice.Make[uint8](a, n)
}

// goGeneral gives up the per-position facts (v.mu held).
func (v *verifier) goGeneral() {
	v.pf.general = true
	v.pf.parentHits, v.pf.pending = nil, nil
}

// addFact records what the cross-record checks need of one signed record;
// it is called from several workers.
func (v *verifier) addFact(f fact) {
	if !f.posSet && v.logOK && !v.rep.Partial {
		// Looked up before taking the lock: the leaf table no longer
		// changes once the log is read.
		f.pos, f.posSet = v.logPos(f.id), true
		f.parentPos = make([]uint64, len(f.parents))
		for k, par := range f.parents {
			f.parentPos[k] = v.logPos(par)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	p := &v.pf
	if p.general {
		return // crossChecks reads every record again
	}
	if v.generalOnly || v.rep.Partial || p.flags == nil {
		v.goGeneral()
		return
	}
	pos := f.pos
	if !f.posSet {
		pos = v.logPos(f.id)
	}
	prefix := -1
	for i, pre := range pfPrefixes {
		if len(f.subject) == len(pre)+36 && strings.HasPrefix(f.subject, pre) && f.subject[len(pre):] == f.id.String() {
			prefix = i
		}
	}
	w, wok := v.internWriter(f.writer)
	if pos >= uint64(len(p.flags)) || prefix < 0 || !wok || f.trust > 3 || p.flags[pos]&pfHas != 0 {
		v.goGeneral()
		return
	}
	fl := uint8(pfHas) | uint8(prefix)<<pfPrefixShift | uint8(f.trust)<<pfTrustShift
	if f.entry {
		fl |= pfEntry
	}
	p.flags[pos], p.writer[pos] = fl, w
	p.setTS(pos, f.ts)
	for k, par := range f.parents {
		var pp uint64
		if f.posSet {
			pp = f.parentPos[k]
		} else {
			pp = v.logPos(par)
		}
		if pp == math.MaxUint64 {
			// No leaf: no record without one keeps the per-position
			// path, so no fact can name it.
			continue
		}
		if p.flags[pp]&pfHas == 0 {
			p.pending = append(p.pending, pendingParent{child: pos, parent: pp, k: k, ts: f.ts, id: par, subj: f.subject})
			continue
		}
		v.checkParent(pos, pp, k, f.ts, par, f.subject)
	}
}

// internWriter returns writer's index plus one (v.mu held); false when
// there are too many writers for the per-position table.
func (v *verifier) internWriter(writer string) (uint16, bool) {
	fs := &v.facts
	w, ok := fs.writerIx[writer]
	if !ok {
		if fs.writerIx == nil {
			fs.writerIx = map[string]uint32{}
		}
		w = uint32(len(fs.writers))
		fs.writers = append(fs.writers, writer)
		fs.writerIx[writer] = w
	}
	if w+1 > math.MaxUint16 {
		return 0, false
	}
	return uint16(w + 1), true
}

// checkParent is generalCross's parent check for a child at leaf cp whose
// k-th parent (id) has its record at leaf pp.
func (v *verifier) checkParent(cp, pp uint64, k int, childTS uint64, id record.ID, subj string) {
	p := &v.pf
	if p.flags[pp]&pfHas == 0 || p.flags[pp]&pfEntry == 0 {
		return
	}
	switch {
	case pp > cp:
		p.parentHits = append(p.parentHits, parentHit{child: cp, k: k, code: finding.ParentAfterChild, subj: subj,
			msg: fmt.Sprintf("parent %s is at leaf %d, after this entry's leaf %d", id, pp, cp)})
	case p.tsAt(pp) > childTS:
		p.parentHits = append(p.parentHits, parentHit{child: cp, k: k, byTime: true, code: finding.ParentAfterChild, subj: subj,
			msg: fmt.Sprintf("parent %s was signed at ts %d, after this entry (ts %d)", id, p.tsAt(pp), childTS)})
	}
}

// crossChecks runs the checks that need every record, over the
// per-position facts or, when a record did not fit them, over the general
// fact list read again from the snapshot.
func (v *verifier) crossChecks(ctx context.Context) error {
	if v.pf.general || !v.logOK {
		v.pf = posFacts{general: true}
		if err := v.readGeneralFacts(ctx); err != nil {
			return err
		}
		v.generalCross()
		return nil
	}
	v.positionCross()
	return nil
}

// readGeneralFacts reads every principal, entry and write again and keeps
// the facts Run's phases would have given addFact.
func (v *verifier) readGeneralFacts(ctx context.Context) error {
	v.facts = factStore{}
	err := v.snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		if r.DecodeErr == nil {
			ev := r.Event
			v.addGeneralFact(fact{id: ev.RID, subject: "principal " + r.RID, writer: fmt.Sprintf("registry root %x", ev.Root[:8]), ts: ev.TS})
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = fanOut(v.opts.Workers, func(yield func(*loader.EntryRow) error) error {
		return v.snap.EachEntryRaw(ctx, yield)
	}, func(r *loader.EntryRow) {
		v.snap.DecodeEntryRow(r)
		if r.DecodeErr == nil {
			e := r.Entry
			v.addGeneralFact(fact{id: e.EID, subject: "entry " + r.EID, writer: e.Writer, ts: e.TS, trust: e.Trust, entry: true, parents: e.Parents})
		}
	}, nil)
	if err != nil {
		return err
	}
	return v.snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		if r.DecodeErr == nil {
			w := r.Write
			v.addGeneralFact(fact{id: w.WID, subject: "write " + r.WID, writer: w.Writer, ts: w.TS})
		}
		return nil
	})
}

// positionCross is generalCross over the per-position facts: records are
// visited in log order, which is the general path's fact order when every
// record has its own leaf.
func (v *verifier) positionCross() {
	p := &v.pf
	for _, q := range p.pending {
		v.checkParent(q.child, q.parent, q.k, q.ts, q.id, q.subj)
	}
	p.pending = nil
	// Parents before children, in the general path's order: by child,
	// then by the parent's place in its list. A hit by time is numbered
	// by the child's rank among all facts.
	hits := p.parentHits
	slices.SortStableFunc(hits, func(a, b parentHit) int {
		if c := cmpU(a.child, b.child); c != 0 {
			return c
		}
		return a.k - b.k
	})
	var rank int64
	var next uint64
	for _, h := range hits {
		for ; next < h.child; next++ {
			if p.flags[next]&pfHas != 0 {
				rank++
			}
		}
		seq := int64(h.child)
		if h.byTime {
			seq = rank
		}
		v.add(phaseCross, seq, h.code, h.subj, h.msg)
	}
	p.parentHits = nil
	// Each writer's clock runs forward in log order.
	type last struct {
		ts  uint64
		pos uint64
		set bool
	}
	type backwards struct{ pos, prev uint64 }
	lastOf := make([]last, len(v.facts.writers)+1)
	var back []backwards
	for pos := range p.flags {
		if p.flags[pos]&pfHas == 0 {
			continue
		}
		l := &lastOf[p.writer[pos]]
		if l.set && p.tsAt(uint64(pos)) < l.ts {
			back = append(back, backwards{uint64(pos), l.pos})
			continue
		}
		*l = last{p.tsAt(uint64(pos)), uint64(pos), true}
	}
	// Records already in a checkpoint the store saw cannot be signed after
	// it was seen.
	lates := lateRecords(v.seenCheckpoints, func(fn func(ref int, pos, ts uint64)) {
		for pos := len(p.flags) - 1; pos >= 0; pos-- {
			if p.flags[pos]&pfHas != 0 {
				fn(pos, uint64(pos), p.tsAt(uint64(pos)))
			}
		}
	})
	ids := map[uint64]record.ID{}
	for _, b := range back {
		ids[b.pos], ids[b.prev] = record.ID{}, record.ID{}
	}
	for _, l := range lates {
		ids[l.pos] = record.ID{}
	}
	v.leafByID.idsAt(ids)
	subject := func(pos uint64) string {
		return pfPrefixes[(p.flags[pos]>>pfPrefixShift)&3] + ids[pos].String()
	}
	for _, b := range back {
		v.add(phaseCross, int64(b.pos), finding.TimeBackwards, subject(b.pos), fmt.Sprintf("signed at ts %d by %s, before that writer's earlier record %s (ts %d, leaf %d)",
			p.tsAt(b.pos), v.facts.writers[p.writer[b.pos]-1], subject(b.prev), p.tsAt(b.prev), b.prev))
	}
	for _, l := range lates {
		v.add(phaseCross, int64(l.pos), finding.TimeAfterCheckpoint, subject(l.pos), l.message())
	}
	// Tombstones: the target existed, and the writer had authority.
	for _, tf := range v.tombs {
		t := tf.t
		pos := v.logPos(t.Target)
		found := pos < uint64(len(p.flags)) && p.flags[pos]&pfHas != 0
		if found && p.flags[pos]&pfEntry == 0 {
			v.add(phaseCross, tf.seq, finding.TombstoneUnknownTarget, tf.subject, fmt.Sprintf("the target %s is not an entry but %s", t.Target, pfPrefixes[(p.flags[pos]>>pfPrefixShift)&3]+t.Target.String()))
			continue
		}
		if !found && pos == math.MaxUint64 {
			v.add(phaseCross, tf.seq, finding.TombstoneUnknownTarget, tf.subject, "the target entry is neither in the store nor has a record leaf in the log: it never existed")
			continue
		}
		var tw string
		var tt record.Trust
		if found {
			tw, tt = v.facts.writers[p.writer[pos]-1], record.Trust(p.flags[pos]>>pfTrustShift&3)
		}
		if why := v.tombstoneAuthority(t, found, tw, tt); why != "" {
			v.add(phaseCross, tf.seq, finding.TombstoneNoAuthority, tf.subject, why)
		}
	}
}
