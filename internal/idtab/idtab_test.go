package idtab

import (
	"fmt"
	"testing"
)

// TestTable: every id comes back as added, canonical or not, each finds
// its first position, duplicates are reported with the first one, and
// growing the index past its initial size loses nothing.
func TestTable(t *testing.T) {
	t.Parallel()
	var ids []string
	for i := range 3000 {
		switch i % 4 {
		case 0, 1:
			ids = append(ids, fmt.Sprintf("019b76da-b514-7c45-b83c-%012x", i*7919))
		case 2:
			ids = append(ids, fmt.Sprintf("w%d", i))
		default:
			ids = append(ids, fmt.Sprintf("019B76DA-B514-7C45-B83C-%012X", i)) // upper case: not canonical
		}
	}
	ids = append(ids, ids[5], ids[6], ids[7], "")
	tab := New(10) // grows many times
	for i, id := range ids {
		first, fresh := tab.Add(id)
		want := i
		for j := range i {
			if ids[j] == id {
				want = j
				break
			}
		}
		if fresh != (want == i) || first != want {
			t.Fatalf("Add(%q) at %d = %d, %v; want %d", id, i, first, fresh, want)
		}
	}
	if tab.Len() != len(ids) {
		t.Fatalf("Len %d, want %d", tab.Len(), len(ids))
	}
	checkTable(t, tab, ids, "019b76da-b514-7c45-b83c-ffffffffffff", "w-1", "x")
}

// checkTable: every id comes back at its position and is found at its
// first one; the absent ids are not found.
func checkTable(t *testing.T, tab *Table, ids []string, absent ...string) {
	t.Helper()
	for i, id := range ids {
		if got := tab.At(i); got != id {
			t.Fatalf("At(%d) = %q, want %q", i, got, id)
		}
		j, ok := tab.Find(id)
		if !ok || ids[j] != id || j > i {
			t.Fatalf("Find(%q) = %d, %v", id, j, ok)
		}
	}
	for _, id := range absent {
		if _, ok := tab.Find(id); ok {
			t.Errorf("Find(%q) found an id never added", id)
		}
	}
}

// TestPairedIDs: ids added by AddPair are spelt out from the caller's pairs
// and found, among canonical and other ids, through many growths of the
// index (which hashes them without spelling them out); a repeated pair id
// is a duplicate of the first, and a canonical id given to AddPair is kept
// as canonical.
func TestPairedIDs(t *testing.T) {
	t.Parallel()
	type pair struct{ a, b string }
	var pairs []pair // per position; zero for ids not added by AddPair
	tab := New(4)
	tab.SpellPairs("--", func(pos int) (string, string) { return pairs[pos].a, pairs[pos].b })
	var ids []string
	add := func(id string, p pair) {
		pairs = append(pairs, p)
		ids = append(ids, id)
		var first int
		var fresh bool
		if p.a != "" {
			first, fresh = tab.AddPair(id)
		} else {
			first, fresh = tab.Add(id)
		}
		want := len(ids) - 1
		for j, o := range ids[:len(ids)-1] {
			if o == id {
				want = j
				break
			}
		}
		if first != want || fresh != (want == len(ids)-1) {
			t.Fatalf("adding %q at %d: %d, %v; want %d", id, len(ids)-1, first, fresh, want)
		}
	}
	for i := range 2000 {
		a, b := fmt.Sprintf("n%d", i), fmt.Sprintf("m%d", i*7)
		switch i % 5 {
		case 0:
			add(fmt.Sprintf("019b76da-b514-7c45-b83c-%012x", i), pair{})
		case 1:
			add(fmt.Sprintf("odd%d", i), pair{})
		case 4:
			add(pairs[i-2].a+"--"+pairs[i-2].b, pair{pairs[i-2].a, pairs[i-2].b}) // a repeat
		default:
			add(a+"--"+b, pair{a, b})
		}
	}
	add("019b76da-b514-7c45-b83c-000000000001", pair{"019b76da-b514-7c45-b83c", "000000000001"})
	add("n2--m14", pair{}) // the same id as a pair, added plainly
	if !tab.Canonical(len(ids) - 2) {
		t.Error("a canonical id given to AddPair is not kept as canonical")
	}
	checkTable(t, tab, ids, "n2--m15", "n2-m14", "n2--", "--m14", "n2--m14x")
	other := New(0)
	for _, id := range ids {
		other.Add(id)
	}
	if !tab.Same(other) || !other.Same(tab) {
		t.Error("a table of the same ids added plainly is not the Same")
	}
}
