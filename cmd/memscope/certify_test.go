package main

import (
	"encoding/json"
	"math"
	"path/filepath"
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

// memscope exposure --json on the structural-write demo: the documented
// keys, and the selectors exposed exactly as AuthSelect's (arXiv:2606.12290) Table II says.
func TestExposureJSON(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	code, out, errs := runIn(t, sdir, "exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--draws", "50", "--curve-draws", "5", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Selectors map[string]struct {
			Exposed *bool    `json:"exposed"`
			SDom    *float64 `json:"s_dom"`
			SAdv    *float64 `json:"s_adv"`
			Queries []struct {
				Query    string   `json:"query"`
				Class    string   `json:"class"`
				SDom     *float64 `json:"s_dom"`
				SAdv     *float64 `json:"s_adv"`
				TopKG    []string `json:"topk_g"`
				TopKAuth []string `json:"topk_auth"`
			} `json:"queries"`
		} `json:"selectors"`
		SMSR *struct {
			Delta float64 `json:"delta"`
		} `json:"smsr"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"ppr": true, "leiden": true, "node_distance": false, "rrf": false, "dense": false}
	if len(got.Selectors) != len(want) {
		t.Fatalf("selectors %v", got.Selectors)
	}
	for name, exp := range want {
		s, ok := got.Selectors[name]
		if !ok || s.Exposed == nil || s.SDom == nil || s.SAdv == nil {
			t.Fatalf("%s: missing keys", name)
		}
		if *s.Exposed != exp {
			t.Errorf("%s: exposed %v, want %v", name, *s.Exposed, exp)
		}
		if len(s.Queries) != 3 {
			t.Fatalf("%s: %d queries", name, len(s.Queries))
		}
		for _, q := range s.Queries {
			if q.Query == "" || q.Class == "" || q.SDom == nil || q.SAdv == nil || len(q.TopKG) != 5 || len(q.TopKAuth) != 5 {
				t.Errorf("%s: incomplete query row %+v", name, q)
			}
		}
	}
	if got.SMSR == nil || !(got.SMSR.Delta >= 0 && got.SMSR.Delta <= 1) {
		t.Errorf("store certificate missing: %+v", got.SMSR)
	}
}

// The MWP scenario through memscope exposure: each planted failure is
// caught, alpha_vec included (the scenario keeps a vector table).
func TestExposureMWPAudit(t *testing.T) {
	sdir := filepath.Join(demoDir, "mwp")
	code, out, errs := runIn(t, sdir, "exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--draws", "10", "--curve-draws", "0", "--selectors", "ppr", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		MWP struct {
			Checks []struct {
				Name, Status string
			} `json:"checks"`
			Findings []struct {
				Code string `json:"code"`
			} `json:"findings"`
		} `json:"mwp"`
		EquiMem struct {
			Writes []struct {
				Rho *float64 `json:"rho_detect"`
			} `json:"writes"`
			Caveat string `json:"caveat"`
		} `json:"equimem"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range got.MWP.Findings {
		seen[f.Code] = true
	}
	for _, c := range []string{"MWP_PRLR_TRACE", "MWP_GATE_BYPASS", "MWP_NONCE_REUSE", "MWP_CANDIDATE_HASH_MISMATCH", "MWP_VERSION_CHAIN_BROKEN", "MWP_VECTOR_RESIDUE"} {
		if !seen[c] {
			t.Errorf("%s not reported: %+v", c, got.MWP.Findings)
		}
	}
	for _, c := range got.MWP.Checks {
		if c.Name == "alpha_vec" && c.Status != "checked" {
			t.Errorf("alpha_vec: %s", c.Status)
		}
	}
	if len(got.EquiMem.Writes) == 0 || got.EquiMem.Writes[0].Rho == nil || got.EquiMem.Caveat == "" {
		t.Errorf("equimem section incomplete: %+v", got.EquiMem)
	}
}
