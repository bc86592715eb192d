// Package idtab holds a long list of record ids compactly, with an index
// from id to position. Every memscope record id is a lowercase 36-character
// UUID, which takes 16 bytes here instead of a 48-byte string allocation
// and its 16-byte header; any other id is kept as its own string. A million
// structural writes then cost 16 MB of ids and 8 MB of index instead of
// about 110 MB in strings and a map.
package idtab

import (
	"hash/maphash"

	"github.com/memscope/memscope/evidence/record"
)

// Table is a list of ids in the order added. It is not safe for
// concurrent Add; At, Len and Find are safe once adding has finished.
type Table struct {
	canon [][16]byte
	odd   map[int32]string // positions whose id is not canonical
	slots []int32          // open addressing: 0 empty, else position+1
	seed  maphash.Seed
	dups  int // ids added that equal an earlier one
}

// Dups is the number of ids added that equal an earlier one.
func (t *Table) Dups() int { return t.dups }

// New returns an empty table sized for about n ids.
func New(n int) *Table {
	t := &Table{canon: make([][16]byte, 0, max(n, 0)), seed: maphash.MakeSeed()}
	t.slots = make([]int32, slotsFor(n))
	return t
}

// slotsFor keeps the index at most two-thirds full.
func slotsFor(n int) int {
	s := 16
	for s*2 < n*3 {
		s *= 2
	}
	return s
}

// Len is the number of ids added.
func (t *Table) Len() int { return len(t.canon) }

// Add appends id at position Len() and indexes it unless an equal id is
// there already; it returns the position of the first equal id and false
// in that case (the id is appended all the same, so positions stay those
// of the caller's list).
func (t *Table) Add(id string) (first int, fresh bool) {
	if (len(t.canon)+1)*3 > len(t.slots)*2 {
		t.grow() // before the new id goes in: grow indexes what is there
	}
	pos := int32(len(t.canon))
	k, ok := parse(id)
	t.canon = append(t.canon, k)
	if !ok {
		if t.odd == nil {
			t.odd = map[int32]string{}
		}
		t.odd[pos] = id
	}
	h := t.hash(k, ok, id)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = pos + 1
			return int(pos), true
		}
		if t.equal(s-1, k, ok, id) {
			t.dups++
			return int(s - 1), false
		}
	}
}

// Find returns the position of the first id equal to id.
func (t *Table) Find(id string) (int, bool) {
	k, ok := parse(id)
	mask := uint64(len(t.slots) - 1)
	for i := t.hash(k, ok, id) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, false
		}
		if t.equal(s-1, k, ok, id) {
			return int(s - 1), true
		}
	}
}

// Same says whether t and o hold the same ids in the same order (so one
// can stand for the other).
func (t *Table) Same(o *Table) bool {
	if t.Len() != o.Len() || len(t.odd) != len(o.odd) {
		return false
	}
	for p, s := range t.odd {
		if os, ok := o.odd[p]; !ok || os != s {
			return false
		}
	}
	for i := range t.canon {
		if t.canon[i] != o.canon[i] {
			return false
		}
	}
	return true
}

// Canonical says whether the id at position i is a canonical record id
// (so never empty).
func (t *Table) Canonical(i int) bool {
	_, odd := t.odd[int32(i)]
	return !odd
}

// At is the id at position i, as it was added.
func (t *Table) At(i int) string {
	if t.odd != nil {
		if s, ok := t.odd[int32(i)]; ok {
			return s
		}
	}
	return format(t.canon[i])
}

func (t *Table) hash(k [16]byte, canonical bool, id string) uint64 {
	if canonical {
		var h maphash.Hash
		h.SetSeed(t.seed)
		h.Write(k[:])
		return h.Sum64()
	}
	return maphash.String(t.seed, id)
}

func (t *Table) equal(pos int32, k [16]byte, canonical bool, id string) bool {
	s, odd := t.odd[pos]
	if canonical {
		return !odd && t.canon[pos] == k
	}
	return odd && s == id
}

// grow doubles the index and re-inserts every position except duplicates
// (the first of equal ids keeps the slot, as Add left it).
func (t *Table) grow() {
	t.slots = make([]int32, len(t.slots)*2)
	mask := uint64(len(t.slots) - 1)
	for pos := range t.canon {
		p := int32(pos)
		s, odd := t.odd[p]
		k := t.canon[pos]
		h := t.hash(k, !odd, s)
		for i := h & mask; ; i = (i + 1) & mask {
			q := t.slots[i]
			if q == 0 {
				t.slots[i] = p + 1
				break
			}
			if t.equal(q-1, k, !odd, s) {
				break // a later duplicate: the first one is indexed
			}
		}
	}
}

// parse reads a canonical id (record.CanonicalID: lowercase, the UUID
// layout); format turns it back into the same string (record.ID.String),
// so an id round-trips exactly.
func parse(s string) ([16]byte, bool) {
	id, ok := record.CanonicalID(s)
	return id, ok
}

func format(k [16]byte) string { return record.ID(k).String() }
