// Package textscan reports evidence text that carries terminal controls or
// hidden characters (sanitize's classes). Every output shows such text
// escaped; these findings say that it was there, where, and of what kind,
// so a store full of escape sequences aimed at the responder's terminal is
// a finding and not only a clean-looking page.
package textscan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// Field is one text field of one record.
type Field struct {
	Record string // "node ID", "entry ID", "message ID", ...
	Name   string // the field: "label", "content", ...
	Text   string
}

// Acts are the classes a terminal acts on: an escape sequence, a bell (or
// an OSC terminator), a cursor return, a reordering of the line
// (TEXT_CONTROL_CHARS, an error).
const Acts = sanitize.TerminalEscape | sanitize.CarriageReturn | sanitize.Bell | sanitize.BidiOverride

// Inert are the other controls (NUL, VT, FF, DEL...): no terminal acts on
// them, and text extracted from PDFs carries them (TEXT_INERT_CONTROLS, a
// warning). The rest hide text (TEXT_HIDDEN_CHARS, a warning).
const Inert = sanitize.Control

// PerCode is how many fields each code names one by one; the rest are
// counted in one more finding of the same code, so a store with a million
// poisoned rows yields a bounded list.
const PerCode = 50

// Scanner collects the findings of the fields it is shown. It is safe for
// concurrent use, and what it reports does not depend on the order fields
// arrive in: each code names the PerCode fields of smallest order.
type Scanner struct {
	where string // the file or store the fields come from
	mu    sync.Mutex
	next  int64
	hits  [3][]hit // per code, at most 2*PerCode between trims
	extra [3]int   // per code: fields trimmed away (counted, not named)
}

type hit struct {
	order int64
	f     finding.Finding
}

var codes = [3]finding.Code{finding.TextControlChars, finding.TextInertControl, finding.TextHiddenChars}

// New returns a Scanner for fields of where (a file or store path, shown
// sanitised in every subject).
func New(where string) *Scanner { return &Scanner{where: where} }

// Check scans one field, in arrival order.
func (s *Scanner) Check(f Field) {
	s.mu.Lock()
	order := s.next
	s.next++
	s.mu.Unlock()
	s.CheckAt(order, f)
}

// CheckAt scans one field whose place in the evidence is order (a row's
// seq): the fields named are those of smallest order, whatever the order
// of the calls.
func (s *Scanner) CheckAt(order int64, f Field) {
	flags := sanitize.Findings(f.Text)
	if flags == 0 {
		return
	}
	switch {
	case flags&Acts != 0:
		// The whole set is named, so the message says everything the
		// field carries; one finding per field.
		s.add(0, order, f, flags)
		return
	case flags&Inert != 0:
		s.add(1, order, f, flags&Inert)
	}
	if h := flags &^ (Acts | Inert); h != 0 {
		s.add(2, order, f, h)
	}
}

func (s *Scanner) add(i int, order int64, f Field, flags sanitize.Flags) {
	// Raw: every output sanitises a finding once (docs/SANITIZE.md).
	subject := s.where + ": " + f.Record
	fd := finding.New(codes[i], subject, fmt.Sprintf("field %s carries %s (shown escaped): %s", f.Name, flags, preview(f.Text)))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hits[i] = append(s.hits[i], hit{order, fd})
	if len(s.hits[i]) >= 2*PerCode {
		s.trim(i)
	}
}

// trim keeps the PerCode hits of smallest order.
func (s *Scanner) trim(i int) {
	slices.SortFunc(s.hits[i], func(a, b hit) int {
		return cmp.Or(cmp.Compare(a.order, b.order), cmp.Compare(a.f.Subject, b.f.Subject), cmp.Compare(a.f.Message, b.f.Message))
	})
	if n := len(s.hits[i]); n > PerCode {
		s.extra[i] += n - PerCode
		s.hits[i] = s.hits[i][:PerCode]
	}
}

// preview is up to 80 bytes of the text around its first marked
// character, cut at rune starts and left raw for the output to sanitise.
func preview(t string) string {
	const width = 80
	at := 0
	for i, r := range t {
		if r == utf8.RuneError || sanitize.Findings(string(r)) != 0 {
			at = i
			break
		}
	}
	start := max(0, at-20)
	for start > 0 && !isRuneStart(t[start]) {
		start--
	}
	end := min(len(t), start+width)
	for end < len(t) && !isRuneStart(t[end]) {
		end++
	}
	p := t[start:end]
	if start > 0 {
		p = "…" + p
	}
	if end < len(t) {
		p += "…"
	}
	return strings.TrimSpace(p)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Findings returns what was found, in order: at most PerCode findings per
// code naming a field each, and one more per code counting the fields
// left unnamed.
func (s *Scanner) Findings() []finding.Finding {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []finding.Finding
	for i, code := range codes {
		s.trim(i)
		for _, h := range s.hits[i] {
			out = append(out, h.f)
		}
		if s.extra[i] > 0 {
			out = append(out, finding.New(code, s.where, fmt.Sprintf("%d more fields carry such characters (the first %d are listed)", s.extra[i], PerCode)))
		}
	}
	return out
}
