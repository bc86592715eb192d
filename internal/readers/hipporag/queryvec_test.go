package hipporag

import "testing"

func TestParsePyTriple(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][3]string{
		"('karen joy fowler', 'born on', 'february 7  1950')": {"karen joy fowler", "born on", "february 7  1950"},
		`("o'brien", 'is', 'a \\ b')`:                         {"o'brien", "is", `a \ b`},
	} {
		got, err := parsePyTriple(in)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "('a', 'b')", "('a', 'b', 'c', 'd')", "['a', 'b', 'c']", "('a', 'b', 'c", `('a', 'b', '\x41')`, "__import__('os')"} {
		if _, err := parsePyTriple(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}
