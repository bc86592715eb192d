package jsonout

import (
	"bytes"
	"encoding/json"
)

// MarshalLine is Marshal as one compact line (no newline): what a JSON
// Lines stream (memscope watch's events) carries.
func MarshalLine(v any) ([]byte, error) {
	b, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
