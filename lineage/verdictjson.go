package lineage

import (
	"encoding/json"
	"fmt"
)

// MarshalJSON writes a gate verdict as its name ("allow", "deny",
// "require-user", "strip-and-retry", "repair-and-retry"), as policy files
// spell it: every JSON output shows words, never the verdict's number.
func (v Verdict) MarshalJSON() ([]byte, error) { return json.Marshal(v.String()) }

// UnmarshalJSON reads a verdict by name, or by number as older outputs
// wrote it.
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var n uint8
	if err := json.Unmarshal(b, &n); err == nil {
		*v = Verdict(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("verdict: want a name or a number, got %s", b)
	}
	p, err := ParseVerdict(s)
	if err != nil {
		return err
	}
	*v = p
	return nil
}
