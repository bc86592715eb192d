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
	if !x.sorted {
		slices.Sort(x.sums)
		x.sorted = true
	}
	_, ok := slices.BinarySearch(x.sums, h)
	return ok
}
