// Package pyjson reads JSON as Python's json module writes and reads it,
// where encoding/json differs: json.dump writes a float NaN, inf or -inf
// as the bare words NaN, Infinity and -Infinity (allow_nan=True is its
// default) and json.load reads them back (json/scanner.py,
// parse_constant), which encoding/json refuses (Constants); json.loads of
// bytes takes UTF-16 and UTF-32 and drops a UTF-8 mark (BytesText); and
// it raises on a byte that is not UTF-8, where encoding/json writes
// U+FFFD (FirstInvalidUTF8, also for files opened in text mode).
package pyjson

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
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

// BytesText is the text json.loads reads from bytes, as a UTF-8 string's
// bytes, and the encoding it took them in (json/__init__.py,
// detect_encoding, Python 3.6+): a UTF-32 or UTF-16 byte order mark
// selects that encoding (the mark dropped); a UTF-8 one is dropped;
// without a mark, zero bytes among the first four (JSON text starts with
// ASCII) select UTF-16 or UTF-32 of either byte order; otherwise UTF-8,
// returned as it is. LlamaIndex loads its stores so (json.load of a file
// opened "rb"), so a persist directory saved again in UTF-16 by a Windows
// tool still loads there. Where UTF-16 or UTF-32 text does not decode,
// x/text's decoders write U+FFFD (Python keeps a lone surrogate there,
// its "surrogatepass", and raises on the rest).
func BytesText(b []byte) ([]byte, string, error) {
	name, enc := detectEncoding(b)
	if enc == nil {
		if name == "utf-8-sig" {
			return b[3:], name, nil
		}
		return b, name, nil
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return nil, name, fmt.Errorf("not %s as its start says: %w", name, err)
	}
	return out, name, nil
}

// detectEncoding is json.detect_encoding: the codec's name, and the
// decoder for those that are not UTF-8 (nil for UTF-8, with or without
// its mark). A decoder that meets a mark in the middle of the text keeps
// it, as Python's -le and -be codecs do.
func detectEncoding(b []byte) (string, encoding.Encoding) {
	switch {
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}), bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}):
		return "utf-32", utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}), bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return "utf-16", unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return "utf-8-sig", nil
	}
	switch {
	case len(b) >= 4 && b[0] == 0 && b[1] != 0:
		return "utf-16-be", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	case len(b) >= 4 && b[0] == 0:
		return "utf-32-be", utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)
	case len(b) >= 4 && b[1] == 0 && (b[2] != 0 || b[3] != 0):
		return "utf-16-le", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case len(b) >= 4 && b[1] == 0:
		return "utf-32-le", utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)
	case len(b) == 2 && b[0] == 0:
		return "utf-16-be", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	case len(b) == 2 && b[1] == 0:
		return "utf-16-le", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	}
	return "utf-8", nil
}

// FirstInvalidUTF8 is the offset of the first byte Python's UTF-8 decoder
// refuses, or -1. With surrogatePass (the error handler json.loads uses on
// bytes) a surrogate's three-byte form, which Go's decoder refuses,
// passes; without it (a file opened with encoding="utf-8") it is refused
// too, as every other sequence that is not UTF-8.
func FirstInvalidUTF8(b []byte, surrogatePass bool) int {
	if utf8.Valid(b) {
		return -1 // the common case, at utf8.Valid's speed
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			i += n
			continue
		}
		if surrogatePass && i+2 < len(b) && b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2] >= 0x80 && b[i+2] <= 0xBF {
			i += 3
			continue
		}
		return i
	}
	return -1
}
