package lineage

import (
	"bytes"
	"encoding/binary"

	"github.com/memscope/memscope/evidence/record"
)

// idDirectory narrows find's binary search to a bucket: the keys' first
// eight bytes, as a number between the smallest and the largest, choose
// one of about as many buckets as there are keys, and dir[b] is the first
// position in sorted whose key falls in bucket b or later. Ids of a store
// (random or time-ordered UUIDs) spread over the buckets, so a lookup
// reads a bucket of a key or two instead of twenty levels of a binary
// search, each a cache miss at a million entries. Keys that crowd into
// one bucket (ids chosen to) are searched by bisection within it, as find
// does, so no input makes it slower than find by more than the directory
// read. Graph uses it to resolve every parent reference once.
type idDirectory struct {
	keys   []record.ID
	sorted []int32
	lo     uint64
	width  uint64 // of a bucket, in units of the first eight bytes
	dir    []int32
}

func head(k *record.ID) uint64 { return binary.BigEndian.Uint64(k[:8]) }

func newIDDirectory(keys []record.ID, sorted []int32) *idDirectory {
	d := &idDirectory{keys: keys, sorted: sorted}
	n := len(sorted)
	if n == 0 {
		return d
	}
	d.lo = head(&keys[sorted[0]])
	span := head(&keys[sorted[n-1]]) - d.lo
	// span/n+1 buckets of n keys each hold about one; the +1 keeps the
	// width at least 1 and the bucket count at most n+1.
	d.width = span/uint64(n) + 1
	buckets := int(span/d.width) + 1
	d.dir = make([]int32, buckets+1)
	b := 0
	for j, p := range sorted {
		for kb := int((head(&keys[p]) - d.lo) / d.width); b <= kb; b++ {
			d.dir[b] = int32(j)
		}
	}
	for ; b <= buckets; b++ {
		d.dir[b] = int32(n)
	}
	return d
}

// find is idTable.find over the directory's table: the first position
// holding k.
func (d *idDirectory) find(k record.ID) (int32, bool) {
	if len(d.sorted) == 0 {
		return 0, false
	}
	h := head(&k)
	if h < d.lo {
		return 0, false
	}
	b := (h - d.lo) / d.width
	if b >= uint64(len(d.dir)-1) {
		return 0, false
	}
	// The first key not below k within the bucket (keys of equal value
	// are ordered by position, so that is the first position).
	i, j := int(d.dir[b]), int(d.dir[b+1])
	for i < j {
		m := int(uint(i+j) >> 1)
		if bytes.Compare(d.keys[d.sorted[m]][:], k[:]) < 0 {
			i = m + 1
		} else {
			j = m
		}
	}
	if i < int(d.dir[b+1]) && d.keys[d.sorted[i]] == k {
		return d.sorted[i], true
	}
	return 0, false
}
