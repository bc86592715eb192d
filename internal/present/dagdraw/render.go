package dagdraw

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Glyphs is a glyph set for drawing.
type Glyphs struct {
	Node, Focus         string
	Vert, Horiz         [3]string // by style: strong, weak, elided
	UpLeft, UpRight     string    // ┘ └
	DownLeft, DownRight string    // ┐ ┌
	UpDownLeft          string    // ┤
	UpDownRight         string    // ├
	UpLeftRight         string    // ┴
	DownLeftRight       string    // ┬
	Cross               string    // ┼
	Arrow               string
	ASCII               bool
}

// Box draws with Unicode box-drawing characters: solid lines for strong
// edges, dashed for weak ones, dotted for elided ancestry.
var Box = Glyphs{
	Node: "●", Focus: "◉",
	Vert:   [3]string{"│", "┆", "┊"},
	Horiz:  [3]string{"─", "┄", "┈"},
	UpLeft: "┘", UpRight: "└", DownLeft: "┐", DownRight: "┌",
	UpDownLeft: "┤", UpDownRight: "├", UpLeftRight: "┴", DownLeftRight: "┬", Cross: "┼",
}

// ASCII draws with plain ASCII for plain or accessible output.
var ASCII = Glyphs{
	Node: "*", Focus: "@",
	Vert:   [3]string{"|", ":", "."},
	Horiz:  [3]string{"-", "~", "."},
	UpLeft: "+", UpRight: "+", DownLeft: "+", DownRight: "+",
	UpDownLeft: "+", UpDownRight: "+", UpLeftRight: "+", DownLeftRight: "+", Cross: "+",
	ASCII: true,
}

// Legend explains the glyphs in one line.
func (gl Glyphs) Legend() string {
	return gl.Vert[strong] + " strong edge (w > tau)   " + gl.Vert[weak] + " weak edge (w <= tau)   " +
		gl.Vert[elided] + " elided ancestry   " + gl.Node + " entry   " + gl.Focus + " focus   +N more lanes"
}

func (gl Glyphs) cell(c cell) string {
	f := c.flags &^ nodeCell
	switch f {
	case 0:
		return " "
	case up, down, up | down:
		return gl.Vert[c.vert]
	case left, right, left | right:
		return gl.Horiz[c.horiz]
	case up | left:
		return gl.UpLeft
	case up | right:
		return gl.UpRight
	case down | left:
		return gl.DownLeft
	case down | right:
		return gl.DownRight
	case up | down | left:
		return gl.UpDownLeft
	case up | down | right:
		return gl.UpDownRight
	case up | left | right:
		return gl.UpLeftRight
	case down | left | right:
		return gl.DownLeftRight
	}
	return gl.Cross
}

// RenderRow draws row i in at most width display columns.
func (l *Layout) RenderRow(i, width int, gl Glyphs) string {
	r := l.rows[i]
	var b strings.Builder
	nodeHidden := false
	for k, c := range r.lanes {
		if k >= l.cap {
			if c.flags&nodeCell != 0 {
				nodeHidden = true
			}
			continue
		}
		if c.flags&nodeCell != 0 {
			if r.Node >= 0 && l.g.Nodes[r.Node].Focus {
				b.WriteString(gl.Focus)
			} else {
				b.WriteString(gl.Node)
			}
		} else {
			b.WriteString(gl.cell(c))
		}
		if k < len(r.spans) && r.spans[k] >= 0 {
			b.WriteString(gl.Horiz[r.spans[k]])
		} else {
			b.WriteString(" ")
		}
	}
	drawn := min(len(r.lanes), l.cap)
	b.WriteString(strings.Repeat(" ", max(0, min(l.maxLanes, l.cap)*2-drawn*2)))
	if l.maxLanes > l.cap {
		over := 0
		for k := l.cap; k < len(r.lanes); k++ {
			if r.lanes[k].flags != 0 {
				over++
			}
		}
		mark := "    "
		if over > 0 {
			mark = "+" + itoa(over)
			if nodeHidden {
				mark += gl.Node
			}
			mark = padRight(mark, 4)
		}
		b.WriteString(mark)
	}
	line := b.String()
	if r.Node >= 0 {
		n := l.g.Nodes[r.Node]
		text := clean(n.Trust)
		if text != "" {
			text = "[" + text + "] "
		}
		// Weights come before the label: a long label is what gets cut at
		// the width, never the edge weights.
		if a := l.annotation(r.Node, gl.ASCII); a != "" {
			text += a + "  "
		}
		text += clean(n.Label)
		line += " " + text
	}
	return truncate(strings.TrimRight(line, " "), width)
}

// Render draws rows [from, to) (clamped to the layout), one string each.
func (l *Layout) Render(from, to, width int, gl Glyphs) []string {
	from = max(0, from)
	to = min(len(l.rows), to)
	out := make([]string, 0, max(0, to-from))
	for i := from; i < to; i++ {
		out = append(out, l.RenderRow(i, width, gl))
	}
	return out
}

// Text draws the whole layout with a legend line, for plain output.
func (l *Layout) Text(width int, gl Glyphs) string {
	rows := l.Render(0, l.Len(), width, gl)
	return strings.Join(rows, "\n") + "\n" + truncate(gl.Legend(), width) + "\n"
}

// clean neutralises anything that could break the one-line layout: control
// and format characters (including bidi overrides and zero-width ones)
// become U+FFFD, invalid UTF-8 too.
func clean(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if unsafeRune(r) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unsafeRune reports characters that must not reach output verbatim:
// invalid UTF-8, controls (C0, DEL, C1), format characters (bidi controls,
// zero-width characters) and line or paragraph separators.
func unsafeRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// truncate cuts s to width display columns, ending with "…" when cut.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	// Widths are the terminal inspector's (Lip Gloss measures with
	// ansi.StringWidth): ambiguous-width characters, box drawing among
	// them, are narrow whatever the locale.
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

func padRight(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(min(n, 99)) }
