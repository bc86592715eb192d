package sanitize

import (
	"unicode"
	"unicode/utf8"
)

// class says how one input unit (a byte or a rune) must be treated.
type class uint8

const (
	classPass      class = iota // printable: copied verbatim
	classInvalid                // a byte that is not part of valid UTF-8
	classC0                     // U+0000-U+001F or U+007F (one byte)
	classC1                     // U+0080-U+009F encoded as valid UTF-8
	classBidi                   // bidirectional formatting control
	classInvisible              // zero-width, format, filler or separator rune
	classTag                    // Unicode tag character (U+E0000-U+E007F)
	classSelector               // variation selector
)

// markedTables are the Unicode sets escaped besides C0, DEL and C1. Bidi
// controls, tag characters and the deprecated format characters are all in
// Cf; Other_Default_Ignorable covers fillers and unassigned ignorable ranges.
var markedTables = []*unicode.RangeTable{
	unicode.Cf,
	unicode.Other_Default_Ignorable_Code_Point,
	unicode.Variation_Selector,
	unicode.Zl,
	unicode.Zp,
	unicode.Bidi_Control,
}

// bmpMarked has a bit for every BMP rune that is not passed verbatim, so the
// common case (letters of any script) costs one load instead of several
// binary searches. suppMarked lists the few marked ranges above the BMP.
var (
	bmpMarked  [0x10000 / 64]uint64
	suppMarked []unicode.Range32
)

func init() {
	for r := rune(0x80); r <= 0x9F; r++ {
		bmpMarked[r>>6] |= 1 << (r & 63)
	}
	for _, t := range markedTables {
		for _, rg := range t.R16 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
				bmpMarked[r>>6] |= 1 << (r & 63)
			}
		}
		suppMarked = append(suppMarked, t.R32...)
	}
}

func isMarked(r rune) bool {
	if r < 0x10000 {
		return bmpMarked[r>>6]&(1<<(r&63)) != 0
	}
	for _, rg := range suppMarked {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) && (r-rune(rg.Lo))%rune(rg.Stride) == 0 {
			return true
		}
	}
	return false
}

// classifyRune classifies a valid, non-ASCII rune. Variation selectors are
// returned as classSelector even when context would let one pass; the caller
// applies the one-emoji-selector exception.
func classifyRune(r rune) class {
	if !isMarked(r) {
		return classPass
	}
	switch {
	case r <= 0x9F:
		return classC1
	case isBidi(r):
		return classBidi
	case r >= 0xE0000 && r <= 0xE007F:
		return classTag
	case unicode.Is(unicode.Variation_Selector, r):
		return classSelector
	}
	return classInvisible
}

// isBidiOverride reports the embeddings, overrides and isolates among the
// bidirectional controls: they reorder a whole run of text, where a mark
// only sets the direction of neutral characters near it.
func isBidiOverride(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// isBidi reports the explicit bidirectional formatting characters of UAX #9:
// marks, embeddings, overrides and isolates. These reorder what is displayed
// without being displayed themselves (Trojan Source, CVE-2021-42574).
func isBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// isEmojiSelector reports the two selectors that legitimately follow a visible
// character (text or emoji presentation). One of them after a verbatim rune is
// let through so ordinary emoji such as U+2764 U+FE0F are not defaced.
func isEmojiSelector(r rune) bool { return r == 0xFE0E || r == 0xFE0F }

// decode returns the unit at s[i]: its rune (or byte value for invalid bytes),
// its size in bytes and its class. prevVisible says whether the previous unit
// was a rune copied verbatim, which is the only place a selector may pass.
func decode(s string, i int, prevVisible bool) (r rune, size int, c class) {
	b := s[i]
	if b < utf8.RuneSelf {
		if b < 0x20 || b == 0x7F {
			return rune(b), 1, classC0
		}
		return rune(b), 1, classPass
	}
	r, size = utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return rune(b), 1, classInvalid
	}
	c = classifyRune(r)
	if c == classSelector && prevVisible && isEmojiSelector(r) {
		c = classPass
	}
	return r, size, c
}
