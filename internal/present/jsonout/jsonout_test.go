package jsonout

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteJSONSanitisesEveryString(t *testing.T) {
	hostile := "a\x1b[2J\u009b31m\u202egnp.exe\u200b\x07"
	v := map[string]any{"msg": hostile, "list": []any{hostile, 1.5, true}, hostile: map[string]any{"n": 42}}
	var out bytes.Buffer
	if err := Write(&out, v); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, bad := range []string{"\x1b", `\u001b`, "\u009b", "\u202e", "\u200b", "\x07", `\u0007`} {
		if strings.Contains(s, bad) {
			t.Errorf("output contains %q:\n%s", bad, s)
		}
	}
	var back map[string]any
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if back["list"].([]any)[1] != 1.5 || !strings.Contains(s, `"n": 42`) {
		t.Errorf("non-string values changed:\n%s", s)
	}
}
