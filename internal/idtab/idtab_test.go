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
	for i, id := range ids {
		if got := tab.At(i); got != id {
			t.Fatalf("At(%d) = %q, want %q", i, got, id)
		}
		j, ok := tab.Find(id)
		if !ok || ids[j] != id || j > i {
			t.Fatalf("Find(%q) = %d, %v", id, j, ok)
		}
	}
	for _, id := range []string{"019b76da-b514-7c45-b83c-ffffffffffff", "w-1", "x"} {
		if _, ok := tab.Find(id); ok {
			t.Errorf("Find(%q) found an id never added", id)
		}
	}
}
