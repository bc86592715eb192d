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
	n     int              // ids added
	hint  int              // the size New was given, for canon's first allocation
	canon [][16]byte       // canon[i]: id i when canonical (positions past the end are not)
	odd   map[int32]string // positions whose id is neither canonical nor paired
	// Paired ids (AddPair) are kept as nothing but a bit: pair spells
	// them out from what the caller holds.
	paired []uint64
	sep    string
	pair   func(pos int) (a, b string)
	slots  []int32 // open addressing: 0 empty, else position+1
	seed   maphash.Seed
	dups   int // ids added that equal an earlier one
}

// Dups is the number of ids added that equal an earlier one.
func (t *Table) Dups() int { return t.dups }

// New returns an empty table sized for about n ids.
func New(n int) *Table {
	t := &Table{hint: max(n, 0), seed: maphash.MakeSeed()}
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
func (t *Table) Len() int { return t.n }

// SpellPairs lets the table keep ids of the form a+sep+b as nothing but
// a bit (AddPair): pair(pos) gives a and b of the id at pos from what the
// caller holds (say, an edge's endpoints). It must answer for every
// position added by AddPair before the table's next call.
func (t *Table) SpellPairs(sep string, pair func(pos int) (a, b string)) {
	t.sep, t.pair = sep, pair
}

// AddPair is Add for an id that is pair(Len())'s a+sep+b (SpellPairs): the
// id is not kept, only spelt out again when asked for. An id that is
// canonical is kept as Add keeps it.
func (t *Table) AddPair(id string) (first int, fresh bool) {
	if _, ok := parse(id); ok || t.pair == nil {
		return t.Add(id)
	}
	return t.insert(id, [16]byte{}, false, true)
}

// Add appends id at position Len() and indexes it unless an equal id is
// there already; it returns the position of the first equal id and false
// in that case (the id is appended all the same, so positions stay those
// of the caller's list).
func (t *Table) Add(id string) (first int, fresh bool) {
	k, ok := parse(id)
	return t.insert(id, k, ok, false)
}

func (t *Table) insert(id string, k [16]byte, canonical, paired bool) (first int, fresh bool) {
	if (t.n+1)*3 > len(t.slots)*2 {
		t.grow() // before the new id goes in: grow indexes what is there
	}
	pos := int32(t.n)
	t.n++
	switch {
	case canonical:
		if t.canon == nil {
			t.canon = make([][16]byte, 0, max(t.hint, t.n))
		}
		for len(t.canon) < int(pos) {
			t.canon = append(t.canon, [16]byte{})
		}
		t.canon = append(t.canon, k)
	case paired:
		for len(t.paired) <= int(pos/64) {
			t.paired = append(t.paired, 0)
		}
		t.paired[pos/64] |= 1 << (pos % 64)
	default:
		if t.odd == nil {
			t.odd = map[int32]string{}
		}
		t.odd[pos] = id
	}
	h := t.hash(k, canonical, id)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.slots[i] = pos + 1
			return int(pos), true
		}
		if t.equal(s-1, k, canonical, id) {
			t.dups++
			return int(s - 1), false
		}
	}
}

// Paired says whether the id at position i is kept as a pair (AddPair).
func (t *Table) Paired(i int) bool { return t.isPaired(int32(i)) }

// isPaired says whether the id at pos was added by AddPair.
func (t *Table) isPaired(pos int32) bool {
	w := int(pos / 64)
	return w < len(t.paired) && t.paired[w]&(1<<(pos%64)) != 0
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
	if t.Len() != o.Len() {
		return false
	}
	for i := range t.n {
		tc := t.Canonical(i)
		switch {
		case tc != o.Canonical(i):
			return false
		case tc:
			if t.canon[i] != o.canon[i] {
				return false
			}
		case t.At(i) != o.At(i):
			return false
		}
	}
	return true
}

// Canonical says whether the id at position i is a canonical record id
// (so never empty).
func (t *Table) Canonical(i int) bool {
	_, odd := t.odd[int32(i)]
	return i < len(t.canon) && !odd && !t.isPaired(int32(i))
}

// At is the id at position i, as it was added.
func (t *Table) At(i int) string {
	if t.isPaired(int32(i)) {
		a, b := t.pair(i)
		return a + t.sep + b
	}
	if s, ok := t.odd[int32(i)]; ok {
		return s
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

// pairHash is hash of a paired id without spelling it out: maphash
// hashes a sequence of writes as it hashes their concatenation.
func (t *Table) pairHash(pos int) uint64 {
	a, b := t.pair(pos)
	var h maphash.Hash
	h.SetSeed(t.seed)
	h.WriteString(a)
	h.WriteString(t.sep)
	h.WriteString(b)
	return h.Sum64()
}

func (t *Table) equal(pos int32, k [16]byte, canonical bool, id string) bool {
	if t.isPaired(pos) {
		// A paired id is never canonical (AddPair).
		if canonical {
			return false
		}
		a, b := t.pair(int(pos))
		return len(id) == len(a)+len(t.sep)+len(b) && id[:len(a)] == a && id[len(a):len(a)+len(t.sep)] == t.sep && id[len(a)+len(t.sep):] == b
	}
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
	for pos := range t.n {
		p := int32(pos)
		var k [16]byte
		var h uint64
		s, odd := t.odd[p]
		canonical := false
		switch {
		case t.isPaired(p):
			h = t.pairHash(pos)
			s = t.At(pos) // for equal: growing is rare (New is sized)
		case odd:
			h = t.hash(k, false, s)
		default:
			k, canonical = t.canon[pos], true
			h = t.hash(k, true, "")
		}
		for i := h & mask; ; i = (i + 1) & mask {
			q := t.slots[i]
			if q == 0 {
				t.slots[i] = p + 1
				break
			}
			if t.equal(q-1, k, canonical, s) {
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
