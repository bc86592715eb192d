package graphfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// spec lists the fields of one file kind: every known field, and the ones
// that must be present (as a CSV column, or a JSONL key on every line).
type spec struct {
	known    []string
	required []string
}

func (s spec) isKnown(f string) bool {
	for _, k := range s.known {
		if k == f {
			return true
		}
	}
	return false
}

// maxLineBytes bounds one JSONL line (or CSV record) so that a file with no
// newlines cannot exhaust memory.
const maxLineBytes = 16 << 20

// readRows parses a whole file into rows and calls fn for each, in order.
func readRows(file string, r io.Reader, f Format, sp spec, fn func(row) error) error {
	switch f {
	case CSV:
		return readCSV(file, r, sp, fn)
	case JSONL:
		return readJSONL(file, r, sp, fn)
	}
	return &InputError{File: file, Err: fmt.Errorf("unknown format %q", f)}
}

func readCSV(file string, r io.Reader, sp spec, fn func(row) error) error {
	cr := csv.NewReader(&limitedLines{r: bufio.NewReader(r)})
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err == io.EOF {
		return &InputError{File: file, Line: 1, Err: errors.New("empty file: want a header line")}
	}
	if err != nil {
		return csvError(file, err)
	}
	cols := make([]string, len(header))
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff") // spreadsheet exports start with a BOM
		}
		h = strings.ToLower(strings.TrimSpace(h))
		at := loc{file, 1}
		if !sp.isKnown(h) {
			return at.errf(h, "unknown column (known: %s)", strings.Join(sp.known, ", "))
		}
		for _, prev := range cols[:i] {
			if prev == h {
				return at.errf(h, "column appears twice")
			}
		}
		cols[i] = h
	}
	for _, req := range sp.required {
		found := false
		for _, c := range cols {
			found = found || c == req
		}
		if !found {
			return loc{file, 1}.errf(req, "required column missing from the header (have: %s)", strings.Join(cols, ", "))
		}
	}
	cr.FieldsPerRecord = -1 // counted below, for a message that says how many
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(file, err)
		}
		line, _ := cr.FieldPos(0)
		rw := row{at: loc{file, line}, fields: make(map[string]cell, len(cols))}
		if len(rec) != len(cols) {
			return rw.at.errf("", "%d cells, but the header has %d columns", len(rec), len(cols))
		}
		for i, v := range rec {
			if !utf8.ValidString(v) {
				return rw.at.errf(cols[i], "invalid UTF-8")
			}
			rw.fields[cols[i]] = cell{text: v}
		}
		if err := fn(rw); err != nil {
			return err
		}
	}
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{File: file, Line: pe.Line, Err: pe.Err}
	}
	return &InputError{File: file, Err: err}
}

var errLineTooLong = fmt.Errorf("a line is longer than %d bytes", maxLineBytes)

// limitedLines passes bytes through but fails once a single line exceeds
// maxLineBytes (encoding/csv itself would buffer it whole).
type limitedLines struct {
	r   *bufio.Reader
	run int
}

func (l *limitedLines) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.run = 0
		} else if l.run++; l.run > maxLineBytes {
			return 0, errLineTooLong
		}
	}
	return n, err
}

func readJSONL(file string, r io.Reader, sp spec, fn func(row) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		at := loc{file, line}
		if !utf8.Valid(b) {
			return at.errf("", "invalid UTF-8")
		}
		pairs, err := objectPairs(b)
		if err != nil {
			return at.errf("", "%v", err)
		}
		rw := row{at: at, fields: make(map[string]cell, len(pairs))}
		for _, p := range pairs {
			if !sp.isKnown(p.key) {
				known := append([]string(nil), sp.known...)
				sort.Strings(known)
				return at.errf(p.key, "unknown field (known: %s)", strings.Join(known, ", "))
			}
			rw.fields[p.key] = cell{raw: p.value, isJSON: true}
		}
		for _, req := range sp.required {
			if _, ok := rw.fields[req]; !ok {
				return at.errf(req, "missing (required)")
			}
		}
		if err := fn(rw); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &InputError{File: file, Line: line + 1, Err: errLineTooLong}
		}
		return &InputError{File: file, Line: line + 1, Err: err}
	}
	return nil
}
