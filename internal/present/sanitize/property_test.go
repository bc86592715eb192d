package sanitize

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// forbiddenOutputRune reports runes that must never reach a terminal raw. It
// is written from the unicode package's own tables, independently of
// classifyRune, so the two check each other.
func forbiddenOutputRune(r rune) bool {
	return unicode.IsControl(r) || // C0, DEL, C1
		unicode.In(r, unicode.Bidi_Control, unicode.Cf, unicode.Zl, unicode.Zp,
			unicode.Other_Default_Ignorable_Code_Point) ||
		(r >= 0xE0000 && r <= 0xE0FFF)
}

// checkOutput asserts the output invariants: valid UTF-8, no control except
// LF in block mode, no bidi or invisible rune, and a variation selector only
// as a single U+FE0E/U+FE0F right after a visible rune.
func checkOutput(t *testing.T, in, out string, block bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output of %q is not valid UTF-8: %q", in, out)
	}
	prev := rune(-1)
	for i, r := range out {
		switch {
		case r == '\n' && block:
		case forbiddenOutputRune(r):
			t.Fatalf("output of %q has forbidden %U at byte %d: %q", in, r, i, out)
		case unicode.Is(unicode.Variation_Selector, r):
			if r != 0xFE0E && r != 0xFE0F || prev < 0 || prev == '\n' ||
				unicode.Is(unicode.Variation_Selector, prev) {
				t.Fatalf("output of %q has unmarked selector %U after %U: %q", in, r, prev, out)
			}
		}
		prev = r
	}
}

// reconstruct maps pieces back to the input bytes, checking that each escape
// is well formed and stands for something that really needed escaping.
func reconstruct(t *testing.T, pieces []Piece) string {
	t.Helper()
	var b strings.Builder
	for _, p := range pieces {
		if p.Text == "" {
			t.Fatalf("empty piece in %q", pieces)
		}
		switch p.Kind {
		case Verbatim:
			b.WriteString(p.Text)
		case TabSpaces:
			if strings.Trim(p.Text, " ") != "" {
				t.Fatalf("tab piece %q is not spaces", p.Text)
			}
			b.WriteByte('\t')
		case Escape:
			b.WriteString(unescape(t, p.Text))
		default:
			t.Fatalf("unknown piece kind %d", p.Kind)
		}
	}
	return b.String()
}

func unescape(t *testing.T, e string) string {
	t.Helper()
	switch e {
	case `\\`:
		return `\`
	case `\<`:
		return "<"
	case `\e`:
		return "\x1b"
	case `\t`:
		return "\t"
	case `\n`:
		return "\n"
	case `\r`:
		return "\r"
	}
	if len(e) == 4 && strings.HasPrefix(e, `\x`) {
		v, err := strconv.ParseUint(e[2:], 16, 8)
		if err != nil || strings.ToLower(e) != e {
			t.Fatalf("bad byte escape %q", e)
		}
		b := byte(v)
		if b >= 0x20 && b < 0x7F || b == 0x1B || b == '\t' || b == '\n' || b == '\r' {
			t.Fatalf("byte escape %q for a byte with its own notation or none needed", e)
		}
		return string([]byte{b})
	}
	if strings.HasPrefix(e, "<U+") && strings.HasSuffix(e, ">") {
		digits := e[3 : len(e)-1]
		v, err := strconv.ParseUint(digits, 16, 32)
		if err != nil || len(digits) < 4 || len(digits) > 6 || strings.ToUpper(digits) != digits ||
			(len(digits) > 4 && digits[0] == '0') {
			t.Fatalf("bad code point escape %q", e)
		}
		r := rune(v)
		if !utf8.ValidRune(r) || r < 0x80 ||
			!forbiddenOutputRune(r) && !unicode.Is(unicode.Variation_Selector, r) {
			t.Fatalf("code point escape %q for a rune that needs none", e)
		}
		return string(r)
	}
	t.Fatalf("unknown escape %q", e)
	return ""
}

// inputPrintables lists, in order, the runes of in that may be shown as they
// are (LF counts in block mode). Variation selectors are left out on both sides
// because whether one passes depends on its neighbour.
func inputPrintables(in string, block bool) string {
	var b strings.Builder
	for i := 0; i < len(in); {
		r, size := utf8.DecodeRuneInString(in[i:])
		i += size
		switch {
		case r == '\\', r == '<' && strings.HasPrefix(in[i:], "U+"): // escaped literals
		case r == utf8.RuneError && size == 1:
		case r == '\n' && block:
			b.WriteRune(r)
		case forbiddenOutputRune(r), unicode.Is(unicode.Variation_Selector, r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func verbatimPrintables(pieces []Piece) string {
	var b strings.Builder
	for _, p := range pieces {
		if p.Kind != Verbatim {
			continue
		}
		for _, r := range p.Text {
			if !unicode.Is(unicode.Variation_Selector, r) {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

func joinPieces(pieces []Piece) string {
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(p.Text)
	}
	return b.String()
}

// checkProperties asserts everything that must hold for any input.
func checkProperties(t *testing.T, in string, block bool, tabWidth int) {
	t.Helper()
	var out string
	var pieces []Piece
	growth := 4 // worst case: one byte becomes \xNN, a 2-byte rune <U+XXXX>
	if block {
		out, pieces = Block(in, tabWidth), BlockPieces(in, tabWidth)
		growth = max(growth, clampTabWidth(tabWidth))
	} else {
		out, pieces = Line(in), LinePieces(in)
	}
	checkOutput(t, in, out, block)

	if joined := joinPieces(pieces); joined != out {
		t.Fatalf("pieces of %q join to %q, want %q", in, joined, out)
	}
	// Lossless: every input byte is either shown verbatim, in order, or
	// stands behind exactly one escape or tab.
	if back := reconstruct(t, pieces); back != in {
		t.Fatalf("pieces of %q map back to %q", in, back)
	}
	if got, want := verbatimPrintables(pieces), inputPrintables(in, block); got != want {
		t.Fatalf("verbatim text of %q is %q, want its printable runes %q", in, got, want)
	}
	if clean := len(pieces) == 0 || len(pieces) == 1 && pieces[0].Kind == Verbatim; clean != isClean(in, block, true) {
		t.Fatalf("isClean(%q, %v) = %v, but pieces are %q", in, block, !clean, pieces)
	}
	if len(out) > growth*len(in) {
		t.Fatalf("output of %q grew from %d to %d bytes", in, len(in), len(out))
	}

	// Safe is the idempotent second pass: it never changes sanitised text
	// and makes anything terminal-safe.
	if !block {
		if Safe(out) != out {
			t.Fatalf("Safe changes Line's output %q: %q", out, Safe(out))
		}
		safe := Safe(in)
		checkOutput(t, in, safe, false)
		if Safe(safe) != safe {
			t.Fatalf("Safe not idempotent on %q", in)
		}
	}
	// Unambiguous: the escape characters are escaped too, so the printed
	// line alone gives the input back (no two inputs print the same).
	if !block {
		if back, ok := Unescape(out); !ok || back != in {
			t.Fatalf("Unescape(Line(%q)) = %q, %v", in, back, ok)
		}
	}

	if block {
		if strings.Count(out, "\n") != strings.Count(in, "\n") {
			t.Fatalf("Block changed the line count of %q: %q", in, out)
		}
		checkTabStops(t, in, pieces, clampTabWidth(tabWidth))
	} else if strings.Contains(out, "\n") {
		t.Fatalf("Line output of %q contains a line break: %q", in, out)
	}
	checkFindings(t, in)
}

// checkTabStops asserts that every expanded tab ends on a tab stop, measuring
// the whole output line as a renderer would.
func checkTabStops(t *testing.T, in string, pieces []Piece, tabWidth int) {
	t.Helper()
	var line strings.Builder
	for _, p := range pieces {
		text := p.Text
		if nl := strings.LastIndexByte(text, '\n'); nl >= 0 {
			line.Reset()
			text = text[nl+1:]
		}
		line.WriteString(text)
		if p.Kind == TabSpaces {
			if w := ansi.StringWidth(line.String()); w%tabWidth != 0 {
				t.Fatalf("tab in %q ends at column %d, not a multiple of %d: %q", in, w, tabWidth, line.String())
			}
		}
	}
}

// checkFindings compares Findings with direct, independent scans of the input.
func checkFindings(t *testing.T, in string) {
	t.Helper()
	f := Findings(in)
	var invalid, escape, bidi, tag, bareCR bool
	for i := 0; i < len(in); {
		r, size := utf8.DecodeRuneInString(in[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			invalid = true
			escape = escape || in[i] >= 0x80 && in[i] <= 0x9F
		case r == 0x1B || r >= 0x80 && r <= 0x9F:
			escape = true
		case unicode.Is(unicode.Bidi_Control, r):
			bidi = true
		case r >= 0xE0000 && r <= 0xE007F:
			tag = true
		case r == '\r' && !strings.HasPrefix(in[i+1:], "\n"):
			bareCR = true
		}
		i += size
	}
	for _, c := range []struct {
		name string
		flag Flags
		want bool
	}{
		{"InvalidUTF8", InvalidUTF8, invalid},
		{"TerminalEscape", TerminalEscape, escape},
		{"Bidi", Bidi, bidi},
		{"Tag", Tag, tag},
		{"CarriageReturn", CarriageReturn, bareCR},
	} {
		if f.Has(c.flag) != c.want {
			t.Fatalf("Findings(%q) = %v: %s should be %v", in, f, c.name, c.want)
		}
	}
	if escape && !f.Has(Control) {
		t.Fatalf("Findings(%q) = %v: terminal escape without control", in, f)
	}
	// No flag exactly when Line needs no escape beyond layout characters.
	onlyLayout := !bareCR
	for _, p := range LinePieces(in) {
		if p.Kind == Escape && p.Text != `\t` && p.Text != `\n` && p.Text != `\r` && p.Text != `\\` && p.Text != `\<` {
			onlyLayout = false
		}
	}
	if (f == 0) != onlyLayout {
		t.Fatalf("Findings(%q) = %v, but Line escapes only layout: %v", in, f, onlyLayout)
	}
}

func addSeeds(f *testing.F, withWidth bool) {
	for _, p := range payloads {
		if withWidth {
			f.Add(p.in, 4)
		} else {
			f.Add(p.in)
		}
	}
}

func FuzzLine(f *testing.F) {
	addSeeds(f, false)
	f.Fuzz(func(t *testing.T, s string) {
		checkProperties(t, s, false, 0)
	})
}

func FuzzBlock(f *testing.F) {
	addSeeds(f, true)
	f.Fuzz(func(t *testing.T, s string, tabWidth int) {
		checkProperties(t, s, true, tabWidth)
	})
}

func FuzzFilename(f *testing.F) {
	for _, p := range payloads {
		f.Add(p.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFilename(t, s)
	})
}

func checkFilename(t *testing.T, in string) {
	t.Helper()
	name := Filename(in)
	if name == "" || len(name) > MaxFilenameLen {
		t.Fatalf("Filename(%q) = %q: bad length", in, name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			t.Fatalf("Filename(%q) = %q has byte %q", in, name, c)
		}
	}
	if name[0] == '.' || name[0] == '-' || name[len(name)-1] == '.' {
		t.Fatalf("Filename(%q) = %q starts or ends badly", in, name)
	}
	if isWindowsDeviceName(name) {
		t.Fatalf("Filename(%q) = %q is a Windows device name", in, name)
	}
	if Filename(name) != name {
		t.Fatalf("Filename not idempotent on %q: %q", in, name)
	}
}
