package record

import (
	"encoding/json"
	"fmt"
)

// MarshalJSON writes a trust level as its name ("Trusted",
// "Derived-Trusted", "Derived-Untrusted", "External"): every JSON output
// (jsonout) shows words, never the level's number. The signed CBOR
// encoding is not affected.
func (t Trust) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }

// UnmarshalJSON reads a trust level by name, or by number as older
// outputs wrote it.
func (t *Trust) UnmarshalJSON(b []byte) error {
	var n uint8
	if err := json.Unmarshal(b, &n); err == nil {
		*t = Trust(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("trust: want a name or a number, got %s", b)
	}
	for l := Trusted; l <= External; l++ {
		if l.String() == s {
			*t = l
			return nil
		}
	}
	return fmt.Errorf("trust: unknown level %q", s)
}
