package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The paper's check values through the command: delta 0.1035 at m=20, k=5,
// n=5, t=1, and 21 the smallest pool with delta <= 0.10.
func TestCertifyCheckValues(t *testing.T) {
	code, out, errs := runIn(t, ".", "certify", "--m", "20", "--k", "5", "--n", "5", "--t", "1", "--target", "0.10", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Delta     float64 `json:"delta"`
		SmallestM *int    `json:"smallest_m"`
		DeltaVsT  []struct {
			X     int     `json:"x"`
			Delta float64 `json:"delta"`
		} `json:"delta_vs_t"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Delta-0.1035) > 5e-5 {
		t.Errorf("delta = %v, want 0.1035", got.Delta)
	}
	if got.SmallestM == nil || *got.SmallestM != 21 {
		t.Errorf("smallest_m = %v, want 21", got.SmallestM)
	}
	if len(got.DeltaVsT) < 2 || got.DeltaVsT[1].X != 1 || math.Abs(got.DeltaVsT[1].Delta-got.Delta) > 1e-12 {
		t.Errorf("delta_vs_t[1] should be the certificate itself: %+v", got.DeltaVsT)
	}
	code, out, _ = runIn(t, ".", "certify", "--m", "20", "--t", "1")
	if code != exitOK || !strings.Contains(out, "0.1035") {
		t.Errorf("text output (exit %d) lacks delta 0.1035:\n%s", code, out)
	}
	if code, _, _ := runIn(t, ".", "certify", "--m", "3", "--k", "5"); code != exitUsage {
		t.Errorf("k > m: exit %d, want usage error", code)
	}
	if code, _, _ := runIn(t, ".", "certify", "--target", "2"); code != exitUsage {
		t.Errorf("target 2: exit %d, want usage error", code)
	}
}
