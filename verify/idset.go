package verify

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync/atomic"

	"github.com/memscope/memscope/evidence/record"
)

// Sorted slices instead of maps keep a million ids in 16 or 24 bytes each:
// verify of a 1M-entry store must stream in bounded memory.

// idSet is a set of record ids, built by add then sort.
type idSet []record.ID

func (s *idSet) add(id record.ID) { *s = append(*s, id) }

func (s idSet) sort() {
	slices.SortFunc(s, func(a, b record.ID) int { return bytes.Compare(a[:], b[:]) })
}

func (s idSet) has(id record.ID) bool {
	_, ok := slices.BinarySearchFunc(s, id, func(a, b record.ID) int { return bytes.Compare(a[:], b[:]) })
	return ok
}

// leafRef maps a record id to its leaf index: 20 bytes, the largest
// per-leaf cost of verify (readLog refuses logs of 2^32 leaves or more).
type leafRef struct {
	id    record.ID
	index uint32
}

// leafTable is a sorted id -> leaf index table. Ids sort by their bytes and
// a repeated id by leaf index, so lookup answers the first leaf that
// carries it.
type leafTable []leafRef

func (t leafTable) sort() {
	slices.SortFunc(t, func(a, b leafRef) int {
		if c := bytes.Compare(a.id[:], b.id[:]); c != 0 {
			return c
		}
		return cmpU(uint64(a.index), uint64(b.index))
	})
}

// lookup is a binary search on the ids as two big-endian words (the
// order bytes.Compare gives): verify looks up every record and parent, and
// comparing words instead of calling bytes.Compare halves its cost.
func (t leafTable) lookup(id record.ID) (uint64, bool) {
	hi, lo := binary.BigEndian.Uint64(id[:8]), binary.BigEndian.Uint64(id[8:])
	i, j := 0, len(t)
	for i < j {
		h := int(uint(i+j) >> 1)
		eh, el := binary.BigEndian.Uint64(t[h].id[:8]), binary.BigEndian.Uint64(t[h].id[8:])
		if eh < hi || (eh == hi && el < lo) {
			i = h + 1
		} else {
			j = h
		}
	}
	if i < len(t) && t[i].id == id {
		return uint64(t[i].index), true
	}
	return 0, false
}

// idsAt returns the record id of each of the given leaves that one
// carries, in one pass over the table: findings name records by id, and
// the per-position facts keep none.
func (t leafTable) idsAt(leaves map[uint64]record.ID) {
	if len(leaves) == 0 {
		return
	}
	for _, l := range t {
		if _, ok := leaves[uint64(l.index)]; ok {
			leaves[uint64(l.index)] = l.id
		}
	}
}

// entrySet says whether an entry row carries an id, in one bit per log
// leaf rather than 16 bytes per entry: an entry whose id has a record leaf
// sets that leaf's bit, and the few whose id has none (each already a
// RECORD_NOT_IN_LOG finding, or every entry when the log is unreadable) go
// to a sorted set. pos is the verifier's logPos.
type entrySet struct {
	pos  func(record.ID) uint64
	bits []uint64
	rest idSet
}

func newEntrySet(pos func(record.ID) uint64, leaves uint64) *entrySet {
	return &entrySet{pos: pos, bits: make([]uint64, (leaves+63)/64)}
}

// add is called by one goroutine while others may call hasNow.
func (s *entrySet) add(id record.ID) {
	if i := s.pos(id); i < uint64(len(s.bits))*64 {
		atomic.OrUint64(&s.bits[i/64], 1<<(i%64))
		return
	}
	s.rest.add(id)
}

// hasNow answers, while adds are still coming, whether an id with a
// record leaf at i has been added; false means "not yet", never "no".
func (s *entrySet) hasNow(i uint64) bool {
	return i < uint64(len(s.bits))*64 && atomic.LoadUint64(&s.bits[i/64])&(1<<(i%64)) != 0
}

// sort must be called after the last add and before has.
func (s *entrySet) sort() { s.rest.sort() }

func (s *entrySet) has(id record.ID) bool { return s.hasAt(id, s.pos(id)) }

// hasAt is has for an id whose log position (pos(id)) is known.
func (s *entrySet) hasAt(id record.ID, i uint64) bool {
	if i < uint64(len(s.bits))*64 {
		return atomic.LoadUint64(&s.bits[i/64])&(1<<(i%64)) != 0
	}
	return s.rest.has(id)
}

// leafBits is one bit per log leaf (callers hold verifier.mu to set).
type leafBits []uint64

func (b leafBits) set(i uint64)      { b[i/64] |= 1 << (i % 64) }
func (b leafBits) has(i uint64) bool { return b[i/64]&(1<<(i%64)) != 0 }
