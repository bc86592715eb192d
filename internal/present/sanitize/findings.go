package sanitize

import "strings"

// Flags is a set of suspicious character classes found in a text. Any flag is
// an indicator in itself: ordinary memory content has no reason to carry
// terminal controls or invisible characters.
type Flags uint16

const (
	// InvalidUTF8: bytes that are not part of valid UTF-8.
	InvalidUTF8 Flags = 1 << iota
	// Control: a C0 control other than TAB, LF and CR, DEL, or a C1 control
	// (as a rune, or as a raw byte 0x80-0x9F that 8-bit terminals obey).
	Control
	// TerminalEscape: ESC or a C1 control. Each starts a terminal escape
	// sequence (ESC [ and the byte 0x9B are both CSI).
	TerminalEscape
	// CarriageReturn: a CR not directly followed by LF, which moves the
	// cursor back to overwrite the line. CRLF line endings are not flagged.
	CarriageReturn
	// Bidi: an explicit bidirectional mark, embedding, override or isolate.
	Bidi
	// Invisible: a zero-width, format, filler or line/paragraph separator
	// character (Unicode Cf, Other_Default_Ignorable, Zl, Zp) other than the
	// classes below.
	Invisible
	// Tag: a Unicode tag character (U+E0000-U+E007F), which can spell hidden
	// ASCII text ("ASCII smuggling").
	Tag
	// VariationSelector: a variation selector other than a single U+FE0E or
	// U+FE0F after a visible character; runs of selectors can encode hidden
	// bytes.
	VariationSelector
	// Bell: BEL (0x07). A terminal acts on it (it rings, and it ends an
	// OSC sequence such as a window title or a hyperlink). Also Control.
	Bell
	// BidiOverride: an explicit embedding, override or isolate (U+202A-
	// U+202E, U+2066-U+2069), which reorders the displayed text (Trojan
	// Source). Also Bidi; the marks U+200E, U+200F and U+061C are Bidi only.
	BidiOverride

	// flagCount is the number of defined flags.
	flagCount = iota
)

var flagNames = [flagCount]string{
	"invalid-utf8",
	"control",
	"terminal-escape",
	"carriage-return",
	"bidi",
	"invisible",
	"tag",
	"variation-selector",
	"bell",
	"bidi-override",
}

// Has reports whether every flag in want is set in f.
func (f Flags) Has(want Flags) bool { return f&want == want }

// Names lists the set flags in a fixed order.
func (f Flags) Names() []string {
	var names []string
	for i, name := range flagNames {
		if f&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return names
}

// String joins Names with commas, or returns "none".
func (f Flags) String() string {
	if f == 0 {
		return "none"
	}
	return strings.Join(f.Names(), ",")
}

// Findings reports which suspicious classes s contains. TAB, LF and CRLF are
// normal text and not flagged. It never allocates.
//
// Findings(s) == 0 exactly when s has no bare CR and the only escapes Line
// needs are \t, \n and \r, i.e. for ordinary layout characters.
func Findings(s string) Flags {
	var f Flags
	prevVisible := false
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b < 0x7F {
			i++
			prevVisible = true
			continue
		}
		r, size, c := decode(s, i, prevVisible)
		switch c {
		case classPass:
			prevVisible = !isEmojiSelector(r)
			i += size
			continue
		case classC0:
			switch b {
			case '\t', '\n':
			case '\r':
				if i+1 >= len(s) || s[i+1] != '\n' {
					f |= CarriageReturn
				}
			case 0x1B:
				f |= Control | TerminalEscape
			case 0x07:
				f |= Control | Bell
			default:
				f |= Control
			}
		case classInvalid:
			f |= InvalidUTF8
			if b <= 0x9F {
				f |= Control | TerminalEscape
			}
		case classC1:
			f |= Control | TerminalEscape
		case classBidi:
			f |= Bidi
			if isBidiOverride(r) {
				f |= BidiOverride
			}
		case classInvisible:
			f |= Invisible
		case classTag:
			f |= Tag
		case classSelector:
			f |= VariationSelector
		}
		prevVisible = false
		i += size
	}
	return f
}
