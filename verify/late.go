package verify

import (
	"fmt"
	"slices"
)

// lateRecord is a record signed after a checkpoint the store saw that
// already contained it (TIME_AFTER_CHECKPOINT).
type lateRecord struct {
	ref     int // the caller's name for the record
	pos, ts uint64
	// first is the earliest-seen such checkpoint (smallest seen_at, then
	// smallest seq): the strongest evidence.
	first seenCheckpoint
	// count is how many checkpoints the store saw before ts already
	// contain the record.
	count int
}

func (l lateRecord) message() string {
	msg := fmt.Sprintf("signed at ts %d, after checkpoint %d (size %d, seen at %d) that already contains it", l.ts, l.first.seq, l.first.size, l.first.seenAt)
	if l.count > 1 {
		msg += fmt.Sprintf("; %d checkpoints seen before that time contain it", l.count)
	}
	return msg
}

// lateRecords finds every record signed after a checkpoint the store saw
// (seen_at > 0) whose size already covers the record's leaf, one result
// per record. visit must call fn for each record (ref: the caller's name
// for it) in non-increasing log position. Checkpoints enter a Fenwick tree over their seen_at ranks as
// the position falls below their size, so a store with n records and m
// checkpoints costs O((n + m) log m) instead of checking every record
// against every checkpoint. Results come back in descending position.
func lateRecords(cps []seenCheckpoint, visit func(fn func(ref int, pos, ts uint64))) []lateRecord {
	var by []seenCheckpoint // by size, largest first
	for _, cp := range cps {
		if cp.seenAt > 0 {
			by = append(by, cp)
		}
	}
	if len(by) == 0 {
		return nil
	}
	slices.SortFunc(by, func(a, b seenCheckpoint) int {
		if a.size != b.size {
			if a.size > b.size {
				return -1
			}
			return 1
		}
		return 0
	})
	seen := make([]uint64, len(by)) // distinct seen_at values, ascending
	for i, cp := range by {
		seen[i] = uint64(cp.seenAt)
	}
	slices.Sort(seen)
	seen = slices.Compact(seen)
	tree := make([]int, len(seen)+1) // Fenwick tree of checkpoint counts by seen_at rank
	add := func(rank int) {
		for i := rank + 1; i < len(tree); i += i & -i {
			tree[i]++
		}
	}
	below := func(n int) int { // checkpoints with seen_at rank < n
		c := 0
		for i := n; i > 0; i -= i & -i {
			c += tree[i]
		}
		return c
	}
	var out []lateRecord
	var first seenCheckpoint
	j := 0
	visit(func(ref int, pos, ts uint64) {
		for ; j < len(by) && by[j].size > pos; j++ {
			cp := by[j]
			rank, _ := slices.BinarySearch(seen, uint64(cp.seenAt))
			add(rank)
			if j == 0 || cp.seenAt < first.seenAt || cp.seenAt == first.seenAt && cp.seq < first.seq {
				first = cp
			}
		}
		if j == 0 || ts <= uint64(first.seenAt) {
			return
		}
		n, _ := slices.BinarySearch(seen, ts) // ranks of seen_at < ts
		out = append(out, lateRecord{ref: ref, pos: pos, ts: ts, first: first, count: below(n)})
	})
	return out
}
