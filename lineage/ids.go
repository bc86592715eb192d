package lineage

import (
	"bytes"
	"slices"

	"github.com/memscope/memscope/evidence/record"
)

// idTable holds a list of entry ids compactly. A signed record's id is a
// UUID, so the canonical text (lowercase 8-4-4-4-12) is kept as its 16
// bytes; any other text, which only a malformed or hostile row carries, is
// kept as it is in a side map. text gives back exactly the text added.
type idTable struct {
	keys []record.ID
	odd  map[int32]string // position -> id text that is not canonical
}

func (t *idTable) add(id string) {
	if k, ok := canonicalID(id); ok {
		t.keys = append(t.keys, k)
		return
	}
	if t.odd == nil {
		t.odd = map[int32]string{}
	}
	t.odd[int32(len(t.keys))] = id
	t.keys = append(t.keys, record.ID{})
}

func (t *idTable) addKey(k record.ID) { t.keys = append(t.keys, k) }

// isOdd reports whether position i holds non-canonical text.
func (t *idTable) isOdd(i int32) bool {
	if t.odd == nil {
		return false
	}
	_, ok := t.odd[i]
	return ok
}

// text is the id at position i as it was added.
func (t *idTable) text(i int32) string {
	if s, ok := t.odd[i]; ok {
		return s
	}
	return t.keys[i].String()
}

// sortedIndex lists the canonical positions ordered by key, and among
// equal keys by position, so a binary search finds an id's first row.
func (t *idTable) sortedIndex() []int32 {
	out := make([]int32, 0, len(t.keys)-len(t.odd))
	for i := range t.keys {
		if !t.isOdd(int32(i)) {
			out = append(out, int32(i))
		}
	}
	keys := t.keys
	slices.SortFunc(out, func(a, b int32) int {
		if c := bytes.Compare(keys[a][:], keys[b][:]); c != 0 {
			return c
		}
		return int(a - b)
	})
	return out
}

// duplicates maps every position whose id an earlier position holds to
// that first position (empty ids are never duplicates: nothing names them).
func (t *idTable) duplicates(sorted []int32) map[int32]int32 {
	out := map[int32]int32{}
	for j := 1; j < len(sorted); j++ {
		first := sorted[j-1]
		if d, ok := out[first]; ok {
			first = d
		}
		if t.keys[sorted[j]] == t.keys[sorted[j-1]] {
			out[sorted[j]] = first
		}
	}
	seen := map[string]int32{}
	for i, s := range t.odd {
		if s == "" {
			continue
		}
		if f, ok := seen[s]; !ok || i < f {
			seen[s] = i
		}
	}
	for i, s := range t.odd {
		if f := seen[s]; s != "" && f != i {
			out[i] = f
		}
	}
	return out
}

// oddIndex maps each non-empty, non-canonical id to its first position.
func (t *idTable) oddIndex() map[string]int32 {
	if len(t.odd) == 0 {
		return nil
	}
	out := make(map[string]int32, len(t.odd))
	for i, s := range t.odd {
		if s == "" {
			continue
		}
		if f, ok := out[s]; !ok || i < f {
			out[s] = i
		}
	}
	return out
}

// permute reorders the table: position perm[n] moves to n.
func (t *idTable) permute(perm []int32) idTable {
	out := idTable{keys: make([]record.ID, len(perm))}
	inChunks(len(perm), func(lo, hi int) {
		for n := lo; n < hi; n++ {
			out.keys[n] = t.keys[perm[n]]
		}
	})
	if len(t.odd) > 0 {
		out.odd = make(map[int32]string, len(t.odd))
		for n, old := range perm {
			if s, ok := t.odd[old]; ok {
				out.odd[int32(n)] = s
			}
		}
	}
	return out
}

// canonicalID: only the canonical text round-trips through the 16-byte key.
func canonicalID(s string) (record.ID, bool) { return record.CanonicalID(s) }

// find returns the first position holding key k, by binary search over
// sorted (sortedIndex of this table).
func (t *idTable) find(sorted []int32, k record.ID) (int32, bool) {
	keys := t.keys
	j, ok := slices.BinarySearchFunc(sorted, k, func(p int32, k record.ID) int {
		return bytes.Compare(keys[p][:], k[:])
	})
	if !ok {
		return 0, false
	}
	return sorted[j], true
}
