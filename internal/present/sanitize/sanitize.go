// Package sanitize makes attacker-controlled text safe to show on a terminal,
// in a window title, on the clipboard or in plain output, and reports which
// suspicious character classes the text contained.
//
// Every unit of input that could be interpreted by a terminal or that would be
// invisible or reorder the display is replaced by a visible escape; everything
// else is copied verbatim. The notation (documented in docs/SANITIZE.md):
//
//	\e \t \n \r     ESC, TAB, LF, CR
//	\\ \<           a literal backslash; a literal "<" that begins "<U+"
//	\xNN            any other C0 control or DEL, or a byte that is not valid UTF-8
//	<U+XXXX>        a C1 control, bidi control, zero-width or other invisible
//	                rune, tag character or variation selector
//
// A backslash form always stands for exactly one input byte and a <U+...> form
// for exactly one code point, so the escaped text can be mapped back to the
// input bytes. The escape characters themselves are escaped (a literal
// backslash is \\, a literal "<" that begins "<U+" is \<), so literal text
// never looks like an escape: two different inputs never print the same.
// Use the Piece functions to style escapes distinctly, and Findings to know
// whether any suspicious character was there.
package sanitize

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// DefaultTabWidth is used by Block when the given tab width is below 1.
const DefaultTabWidth = 8

// MaxTabWidth bounds tab expansion so a caller's mistake cannot multiply the
// size of attacker-controlled input without limit.
const MaxTabWidth = 64

// Line sanitises s for a single-line context (table cell, title, clipboard,
// plain output field). Line breaks and tabs are shown as \n, \r and \t. The
// result is valid UTF-8 with no control, bidi or invisible runes. Clean input
// is returned as is, without allocating.
func Line(s string) string {
	return sanitise(s, false, 0, true)
}

// Safe is Line without escaping the escape characters: it makes any text
// safe for a terminal and is idempotent, so it is the second pass for text
// that may already be sanitised (the JSON writer's pass over every string
// it encodes). It is not unambiguous: first-pass output uses Line.
func Safe(s string) string {
	return sanitise(s, false, 0, false)
}

// SafeBlock is Block without escaping the escape characters: the
// idempotent last pass over output lines that are sanitised already (the
// CLI's terminal writer). First-pass text uses Block or Line.
func SafeBlock(s string, tabWidth int) string {
	return sanitise(s, true, clampTabWidth(tabWidth), false)
}

// Block sanitises s for a multi-line view: LF stays a real line break and tabs
// are expanded with spaces to the next multiple of tabWidth display cells
// (DefaultTabWidth if tabWidth < 1, at most MaxTabWidth). Everything else is
// escaped as in Line; in particular CR is always shown as \r, so a carriage
// return can never overwrite what came before it. Clean input without tabs is
// returned as is, without allocating.
func Block(s string, tabWidth int) string {
	return sanitise(s, true, clampTabWidth(tabWidth), true)
}

// sanitise is every entry point's one body: clean input is returned as is,
// without allocating; anything else is walked once into a new string.
func sanitise(s string, block bool, tabWidth int, literals bool) string {
	if isClean(s, block, literals) {
		return s
	}
	var b stringSink
	b.Grow(len(s) + len(s)/4 + 16)
	walk(s, block, tabWidth, literals, &b)
	return b.String()
}

// Kind tells what a Piece of sanitised output stands for.
type Kind uint8

const (
	// Verbatim text is copied unchanged from the input.
	Verbatim Kind = iota
	// Escape is a visible notation standing for one input byte or rune that
	// must not reach a terminal raw; render it in a distinct style so it
	// cannot be confused with literal text.
	Escape
	// TabSpaces are the spaces that stand for one expanded tab (Block only).
	TabSpaces
)

// Piece is one run of sanitised output.
type Piece struct {
	Kind Kind
	Text string
}

// LinePieces returns the output of Line split into verbatim text and escapes.
// Concatenating the Text fields gives exactly Line(s).
func LinePieces(s string) []Piece {
	var p pieceSink
	walk(s, false, 0, true, &p)
	return p.pieces
}

// BlockPieces returns the output of Block split into verbatim text, escapes
// and expanded tabs. Concatenating the Text fields gives exactly
// Block(s, tabWidth).
func BlockPieces(s string, tabWidth int) []Piece {
	var p pieceSink
	walk(s, true, clampTabWidth(tabWidth), true, &p)
	return p.pieces
}

func clampTabWidth(w int) int {
	if w < 1 {
		return DefaultTabWidth
	}
	return min(w, MaxTabWidth)
}

// isClean reports whether walk would copy s unchanged. It must agree exactly
// with walk; the fuzz targets check that it does.
func isClean(s string, block, literals bool) bool {
	prevVisible := false
	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b < 0x7F {
			if literals && literalEscape(s, i) != "" {
				return false
			}
			i++
			prevVisible = true
			continue
		}
		if block && b == '\n' {
			i++
			prevVisible = false
			continue
		}
		r, size, c := decode(s, i, prevVisible)
		if c != classPass {
			return false
		}
		prevVisible = !isEmojiSelector(r)
		i += size
	}
	return true
}

// sink receives sanitised output in order.
type sink interface {
	verbatim(s string)
	escape(e []byte)
	tab(spaces string)
}

// spaces holds enough spaces for the widest tab.
var spaces = strings.Repeat(" ", MaxTabWidth)

// walk sanitises s into out. In block mode LF passes and tabs are expanded to
// tabWidth; otherwise both are escaped. literals escapes the escape
// characters themselves (literalEscape); only Safe leaves them.
func walk(s string, block bool, tabWidth int, literals bool, out sink) {
	// Display column, needed only to expand tabs; measuring costs a grapheme
	// walk, so skip it when there is no tab.
	measure := block && strings.IndexByte(s, '\t') >= 0
	col := 0
	start := 0 // start of the pending verbatim run
	prevVisible := false
	var buf [16]byte

	var scratch []byte // reused to measure a run in context

	// Grapheme clusters can join a run to its neighbours: a leading combining
	// mark joins the cell before it, a trailing prepended concatenation mark
	// joins the cell after it. Everything next to a run on the same line is
	// printable ASCII (an escape or tab spaces), so measuring the run between
	// stand-in ASCII bytes gives the width it adds to the whole line.
	flush := func(end int) {
		if start == end {
			return
		}
		run := s[start:end]
		out.verbatim(run)
		if !measure {
			return
		}
		midLine := start > 0
		if nl := strings.LastIndexByte(run, '\n'); nl >= 0 {
			run, midLine, col = run[nl+1:], false, 0
		}
		scratch = scratch[:0]
		standIns := 1 // after the run, when walk flushes before an escape or tab
		if midLine {
			scratch = append(scratch, 'x')
			standIns++
		}
		scratch = append(append(scratch, run...), 'x')
		col += ansi.StringWidth(string(scratch)) - standIns
	}

	for i := 0; i < len(s); {
		b := s[i]
		if b >= 0x20 && b < 0x7F {
			if e := literalEscape(s, i); literals && e != "" {
				// A literal backslash, or a literal "<" that begins
				// "<U+": escaped so that no text can print like an
				// escape of something else. The character is visible.
				flush(i)
				out.escape([]byte(e))
				col += len(e)
				i++
				start = i
				prevVisible = true
				continue
			}
			i++
			prevVisible = true
			continue
		}
		if block && b == '\n' {
			i++
			prevVisible = false
			continue
		}
		r, size, c := decode(s, i, prevVisible)
		if c == classPass {
			i += size
			prevVisible = !isEmojiSelector(r)
			continue
		}
		flush(i)
		if block && b == '\t' {
			n := tabWidth - col%tabWidth
			out.tab(spaces[:n])
			col += n
		} else {
			e := appendEscape(buf[:0], r, c)
			out.escape(e)
			col += len(e) // escapes are ASCII: one cell per byte
		}
		i += size
		start = i
		prevVisible = false
	}
	flush(len(s))
}

// literalEscape is the escape of the printable ASCII byte at s[i] when it
// could begin an escape itself, else "": every backslash (shown as \\),
// and a "<" followed by "U+" (shown as \<). With those two, each escape in
// the output stands for exactly one input unit and literal text never
// prints like one: "a<U+200B>" typed literally is shown a\<U+200B>, the
// zero-width space itself a<U+200B>.
func literalEscape(s string, i int) string {
	switch s[i] {
	case '\\':
		return `\\`
	case '<':
		if strings.HasPrefix(s[i+1:], "U+") {
			return `\<`
		}
	}
	return ""
}

const hexDigits = "0123456789ABCDEF"
const lowerHex = "0123456789abcdef"

// appendEscape appends the visible notation for one unit that may not pass.
func appendEscape(dst []byte, r rune, c class) []byte {
	switch c {
	case classC0, classInvalid:
		switch r {
		case 0x1B:
			return append(dst, `\e`...)
		case '\t':
			return append(dst, `\t`...)
		case '\n':
			return append(dst, `\n`...)
		case '\r':
			return append(dst, `\r`...)
		}
		return append(dst, '\\', 'x', lowerHex[r>>4&0xF], lowerHex[r&0xF])
	}
	// One code point: at least four hex digits, more for supplementary planes.
	dst = append(dst, '<', 'U', '+')
	digits := 4
	for v := r >> 16; v > 0; v >>= 4 {
		digits++
	}
	for shift := (digits - 1) * 4; shift >= 0; shift -= 4 {
		dst = append(dst, hexDigits[r>>uint(shift)&0xF])
	}
	return append(dst, '>')
}

// stringSink builds the sanitised string.
type stringSink struct{ strings.Builder }

func (b *stringSink) verbatim(s string) { b.WriteString(s) }
func (b *stringSink) escape(e []byte)   { b.Write(e) }
func (b *stringSink) tab(sp string)     { b.WriteString(sp) }

// pieceSink collects pieces. Verbatim pieces are never adjacent: walk flushes
// a run only before an escape or a tab, or at the end.
type pieceSink struct{ pieces []Piece }

func (p *pieceSink) verbatim(s string) { p.pieces = append(p.pieces, Piece{Verbatim, s}) }
func (p *pieceSink) escape(e []byte)   { p.pieces = append(p.pieces, Piece{Escape, string(e)}) }
func (p *pieceSink) tab(sp string)     { p.pieces = append(p.pieces, Piece{TabSpaces, sp}) }
