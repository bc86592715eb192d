package finding

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClipKeepsWholeCodePoints(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc..."},
		{"ééé", 2, "éé..."},
		{"ééé", 3, "ééé"},
		{"a\x1bb", 2, "a\x1b..."},
		{strings.Repeat("界", 50), 40, strings.Repeat("界", 40) + "..."},
	} {
		got := Clip(c.in, c.n)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if utf8.ValidString(c.in) && !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) cut a code point: %q", c.in, c.n, got)
		}
	}
	if got := QuoteAll([]string{`a"b`, "c\\d"}); got != `"a"b", "c\d"` {
		t.Errorf("QuoteAll = %s", got)
	}
}
