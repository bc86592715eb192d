package bigslice

import "testing"

func TestMakeIsZeroedAndWritable(t *testing.T) {
	var a Arena
	defer a.Free()
	for _, n := range []int{0, 10, 1 << 18} {
		s := Make[uint64](&a, n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("element %d not zero", i)
			}
			s[i] = uint64(i)
		}
		for i := range s {
			if s[i] != uint64(i) {
				t.Fatalf("element %d lost its value", i)
			}
		}
	}
	if len(a.free) != 1 {
		t.Fatalf("%d mapped arrays, want 1 (only the 2 MB one is mapped)", len(a.free))
	}
}
