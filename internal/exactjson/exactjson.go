// Package exactjson decodes JSON that other programs wrote, or will act
// on, the way those programs read it rather than the way Go does.
//
// Python's json, JavaScript's JSON.parse and pydantic match a member name
// only to itself, after unescaping; Go's encoding/json also matches it
// case-insensitively and with ſ (U+017F) and K (U+212A) folded to s and
// k. So {"passage":"a","Passage":"b"} is "a" to the tools that wrote or
// read a store and "b" to encoding/json. Decode matches names exactly with
// segmentio/encoding's json and DontMatchCaseInsensitiveStructFields, the
// decoder the official MCP Go SDK moved to for the same reason
// (GHSA-wvj2-96wp-fq3f; go-sdk v1.8.0's internal/json, segmentio v0.5.4).
//
// A name repeated in one object is refused: those readers keep the last
// value whole, while Go's decoders merge a repeated object or array into
// the first ({"a":{"x":1},"a":{}} reads as {"x":1} in Go, {} in Python),
// so no struct decoding reads it as they do; and json.dump,
// JSON.stringify and Go's encoders never write one. A caller that needs
// the last-wins reading decodes that level into a map, which replaces.
package exactjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
)

// RepeatedNameError reports a member name that appears twice in one object.
type RepeatedNameError struct {
	Name   string
	Offset int // of the second occurrence, in bytes
}

func (e *RepeatedNameError) Error() string {
	return fmt.Sprintf("member name %.64q appears twice in one object (byte %d)", e.Name, e.Offset)
}

// Decode decodes the JSON value b into v by exact member names. It
// returns encoding/json's syntax error for invalid JSON, and a
// *RepeatedNameError for a name repeated in one object.
func Decode(b []byte, v any) error {
	if err := Valid(b); err != nil {
		return err
	}
	if err := RepeatedName(b); err != nil {
		return err
	}
	return DecodeChecked(b, v)
}

// Valid returns nil for one valid JSON value, else encoding/json's
// syntax error (with its offset).
func Valid(b []byte) error {
	if json.Valid(b) {
		return nil
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// DecodeChecked is Decode for b already known to be one valid JSON value
// without repeated names (a member of a value Decode or RepeatedName
// checked); it checks neither.
func DecodeChecked(b []byte, v any) error {
	rest, err := segjson.Parse(b, v, segjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return errors.New("json: data after the value")
	}
	return nil
}

// smallObject is how many names an object holds before RepeatedName
// keeps them in a map instead of comparing each new one with all before.
const smallObject = 16

// openValue is an object or array RepeatedName is inside, and an
// object's names so far.
type openValue struct {
	array bool
	first int                 // the object's first name in names
	set   map[string]struct{} // its names, once it has more than smallObject
}

// RepeatedName returns a *RepeatedNameError for the first member name
// that appears twice in one object of b, which must be valid JSON
// (json.Valid). Names compare after unescaping, with invalid UTF-8 read
// as U+FFFD, as the readers above compare them.
func RepeatedName(b []byte) error {
	// Room for a usual document's nesting and names without allocating.
	var openBuf [16]openValue
	var namesBuf [32][]byte
	open, names := openBuf[:0], namesBuf[:0]
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			open = append(open, openValue{first: len(names)})
			expectKey = true
		case '[':
			open = append(open, openValue{array: true})
		case '}', ']':
			if o := open[len(open)-1]; !o.array {
				names = names[:o.first]
			}
			open = open[:len(open)-1]
		case ',':
			expectKey = !open[len(open)-1].array
		case '"':
			end, escaped := stringEnd(b, i)
			if expectKey {
				name := b[i+1 : end]
				if escaped || !utf8.Valid(name) {
					var s string
					_ = json.Unmarshal(b[i:end+1], &s) // valid: the caller's precondition
					name = []byte(s)
				}
				if open[len(open)-1].seen(names, name) {
					return &RepeatedNameError{Name: string(name), Offset: i}
				}
				names = append(names, name)
				expectKey = false
			}
			i = end
		}
	}
	return nil
}

// seen reports whether name is among the object's names, and adds it to
// the object's set once it has one.
func (o *openValue) seen(names [][]byte, name []byte) bool {
	mine := names[o.first:]
	if o.set == nil && len(mine) < smallObject {
		for _, n := range mine {
			if bytes.Equal(n, name) {
				return true
			}
		}
		return false
	}
	if o.set == nil {
		o.set = make(map[string]struct{}, 2*len(mine))
		for _, n := range mine {
			o.set[string(n)] = struct{}{}
		}
	}
	if _, ok := o.set[string(name)]; ok {
		return true
	}
	o.set[string(name)] = struct{}{}
	return false
}

// stringEnd returns the index of the quote closing the string that opens
// at b[start], and whether the string has an escape.
func stringEnd(b []byte, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return len(b) - 1, escaped
}
