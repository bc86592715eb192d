package verify

import (
	"hash/maphash"
	"slices"
	"sync"
)

// entryIndex says whether an entry id was a row of the verified evidence,
// so that Report.Entry can tell "passed" from "not in this evidence". It
// keeps a keyed 64-bit hash per entry (8 bytes; a set of the ids would be
// 16 bytes an entry, 160 MB at 10M). The key is random per run: whoever
// wrote the evidence cannot choose an id that collides with one they did
// not write.
type entryIndex struct {
	seed   maphash.Seed
	mu     sync.Mutex
	sums   []uint64
	sorted bool
}

func newEntryIndex() *entryIndex { return &entryIndex{seed: maphash.MakeSeed()} }

// reserve sizes the index for n entries once (the row count): appends
// would hold the old and the new array at once. Past 16M entries (128 MB)
// it grows as rows arrive, so a row count is never an allocation alone.
func (x *entryIndex) reserve(n int) {
	n = min(n, 1<<24)
	x.mu.Lock()
	if cap(x.sums)-len(x.sums) < n {
		x.sums = append(make([]uint64, 0, len(x.sums)+n), x.sums...)
	}
	x.mu.Unlock()
}

func (x *entryIndex) add(eid string) {
	h := maphash.String(x.seed, eid)
	x.mu.Lock()
	x.sums = append(x.sums, h)
	x.sorted = false
	x.mu.Unlock()
}

func (x *entryIndex) has(eid string) bool {
	if x == nil {
		return false
	}
	h := maphash.String(x.seed, eid)
	x.mu.Lock()
	defer x.mu.Unlock()
	x.sortLocked()
	_, ok := slices.BinarySearch(x.sums, h)
	return ok
}

// sort readies the index for look-ups (has sorts it on first use).
func (x *entryIndex) sort() {
	if x == nil {
		return
	}
	x.mu.Lock()
	x.sortLocked()
	x.mu.Unlock()
}

func (x *entryIndex) sortLocked() {
	if !x.sorted {
		slices.Sort(x.sums)
		x.sorted = true
	}
}

// SortEntries readies the report's entry look-ups (Entry) now instead of
// at the first of them (a sort of a million hashes): a caller with a core
// to spare, as the inspector building its lineage graph after
// verification, does it beside that work.
func (r *Report) SortEntries() { r.entries.sort() }
