// Package pyjson reads JSON as Python's json module writes it. json.dump
// writes a float NaN, inf or -inf as the bare words NaN, Infinity and
// -Infinity (allow_nan=True is its default), and json.load reads them
// back (json/scanner.py, parse_constant); encoding/json refuses them, so a
// store with one NaN in a metadata field was refused as "not JSON". The
// readers pass Python-written JSON through Constants first.
package pyjson

import (
	"bytes"
	"fmt"
)

var constants = [][]byte{[]byte("NaN"), []byte("Infinity"), []byte("-Infinity")}

// Constants returns b with every NaN, Infinity and -Infinity that stands
// as a value (outside strings, after "[", "," or ":" or at the start,
// before a delimiter) replaced by null, and how many it replaced. With
// none, b itself is returned; otherwise the copy is allocated once, at
// its exact size (a file may be as large as the readers' JSON bound).
// What is not a value position is left for the JSON decoder to refuse,
// as Python's would.
func Constants(b []byte) ([]byte, int) {
	if !bytes.Contains(b, constants[0]) && !bytes.Contains(b, constants[1]) {
		return b, 0
	}
	n, size := 0, len(b)
	eachConstant(b, func(_, w int) {
		n++
		size += len("null") - w
	})
	if n == 0 {
		return b, 0
	}
	out := make([]byte, 0, size)
	last := 0
	eachConstant(b, func(i, w int) {
		out = append(append(out, b[last:i]...), "null"...)
		last = i + w
	})
	return append(out, b[last:]...), n
}

// eachConstant calls f with the offset and length of every constant that
// stands as a value, in order.
func eachConstant(b []byte, f func(i, w int)) {
	inString, escaped := false, false
	prev := byte('[') // the last byte outside a string that is not whitespace
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				prev = '"'
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inString = true
			continue
		}
		if prev == '[' || prev == ',' || prev == ':' {
			if w := constantAt(b, i); w > 0 {
				f(i, w)
				i += w - 1
				prev = 'l'
				continue
			}
		}
		prev = c
	}
}

// constantAt is the length of the constant at b[i:], ending at a
// delimiter or the end, or 0.
func constantAt(b []byte, i int) int {
	for _, w := range constants {
		if !bytes.HasPrefix(b[i:], w) {
			continue
		}
		end := i + len(w)
		if end == len(b) || bytes.IndexByte([]byte(" \t\n\r,]}"), b[end]) >= 0 {
			return len(w)
		}
	}
	return 0
}

// Note is the store note for n constants read in file.
func Note(file string, n int) string {
	return fmt.Sprintf("%s: %d NaN or Infinity value(s), which Python's json writes and reads and JSON has no word for, read as null", file, n)
}
