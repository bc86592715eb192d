package record

import "testing"

// canonicalByParse is the slow definition CanonicalID must agree with.
func canonicalByParse(s string) (ID, bool) {
	id, err := ParseID(s)
	if err != nil || id.String() != s {
		return ID{}, false
	}
	return id, true
}

func TestCanonicalIDAgreesWithParseID(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0190a1b2-c3d4-7e5f-8a9b-00000000002a",
		"0190A1B2-c3d4-7e5f-8a9b-00000000002a",
		"0190a1b2c3d47e5f8a9b00000000002a",
		"0190a1b2-c3d4-7e5f-8a9b-00000000002g",
		"0190a1b2-c3d47-e5f-8a9b-00000000002a",
		"",
		"not an id",
	} {
		a, okA := CanonicalID(s)
		b, okB := canonicalByParse(s)
		if a != b || okA != okB {
			t.Errorf("%q: CanonicalID %v %v, ParseID %v %v", s, a, okA, b, okB)
		}
	}
}

func FuzzCanonicalID(f *testing.F) {
	f.Add("0190a1b2-c3d4-7e5f-8a9b-00000000002a")
	f.Add("0190A1B2-c3d4-7e5f-8a9b-00000000002a")
	f.Add("0190a1b2c3d47e5f8a9b00000000002a----")
	f.Fuzz(func(t *testing.T, s string) {
		a, okA := CanonicalID(s)
		b, okB := canonicalByParse(s)
		if a != b || okA != okB {
			t.Fatalf("%q: CanonicalID %v %v, ParseID %v %v", s, a, okA, b, okB)
		}
	})
}
