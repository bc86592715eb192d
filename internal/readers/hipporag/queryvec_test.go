package hipporag

import "testing"

func TestParsePyTriple(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][3]string{
		"('karen joy fowler', 'born on', 'february 7  1950')": {"karen joy fowler", "born on", "february 7  1950"},
		`("o'brien", 'is', 'a \\ b')`:                         {"o'brien", "is", `a \ b`},
		// eval reads an escape str() would not write the same way.
		`('a', 'b', '\x41\101\q')`: {"a", "b", `AA\q`},
	} {
		got, err := parsePyTriple(in)
		if err != nil || got != want {
			t.Errorf("%s: %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "('a', 'b')", "('a', 'b', 'c', 'd')", "['a', 'b', 'c']", "('a', 'b', 'c", "__import__('os')",
		`('a', 'b', '\x4')`, `('a', 'b', '\ud800')`, `('a', 'b', '\N{EM DASH}')`, `('a', 'b', '\U00110000')`, "('a', 'b', 'line\nbreak')"} {
		if _, err := parsePyTriple(bad); err == nil {
			t.Errorf("%q was read", bad)
		}
	}
}
