// Package jsonout is memscope's one JSON encoder: every --json output of
// the CLI and every export of the inspector goes through it, so they share
// one schema (lowercase snake_case keys, given by the types' json tags) and
// one treatment of evidence strings (sanitised, see docs/JSON.md).
package jsonout

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// Write prints v as indented JSON with every string value and key passed
// through the sanitiser: JSON escaping covers C0 controls but leaves C1
// controls, bidi overrides and invisible characters as they are, and a
// responder's terminal shows what jq prints.
func Write(w io.Writer, v any) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal is Write into a byte slice (ending in a newline).
func Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their exact text
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sanitizeTree(tree)); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func sanitizeTree(v any) any {
	switch x := v.(type) {
	case string:
		// The second pass over fields the caller sanitised already (with
		// sanitize.Line): Safe leaves their escapes as they are.
		return sanitize.Safe(x)
	case []any:
		for i := range x {
			x[i] = sanitizeTree(x[i])
		}
		return x
	case map[string]any:
		if isFinding(x) {
			return sanitizeFinding(x)
		}
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[sanitize.Safe(k)] = sanitizeTree(val)
		}
		return out
	}
	return v
}

// isFinding says whether an object is a finding.Finding: exactly its
// JSON members (entries optional).
func isFinding(x map[string]any) bool {
	n := 5
	if _, ok := x["entries"]; ok {
		n++
	}
	if len(x) != n {
		return false
	}
	for _, k := range []string{"severity", "code", "family", "subject", "message"} {
		if _, ok := x[k].(string); !ok {
			return false
		}
	}
	return true
}

// sanitizeFinding sanitises a finding's text once with sanitize.Line: a
// Finding holds raw text (its subject and message may quote evidence), and
// every output sanitises it once, this one here (docs/SANITIZE.md).
func sanitizeFinding(x map[string]any) map[string]any {
	for k, v := range x {
		switch val := v.(type) {
		case string:
			x[k] = sanitize.Line(val)
		case []any:
			for i, e := range val {
				if s, ok := e.(string); ok {
					val[i] = sanitize.Line(s)
				}
			}
		}
	}
	return x
}
