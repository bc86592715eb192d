package verify

import (
	"bytes"
	"slices"

	"github.com/memscope/memscope/record"
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

// leafRef maps a record id to its leaf index.
type leafRef struct {
	id    record.ID
	index uint64
}

// leafTable is a sorted id -> leaf index table.
type leafTable []leafRef

func (t leafTable) sort() {
	slices.SortFunc(t, func(a, b leafRef) int { return bytes.Compare(a.id[:], b.id[:]) })
}

func (t leafTable) lookup(id record.ID) (uint64, bool) {
	i, ok := slices.BinarySearchFunc(t, id, func(a leafRef, b record.ID) int { return bytes.Compare(a.id[:], b[:]) })
	if !ok {
		return 0, false
	}
	return t[i].index, true
}
