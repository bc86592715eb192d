package verify

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/record"
)

// The checks in this file are the rules a responder assumes of a store
// without ever checking them: ids are unique, a tombstone deletes an entry
// that existed and was its writer's to delete, and its row is the bytes the
// log holds, parents come before children, and each writer's clock runs
// forward. Order always comes from the log, never from the snapshot's
// unsigned seq column.

// logPos is a record's position in the log, or MaxUint64 when its leaf is
// not there (RECORD_NOT_IN_LOG says so).
func (v *verifier) logPos(id record.ID) uint64 {
	if !v.logOK {
		return math.MaxUint64
	}
	if i, ok := v.leafByID.lookup(id); ok {
		return i
	}
	return math.MaxUint64
}

// sortByLog orders registry events by log position, then signed time, then
// id; undecodable events keep their place at the end.
func (v *verifier) sortByLog(evs []*loader.PrincipalRow) {
	slices.SortStableFunc(evs, func(a, b *loader.PrincipalRow) int {
		if (a.Event == nil) != (b.Event == nil) {
			if a.Event == nil {
				return 1
			}
			return -1
		}
		if a.Event == nil {
			return 0
		}
		if c := cmpU(v.logPos(a.Event.RID), v.logPos(b.Event.RID)); c != 0 {
			return c
		}
		if c := cmpU(a.Event.TS, b.Event.TS); c != 0 {
			return c
		}
		return bytes.Compare(a.Event.RID[:], b.Event.RID[:])
	})
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fact is what the cross-record checks need of one signed record.
type fact struct {
	id      record.ID
	subject string
	writer  string
	ts      uint64
	trust   record.Trust
	entry   bool
	parents []record.ID
}

type tombFact struct {
	seq     int64
	subject string
	t       *record.Tombstone
}

func (v *verifier) addFact(f fact) {
	v.mu.Lock()
	v.facts = append(v.facts, f)
	v.mu.Unlock()
}

// tombLeafMatches compares a tombstone row's signed bytes with its ts: leaf.
func (v *verifier) tombLeafMatches(seq int64, subj string, raw []byte, target record.ID) {
	leaf, ok := v.tombLeafData[target]
	if !ok {
		return
	}
	if !bytes.Equal(leaf, raw) {
		v.add(phaseTombstones, seq, finding.TombstoneLeafMismatch, subj, fmt.Sprintf("the tombstone row's %d signed bytes differ from the %d bytes of its ts: leaf in the log", len(raw), len(leaf)))
	}
}

// checkWeights flags derivation weights outside [0, 1] (or NaN): lineage
// would clamp them, so the signed value would not be what is analysed.
func (v *verifier) checkWeights(e *record.Entry, flag func(finding.Code, string)) {
	for i, w := range e.Weights {
		if math.IsNaN(w) || w < 0 || w > 1 {
			p := "?"
			if i < len(e.Parents) {
				p = e.Parents[i].String()
			}
			flag(finding.WeightOutOfRange, fmt.Sprintf("weight %v of parent %s is outside [0, 1]", w, p))
		}
	}
}

// crossChecks runs the checks that need every record: duplicate ids,
// parent order, per-writer time, time against checkpoints, and tombstone
// targets and authority.
func (v *verifier) crossChecks() {
	// Workers appended facts in any order: fix one.
	facts := v.facts
	slices.SortStableFunc(facts, func(a, b fact) int {
		if c := cmpU(v.logPos(a.id), v.logPos(b.id)); c != 0 {
			return c
		}
		if c := bytes.Compare(a.id[:], b.id[:]); c != 0 {
			return c
		}
		return strings.Compare(a.subject, b.subject)
	})
	byID := make(map[record.ID]*fact, len(facts))
	// Duplicate ids, within and across kinds (an exact duplicate row too).
	dup := map[record.ID]int{}
	for i := range facts {
		f := &facts[i]
		if prev, ok := byID[f.id]; ok {
			dup[f.id]++
			if dup[f.id] == 1 {
				v.add(phaseCross, 0, finding.DuplicateID, f.subject, fmt.Sprintf("id %s is used by more than one record (also %s)", f.id, prev.subject))
			}
			continue
		}
		byID[f.id] = f
	}
	// Parents before children: in the log, and in signed time.
	for i := range facts {
		f := &facts[i]
		for _, p := range f.parents {
			pf, ok := byID[p]
			if !ok || !pf.entry {
				continue
			}
			pp, cp := v.logPos(p), v.logPos(f.id)
			switch {
			case pp != math.MaxUint64 && cp != math.MaxUint64 && pp > cp:
				v.add(phaseCross, int64(cp), finding.ParentAfterChild, f.subject, fmt.Sprintf("parent %s is at leaf %d, after this entry's leaf %d", p, pp, cp))
			case pf.ts > f.ts:
				v.add(phaseCross, int64(i), finding.ParentAfterChild, f.subject, fmt.Sprintf("parent %s was signed at ts %d, after this entry (ts %d)", p, pf.ts, f.ts))
			}
		}
	}
	// Each writer's clock runs forward in log order.
	if v.logOK {
		order := make([]*fact, 0, len(facts))
		for i := range facts {
			if v.logPos(facts[i].id) != math.MaxUint64 {
				order = append(order, &facts[i])
			}
		}
		slices.SortStableFunc(order, func(a, b *fact) int { return cmpU(v.logPos(a.id), v.logPos(b.id)) })
		last := map[string]*fact{}
		for _, f := range order {
			if prev, ok := last[f.writer]; ok && f.ts < prev.ts {
				v.add(phaseCross, int64(v.logPos(f.id)), finding.TimeBackwards, f.subject, fmt.Sprintf("signed at ts %d by %s, before that writer's earlier record %s (ts %d, leaf %d)", f.ts, f.writer, prev.subject, prev.ts, v.logPos(prev.id)))
				continue
			}
			last[f.writer] = f
		}
		// A record the log already held when the store saw a checkpoint
		// cannot have been signed after that moment.
		for _, cp := range v.seenCheckpoints {
			if cp.seenAt <= 0 {
				continue
			}
			for _, f := range order {
				if v.logPos(f.id) < cp.size && f.ts > uint64(cp.seenAt) {
					v.add(phaseCross, int64(v.logPos(f.id)), finding.TimeAfterCheckpoint, f.subject, fmt.Sprintf("signed at ts %d, after checkpoint %d (size %d, seen at %d) that already contains it", f.ts, cp.seq, cp.size, cp.seenAt))
				}
			}
		}
	}
	// Tombstones: the target existed, and the writer had authority.
	for _, tf := range v.tombs {
		t := tf.t
		target, live := byID[t.Target]
		if live && !target.entry {
			v.add(phaseCross, tf.seq, finding.TombstoneUnknownTarget, tf.subject, fmt.Sprintf("the target %s is not an entry but %s", t.Target, target.subject))
			continue
		}
		if !live && v.logOK && v.logPos(t.Target) == math.MaxUint64 {
			v.add(phaseCross, tf.seq, finding.TombstoneUnknownTarget, tf.subject, "the target entry is neither in the store nor has a record leaf in the log: it never existed")
			continue
		}
		if why := v.tombstoneAuthority(t, target); why != "" {
			v.add(phaseCross, tf.seq, finding.TombstoneNoAuthority, tf.subject, why)
		}
	}
}

// tombstoneAuthority applies the documented rule (docs/FINDINGS.md): the
// entry's own writer may delete it; a user or agent principal registered
// on an authenticated channel may delete any entry; a tool or external
// principal, or any principal on an unauthenticated channel, may delete
// only an entry it wrote, which must still be readable to show it. It
// returns "" when the tombstone is authorised.
func (v *verifier) tombstoneAuthority(t *record.Tombstone, target *fact) string {
	if target != nil && target.writer == t.Writer {
		return ""
	}
	ch := v.rep.Channels[t.Writer]
	class := t.Writer
	if i := strings.IndexByte(class, ':'); i >= 0 {
		class = class[:i]
	}
	if ch == record.ChannelAuthenticated && (class == "user" || class == "agent") {
		return ""
	}
	whose := "an entry whose writer cannot be shown (deleted)"
	if target != nil {
		whose = "an entry written by " + target.writer + " (trust " + target.trust.String() + ")"
	}
	chText := ch
	if chText == "" {
		chText = "no registered"
	}
	return fmt.Sprintf("%s (%s channel) deleted %s; only the entry's writer or an authenticated user or agent principal may", t.Writer, chText, whose)
}

type seenCheckpoint struct {
	seq    int64
	size   uint64
	seenAt int64
}
