package lineage

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/memscope/memscope/evidence/record"
)

// The directory answers every lookup as the binary search over the whole
// sorted table does (the first position of a present key, nothing for an
// absent one), for keys spread as random UUIDs are, crowded into a few
// heads as hostile ids can be, at both ends of the key space, repeated,
// and for tables of zero, one and two keys.
func TestIDDirectoryFindsWhatBinarySearchFinds(t *testing.T) {
	r := newRand(7)
	random := func() record.ID {
		var k record.ID
		binary.BigEndian.PutUint64(k[:8], r.Uint64())
		binary.BigEndian.PutUint64(k[8:], r.Uint64())
		return k
	}
	crowded := func() record.ID {
		k := random()
		binary.BigEndian.PutUint64(k[:8], uint64(r.IntN(3))) // three heads
		return k
	}
	extreme := func() record.ID {
		k := random()
		if r.IntN(2) == 0 {
			binary.BigEndian.PutUint64(k[:8], 0)
		} else {
			binary.BigEndian.PutUint64(k[:8], math.MaxUint64-uint64(r.IntN(2)))
		}
		return k
	}
	mixed := func() record.ID {
		switch r.IntN(3) {
		case 0:
			return crowded()
		case 1:
			return extreme()
		}
		return random()
	}
	for _, tc := range []struct {
		name string
		n    int
		key  func() record.ID
	}{
		{"empty", 0, random}, {"one", 1, random}, {"two", 2, extreme},
		{"random", 5000, random}, {"crowded", 5000, crowded},
		{"extremes", 3000, extreme}, {"mixed", 8000, mixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tab idTable
			for range tc.n {
				k := tc.key()
				tab.addKey(k)
				if r.IntN(10) == 0 { // the same id again, later
					tab.addKey(k)
				}
			}
			sorted := tab.sortedIndex()
			d := newIDDirectory(tab.keys, sorted)
			probes := append([]record.ID{{}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, tab.keys...)
			for range tc.n + 10 {
				probes = append(probes, tc.key()) // absent, almost surely
			}
			for _, k := range probes {
				wantPos, wantOK := tab.find(sorted, k)
				gotPos, gotOK := d.find(k)
				if gotPos != wantPos || gotOK != wantOK {
					t.Fatalf("key %x: directory %d %v, binary search %d %v", k, gotPos, gotOK, wantPos, wantOK)
				}
			}
		})
	}
}
