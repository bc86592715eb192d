package snapshot

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// DeclaredLabels reads the MetaDeclaredLabels key of a snapshot's meta map:
// write id -> true for a write the input declared authenticated, false for
// one declared unauthenticated. Writes without a declaration are absent.
// The meta table is not signed, so these labels are claims: callers show
// them as "declared", never as verified.
func DeclaredLabels(meta map[string]string) (map[string]bool, error) {
	raw, ok := meta[MetaDeclaredLabels]
	if !ok {
		return map[string]bool{}, nil
	}
	var labels map[string]string
	if err := json.Unmarshal([]byte(raw), &labels); err != nil {
		return nil, fmt.Errorf("meta %s: %w", MetaDeclaredLabels, err)
	}
	out := make(map[string]bool, len(labels))
	for wid, l := range labels {
		switch l {
		case LabelAuthenticated:
			out[wid] = true
		case LabelUnauthenticated:
			out[wid] = false
		default:
			return nil, fmt.Errorf("meta %s: write %s has label %q, want %s or %s", MetaDeclaredLabels, cut(wid), cut(l), LabelAuthenticated, LabelUnauthenticated)
		}
	}
	return out, nil
}

// cut shortens a value quoted in an error to 60 bytes on a rune boundary
// (the meta table is evidence and can be arbitrarily long); callers
// sanitise before printing.
func cut(s string) string {
	if len(s) <= 60 {
		return s
	}
	i := 60
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}
