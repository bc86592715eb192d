package graphfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cell is one field of one input row: a CSV cell (text) or a JSONL value
// (raw JSON). The typed getters below accept each form's documented syntax.
type cell struct {
	text   string
	raw    json.RawMessage
	isJSON bool
}

// row is one parsed input line with its fields by column name.
type row struct {
	at     loc
	fields map[string]cell
}

// null reports a JSON null, which counts as an absent optional field.
func (c cell) null() bool { return c.isJSON && bytes.Equal(bytes.TrimSpace(c.raw), []byte("null")) }

// get returns a field that is present and not null.
func (r row) get(field string) (cell, bool) {
	c, ok := r.fields[field]
	if !ok || c.null() {
		return cell{}, false
	}
	if !c.isJSON && c.text == "" {
		return cell{}, false
	}
	return c, true
}

// str reads a text field. A required field must be present and non-empty.
func (r row) str(field string, required bool) (string, error) {
	c, ok := r.get(field)
	if !ok {
		if required {
			return "", r.at.errf(field, "missing (required)")
		}
		return "", nil
	}
	if !c.isJSON {
		return c.text, nil
	}
	var s string
	if err := json.Unmarshal(c.raw, &s); err != nil {
		return "", r.at.errf(field, "want a JSON string, got %s", short(string(c.raw)))
	}
	if s == "" && required {
		return "", r.at.errf(field, "empty (required)")
	}
	return s, nil
}

// enum reads a text field whose CSV form may carry surrounding spaces.
func (r row) enum(field string, required bool) (string, error) {
	s, err := r.str(field, required)
	return strings.TrimSpace(s), err
}

// number reads a finite float.
func (r row) number(field string) (float64, bool, error) {
	c, ok := r.get(field)
	if !ok {
		return 0, false, nil
	}
	var v float64
	if c.isJSON {
		if err := json.Unmarshal(c.raw, &v); err != nil {
			return 0, true, r.at.errf(field, "want a JSON number, got %s", short(string(c.raw)))
		}
	} else {
		var err error
		if v, err = strconv.ParseFloat(strings.TrimSpace(c.text), 64); err != nil {
			return 0, true, r.at.errf(field, "%q is not a number", short(c.text))
		}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, true, r.at.errf(field, "%v is not a finite number", v)
	}
	return v, true, nil
}

// integer reads a whole number.
func (r row) integer(field string) (int, bool, error) {
	c, ok := r.get(field)
	if !ok {
		return 0, false, nil
	}
	text := strings.TrimSpace(c.text)
	if c.isJSON {
		var n json.Number
		if err := json.Unmarshal(c.raw, &n); err != nil {
			return 0, true, r.at.errf(field, "want a JSON integer, got %s", short(string(c.raw)))
		}
		text = n.String()
	}
	v, err := strconv.Atoi(text)
	if err != nil {
		return 0, true, r.at.errf(field, "%q is not an integer", short(text))
	}
	return v, true, nil
}

// list reads a list of ids: a JSON array of strings, or in CSV either such
// an array or ids separated by "|". An empty CSV cell is an empty list.
func (r row) list(field string) ([]string, bool, error) {
	c, present := r.fields[field]
	if !present || c.null() {
		return nil, false, nil
	}
	raw := c.raw
	if !c.isJSON {
		t := strings.TrimSpace(c.text)
		if t == "" {
			return []string{}, true, nil
		}
		if !strings.HasPrefix(t, "[") {
			parts := strings.Split(c.text, "|")
			for i, p := range parts {
				if p == "" {
					return nil, true, r.at.errf(field, "item %d of %q is empty", i+1, short(c.text))
				}
			}
			return parts, true, nil
		}
		raw = json.RawMessage(t)
	}
	var out []*string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, true, r.at.errf(field, "want a JSON array of strings, got %s", short(string(raw)))
	}
	list := make([]string, len(out))
	for i, s := range out {
		if s == nil || *s == "" {
			return nil, true, r.at.errf(field, "item %d is null or empty", i+1)
		}
		list[i] = *s
	}
	return list, true, nil
}

// scores reads a map of id to number: a JSON object, or in CSV either such
// an object or "id=value" pairs separated by "|". Duplicate keys are errors.
func (r row) scores(field string) (map[string]float64, bool, error) {
	c, ok := r.get(field)
	if !ok {
		return nil, false, nil
	}
	out := map[string]float64{}
	put := func(k string, v float64) error {
		if _, dup := out[k]; dup {
			return r.at.errf(field, "id %q appears twice", short(k))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return r.at.errf(field, "value for %q is not finite", short(k))
		}
		out[k] = v
		return nil
	}
	raw := c.raw
	if !c.isJSON {
		t := strings.TrimSpace(c.text)
		if !strings.HasPrefix(t, "{") {
			for i, p := range strings.Split(c.text, "|") {
				k, vs, found := cutLast(p, "=")
				if !found || k == "" {
					return nil, true, r.at.errf(field, "item %d %q: want id=value", i+1, short(p))
				}
				v, err := strconv.ParseFloat(strings.TrimSpace(vs), 64)
				if err != nil {
					return nil, true, r.at.errf(field, "item %d %q: %q is not a number", i+1, short(p), short(vs))
				}
				if err := put(k, v); err != nil {
					return nil, true, err
				}
			}
			return out, true, nil
		}
		raw = json.RawMessage(t)
	}
	pairs, err := objectPairs(raw)
	if err != nil {
		return nil, true, r.at.errf(field, "want a JSON object of numbers: %v", err)
	}
	for _, p := range pairs {
		var v float64
		if err := json.Unmarshal(p.value, &v); err != nil {
			return nil, true, r.at.errf(field, "value for %q: want a number, got %s", short(p.key), short(string(p.value)))
		}
		if err := put(p.key, v); err != nil {
			return nil, true, err
		}
	}
	return out, true, nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

type pair struct {
	key   string
	value json.RawMessage
}

// objectPairs splits one JSON object into its members in order, rejecting
// duplicate keys (encoding/json would silently keep the last) and trailing
// data. The whole text is validated first, so the splitter below walks
// well-formed JSON only; it is several times faster than json.Decoder.Token.
func objectPairs(raw []byte) ([]pair, error) {
	if !utf8.Valid(raw) {
		return nil, errors.New("invalid UTF-8")
	}
	if !json.Valid(raw) {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, jsonErr(err)
		}
		return nil, errors.New("invalid JSON")
	}
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", short(string(raw)))
	}
	i = skipSpace(raw, i+1)
	var out []pair
	seen := map[string]bool{}
	for raw[i] != '}' {
		end := stringEnd(raw, i)
		key, err := unquote(raw[i:end])
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("key %q appears twice", short(key))
		}
		seen[key] = true
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		vend := valueEnd(raw, i)
		out = append(out, pair{key, json.RawMessage(raw[i:vend])})
		i = skipSpace(raw, vend)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j
}

// unquote decodes a JSON string token; most keys have no escapes.
func unquote(tok []byte) (string, error) {
	if bytes.IndexByte(tok, '\\') < 0 {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

func jsonErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("unexpected end of JSON")
	}
	return err
}

func short(s string) string {
	if len(s) > 60 {
		// Cut on a rune boundary so the message stays valid UTF-8.
		i := 60
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i] + "..."
	}
	return s
}

// Short cuts s for an error message (60 bytes, on a rune boundary).
func Short(s string) string { return short(s) }
