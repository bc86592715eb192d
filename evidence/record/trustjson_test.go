package record

import (
	"encoding/json"
	"testing"
)

// Trust levels are words in JSON and read back from words or the numbers
// older outputs wrote; the signed CBOR encoding keeps the number.
func TestTrustJSON(t *testing.T) {
	for l := Trusted; l <= External; l++ {
		b, err := json.Marshal(struct {
			T Trust `json:"t"`
		}{l})
		if err != nil || string(b) != `{"t":"`+l.String()+`"}` {
			t.Fatalf("%v: %s %v", l, b, err)
		}
		var back Trust
		if err := json.Unmarshal([]byte(`"`+l.String()+`"`), &back); err != nil || back != l {
			t.Errorf("name %v: %v %v", l, back, err)
		}
		if err := json.Unmarshal([]byte{'0' + byte(l)}, &back); err != nil || back != l {
			t.Errorf("number %v: %v %v", l, back, err)
		}
	}
	var x Trust
	if err := json.Unmarshal([]byte(`"Mostly-Trusted"`), &x); err == nil {
		t.Error("an unknown level was accepted")
	}
}
