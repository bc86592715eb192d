package recorder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"
)

// The gateway records what its peers act on, so it reads their messages by
// their rules, not Go's. The MCP TypeScript SDK (the reference memory
// server, and most agents) reads with JSON.parse and Python's SDK with
// pydantic: a member name matches only itself, byte for byte after
// unescaping. Go's encoding/json also matches "Name", "NAME" and names
// with ſ (U+017F) or K (U+212A) folded, so a message carrying "name" and
// "Name" would be routed and recorded by one while the upstream acted on
// the other (the Go SDK's GHSA-wvj2-96wp-fq3f, fixed in go-sdk v1.3.1 with
// segmentio/encoding's DontMatchCaseInsensitiveStructFields, which
// decodeExact uses as go-sdk v1.8.0's internal/json does).
//
// A name twice in one object is refused. JSON.parse keeps the last value
// whole, while Go's decoders merge a repeated object or array into the
// first (`{"a":{"x":1},"a":{}}` reads as {"x":1} in Go, {} in
// JavaScript); no writer the peers use emits one (JSON.stringify,
// json.dumps and Go's encoders cannot), so a repeated name is a crafted
// message, and recording either reading could record what the peer did
// not do.

// errRepeatedName reports a member name that appears twice in one object.
type errRepeatedName struct {
	name   []byte
	offset int
}

func (e *errRepeatedName) Error() string {
	return fmt.Sprintf("member name %.64q appears twice in one object (byte %d): memscope record cannot tell which value the peer acts on, so the message is refused", e.name, e.offset)
}

// decodeExact decodes the JSON value b into v, matching member names
// exactly. b must be one valid JSON value whose names are unique
// (parseMessage checks a whole line once); decodeExact checks neither.
func decodeExact(b []byte, v any) error {
	rest, err := segjson.Parse(b, v, segjson.DontMatchCaseInsensitiveStructFields)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return errors.New("json: data after the value")
	}
	return nil
}

// smallObject is how many names an object holds before uniqueNames keeps
// them in a map instead of comparing each new one with all before it.
const smallObject = 16

// openObject is one object or array uniqueNames is inside, and an
// object's names so far.
type openObject struct {
	array bool
	first int                 // its first name in names
	set   map[string]struct{} // its names, once it has more than smallObject
}

// uniqueNames reports the first member name that appears twice in one
// object of b, which must be valid JSON (json.Valid). Names compare as
// JSON.parse compares them, after unescaping.
func uniqueNames(b []byte) error {
	// Room for a usual message's nesting and names without allocating.
	var openBuf [16]openObject
	var namesBuf [32][]byte
	open, names := openBuf[:0], namesBuf[:0]
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			open = append(open, openObject{first: len(names)})
			expectKey = true
		case '[':
			open = append(open, openObject{array: true})
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
					// Unescaped as the peers read it: invalid UTF-8 is
					// U+FFFD after their transports decode the line.
					var s string
					_ = json.Unmarshal(b[i:end+1], &s) // valid: checked by the caller
					name = []byte(s)
				}
				if open[len(open)-1].seen(names, name) {
					return &errRepeatedName{name: name, offset: i}
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
func (o *openObject) seen(names [][]byte, name []byte) bool {
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
