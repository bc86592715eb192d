package verify

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
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
	// When set, pos is logPos(id) and parentPos logPos of each parent,
	// already looked up by the caller.
	posSet    bool
	pos       uint64
	parentPos []uint64
}

// storedFact is a fact as addFact keeps it: a million-entry store holds a
// million of them, so strings are interned or rebuilt, the parents live in
// one shared pool and the log position is looked up once.
type storedFact struct {
	id       record.ID
	pos      uint64 // logPos(id)
	ts       uint64
	writer   uint32 // index into facts.writers
	subject  int32  // index into facts.subjects, or -1: prefixes[prefix] + id
	parents  uint32 // offset into facts.parents
	nParents uint32
	prefix   uint8
	trust    record.Trust
	entry    bool
}

// factStore holds every fact compactly (guarded by verifier.mu).
type factStore struct {
	list     []storedFact
	parents  []record.ID
	writers  []string
	writerIx map[string]uint32
	prefixes []string // subject prefixes ("entry ", "write ", ...)
	subjects []string // subjects that are not a prefix and the record id
}

func (v *verifier) subjectOf(f *storedFact) string {
	if f.subject >= 0 {
		return v.facts.subjects[f.subject]
	}
	return v.facts.prefixes[f.prefix] + f.id.String()
}

func (v *verifier) parentsOf(f *storedFact) []record.ID {
	return v.facts.parents[f.parents : f.parents+f.nParents]
}

type tombFact struct {
	seq     int64
	subject string
	t       *record.Tombstone
}

// addGeneralFact keeps f in the general fact list (see posFacts).
func (v *verifier) addGeneralFact(f fact) {
	sf := storedFact{id: f.id, pos: v.logPos(f.id), ts: f.ts, trust: f.trust, entry: f.entry, subject: -1}
	// "entry <id>" is kept as the prefix alone; any other subject (a key
	// column that differs from the signed id) is kept whole.
	prefix, rest := "", f.subject
	if i := strings.LastIndexByte(f.subject, ' '); i >= 0 {
		prefix, rest = f.subject[:i+1], f.subject[i+1:]
	}
	plain := rest == f.id.String()
	fs := &v.facts
	v.mu.Lock()
	defer v.mu.Unlock()
	if plain {
		sf.prefix = 255
		for i, p := range fs.prefixes {
			if p == prefix {
				sf.prefix = uint8(i)
			}
		}
		if sf.prefix == 255 && len(fs.prefixes) < 255 {
			sf.prefix = uint8(len(fs.prefixes))
			fs.prefixes = append(fs.prefixes, prefix)
		}
		plain = sf.prefix != 255
	}
	if !plain {
		sf.subject = int32(len(fs.subjects))
		fs.subjects = append(fs.subjects, f.subject)
	}
	w, ok := fs.writerIx[f.writer]
	if !ok {
		if fs.writerIx == nil {
			fs.writerIx = map[string]uint32{}
		}
		w = uint32(len(fs.writers))
		fs.writers = append(fs.writers, f.writer)
		fs.writerIx[f.writer] = w
	}
	sf.writer = w
	sf.parents, sf.nParents = uint32(len(fs.parents)), uint32(len(f.parents))
	fs.parents = append(fs.parents, f.parents...)
	fs.list = append(fs.list, sf)
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

// generalCross runs the checks that need every record over the general
// fact list: duplicate ids, parent order, per-writer time, time against
// checkpoints, and tombstone targets and authority.
func (v *verifier) generalCross() {
	facts, byID := v.sortedFacts()
	// Duplicate ids, within and across kinds (an exact duplicate row too).
	for i := 1; i < len(facts); i++ {
		if facts[i].id == facts[i-1].id && (i == 1 || facts[i-2].id != facts[i].id) {
			f, prev := &facts[i], &facts[i-1]
			v.add(phaseCross, 0, finding.DuplicateID, v.subjectOf(f), fmt.Sprintf("id %s is used by more than one record (also %s)", f.id, v.subjectOf(prev)))
		}
	}
	v.crossParents(facts, byID)
	// Each writer's clock runs forward in log order (facts are in log
	// order; those not in the log come last).
	if v.logOK {
		last := map[uint32]*storedFact{}
		for i := range facts {
			f := &facts[i]
			if f.pos == math.MaxUint64 {
				break
			}
			if prev, ok := last[f.writer]; ok && f.ts < prev.ts {
				v.add(phaseCross, int64(f.pos), finding.TimeBackwards, v.subjectOf(f), fmt.Sprintf("signed at ts %d by %s, before that writer's earlier record %s (ts %d, leaf %d)", f.ts, v.facts.writers[f.writer], v.subjectOf(prev), prev.ts, prev.pos))
				continue
			}
			last[f.writer] = f
		}
		// A record the log already held when the store saw a checkpoint
		// cannot have been signed after that moment.
		lates := lateRecords(v.seenCheckpoints, func(fn func(ref int, pos, ts uint64)) {
			for i := len(facts) - 1; i >= 0; i-- {
				if f := &facts[i]; f.pos != math.MaxUint64 {
					fn(i, f.pos, f.ts)
				}
			}
		})
		for _, l := range lates {
			v.add(phaseCross, int64(l.pos), finding.TimeAfterCheckpoint, v.subjectOf(&facts[l.ref]), l.message())
		}
	}
	v.crossTombstones(byID)
}

// sortedFacts puts the general fact list in its one order and returns it
// with byID, the first fact of an id (nil: none).
func (v *verifier) sortedFacts() ([]storedFact, func(record.ID) *storedFact) {
	// Workers appended facts in any order: fix one. The position is a
	// function of the id, so records sharing an id end up adjacent. The
	// order is total (records alike in every key are interchangeable), so
	// an unstable sort serves: a stable one moves 10M facts O(n log^2 n)
	// times.
	facts := v.facts.list
	slices.SortFunc(facts, func(a, b storedFact) int {
		if c := cmpU(a.pos, b.pos); c != 0 {
			return c
		}
		if c := bytes.Compare(a.id[:], b.id[:]); c != 0 {
			return c
		}
		if c := strings.Compare(v.subjectOf(&a), v.subjectOf(&b)); c != 0 {
			return c
		}
		if c := cmpU(a.ts, b.ts); c != 0 {
			return c
		}
		if c := strings.Compare(v.facts.writers[a.writer], v.facts.writers[b.writer]); c != 0 {
			return c
		}
		return slices.CompareFunc(v.parentsOf(&a), v.parentsOf(&b), func(x, y record.ID) int { return bytes.Compare(x[:], y[:]) })
	})
	// byID is the first fact of an id in that order (nil: none).
	byID := func(id record.ID) *storedFact {
		pos := v.logPos(id)
		i, ok := slices.BinarySearchFunc(facts, id, func(f storedFact, id record.ID) int {
			if c := cmpU(f.pos, pos); c != 0 {
				return c
			}
			return bytes.Compare(f.id[:], id[:])
		})
		if !ok {
			return nil
		}
		return &facts[i]
	}
	return facts, byID
}

// crossParents checks that each entry's parents come before it: in the
// log, and in signed time.
func (v *verifier) crossParents(facts []storedFact, byID func(record.ID) *storedFact) {
	for i := range facts {
		f := &facts[i]
		for _, p := range v.parentsOf(f) {
			pf := byID(p)
			if pf == nil || !pf.entry {
				continue
			}
			pp, cp := pf.pos, f.pos
			switch {
			case pp != math.MaxUint64 && cp != math.MaxUint64 && pp > cp:
				v.add(phaseCross, int64(cp), finding.ParentAfterChild, v.subjectOf(f), fmt.Sprintf("parent %s is at leaf %d, after this entry's leaf %d", p, pp, cp))
			case pf.ts > f.ts:
				v.add(phaseCross, int64(i), finding.ParentAfterChild, v.subjectOf(f), fmt.Sprintf("parent %s was signed at ts %d, after this entry (ts %d)", p, pf.ts, f.ts))
			}
		}
	}
}

// crossTombstones checks each tombstone's target (it existed, as an
// entry) and its writer's authority over it.
func (v *verifier) crossTombstones(byID func(record.ID) *storedFact) {
	for _, tf := range v.tombs {
		t := tf.t
		target := byID(t.Target)
		if target != nil && !target.entry {
			v.add(phaseCross, tf.seq, finding.TombstoneUnknownTarget, tf.subject, fmt.Sprintf("the target %s is not an entry but %s", t.Target, v.subjectOf(target)))
			continue
		}
		if target == nil && v.logOK && v.logPos(t.Target) == math.MaxUint64 {
			if v.incremental {
				// The target's row is gone (the tombstone's purpose) and
				// its record leaf is somewhere in the log before the
				// round: only a whole-log read tells "never existed".
				v.unknownTargetsUnchecked++
			} else {
				v.add(phaseCross, tf.seq, finding.TombstoneUnknownTarget, tf.subject, "the target entry is neither in the store nor has a record leaf in the log: it never existed")
				continue
			}
		}
		var tw string
		var tt record.Trust
		if target != nil {
			tw, tt = v.facts.writers[target.writer], target.trust
		}
		if why := v.tombstoneAuthority(t, target != nil, tw, tt); why != "" {
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
func (v *verifier) tombstoneAuthority(t *record.Tombstone, found bool, targetWriter string, targetTrust record.Trust) string {
	if found && targetWriter == t.Writer {
		return ""
	}
	// The channel the tombstoner had when the tombstone was logged, not
	// its last registration (a later promotion grants nothing backwards).
	pos := uint64(NoPosition)
	if idx, ok := v.tombLeaves[t.Target]; ok {
		pos = idx
	}
	ch := v.rep.ChannelAt(t.Writer, pos)
	class := t.Writer
	if i := strings.IndexByte(class, ':'); i >= 0 {
		class = class[:i]
	}
	if ch == record.ChannelAuthenticated && (class == "user" || class == "agent") {
		return ""
	}
	whose := "an entry whose writer cannot be shown (deleted)"
	if found {
		whose = "an entry written by " + targetWriter + " (trust " + targetTrust.String() + ")"
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
