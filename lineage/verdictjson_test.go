package lineage

import (
	"encoding/json"
	"testing"
)

func TestVerdictJSON(t *testing.T) {
	for v := Allow; v <= RepairAndRetry; v++ {
		b, err := json.Marshal(GateResult{Verdict: v})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || m["verdict"] != v.String() {
			t.Fatalf("%v: %s", v, b)
		}
		var back Verdict
		if err := json.Unmarshal([]byte(`"`+v.String()+`"`), &back); err != nil || back != v {
			t.Errorf("%v read back as %v (%v)", v, back, err)
		}
	}
	var x Verdict
	if err := json.Unmarshal([]byte(`"maybe"`), &x); err == nil {
		t.Error("an unknown verdict was accepted")
	}
	// An explanation's labels are words too.
	b, _ := json.Marshal(Explanation{Recorded: External, Recomputed: DerivedUntrusted})
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["recorded"] != "External" || m["recomputed"] != "Derived-Untrusted" {
		t.Errorf("explanation JSON %s", b)
	}
}
