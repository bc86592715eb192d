package main

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/memscope/memscope/sanitize"
)

// writeJSON prints v as indented JSON with every string value and key
// passed through the sanitiser: JSON escaping covers C0 controls but leaves
// C1 controls, bidi overrides and invisible characters as they are, and a
// responder's terminal shows what jq prints.
func writeJSON(w io.Writer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers keep their exact text
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sanitizeTree(tree))
}

func sanitizeTree(v any) any {
	switch x := v.(type) {
	case string:
		return sanitize.Line(x)
	case []any:
		for i := range x {
			x[i] = sanitizeTree(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[sanitize.Line(k)] = sanitizeTree(val)
		}
		return out
	}
	return v
}
