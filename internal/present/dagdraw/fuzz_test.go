package dagdraw

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// FuzzLabels feeds arbitrary label, trust and id text through the row
// renderer and the DOT quoting: rows must stay one line within the width,
// DOT strings must stay one quoted token.
func FuzzLabels(f *testing.F) {
	f.Add("plain label", "DU", "id-1", 40)
	f.Add("evil\n\x1b[31m\u202e\u200b\x9b\xff", "E\tX", "a\"b\\c", 12)
	f.Add("全角文字全角文字全角文字全角文字", "T", "\\N", 7)
	f.Fuzz(func(t *testing.T, label, trust, id string, width int) {
		width = width%200 + 1
		if width < 1 {
			width += 200
		}
		g := sampleGraph()
		g.Nodes[2].Label, g.Nodes[2].Trust, g.Nodes[2].ID = label, trust, id
		l, err := NewLayout(g, Options{MaxLanes: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < l.Len(); i++ {
			for _, gl := range []Glyphs{Box, ASCII} {
				s := l.RenderRow(i, width, gl)
				if w := ansi.StringWidth(s); w > width {
					t.Fatalf("row %d width %d > %d: %q", i, w, width, s)
				}
				if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\x1b\u009b") {
					t.Fatalf("row %d unsafe: %q", i, s)
				}
			}
		}
		q := dotQuote(id + label)
		body := q[1 : len(q)-1]
		// Every quote inside must be escaped: remove escaped pairs, none left.
		body = strings.ReplaceAll(body, `\\`, "")
		if strings.Contains(strings.ReplaceAll(body, `\"`, ""), `"`) || strings.ContainsAny(q, "\n\r") || !utf8.ValidString(q) {
			t.Fatalf("unsafe DOT string %q", q)
		}
	})
}
