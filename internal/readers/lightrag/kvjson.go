package lightrag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/present/finding"
)

// LightRAG loads its JSON stores with lightrag/utils.py load_json:
// open(file, encoding="utf-8") then json.load, and reads fields by exact
// key (record["content"]). Python's json keeps the last of repeated keys
// in an object and matches nothing case-insensitively; Go's encoding/json
// matches struct fields case-insensitively, so records are never decoded
// into structs here: their members are read as Python reads them, and a
// repeated key or two keys differing only in case (which json.dump of a
// dict never writes for LightRAG's fixed field names) are reported.

// pyObject is a JSON object read as Python's json.loads reads it.
type pyObject struct {
	order   []string // first occurrence order of distinct keys
	members map[string]json.RawMessage
	// repeated keys (Python keeps the last value), and keys that differ
	// only by case from another key.
	repeated, caseTwins []string
}

// readPyObject decodes one JSON object member by member. Invalid UTF-8 is
// refused: Python's utf-8 decoding fails where Go would substitute U+FFFD.
func readPyObject(raw []byte) (*pyObject, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("invalid UTF-8: LightRAG's load_json (utf-8 text mode) cannot read it")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object (%v)", t)
	}
	o := &pyObject{members: map[string]json.RawMessage{}}
	folded := map[string]string{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		k, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", t)
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("member \"%s\": %w", clip(k), err)
		}
		if _, dup := o.members[k]; dup {
			o.repeated = append(o.repeated, k)
		} else {
			o.order = append(o.order, k)
			f := strings.ToLower(k)
			if other, twin := folded[f]; twin {
				o.caseTwins = append(o.caseTwins, other+" / "+k)
			} else {
				folded[f] = k
			}
		}
		o.members[k] = v
	}
	if _, err := d.Token(); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON object (Python's json refuses it)")
	}
	return o, nil
}

// str reads member k as a JSON string; ok is false when absent, an error
// when present and not a string (or null, which reads as "").
func (o *pyObject) str(k string) (s string, ok bool, err error) {
	v, ok := o.members[k]
	if !ok {
		return "", false, nil
	}
	if string(v) == "null" {
		return "", true, nil
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return "", true, fmt.Errorf("field %s is not a string", k)
	}
	return s, true, nil
}

// keyIssues describes repeated and case-twin keys, "" when none.
func (o *pyObject) keyIssues() string {
	var parts []string
	if len(o.repeated) > 0 {
		parts = append(parts, fmt.Sprintf("repeated key %s (Python's json, and so LightRAG, keeps the last value; memscope reads that one)", finding.QuoteAll(o.repeated)))
	}
	if len(o.caseTwins) > 0 {
		parts = append(parts, fmt.Sprintf("keys differing only by case %s (LightRAG reads the exact lowercase field; memscope reads that one; a case-insensitive reader would not)", finding.QuoteAll(o.caseTwins)))
	}
	return strings.Join(parts, "; ")
}
