package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/report"
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
	if code != exitFindings { // the audit's MWP_GATE_BYPASS and the others are errors
		t.Fatalf("exit %d, want %d: %s", code, exitFindings, errs)
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

// memscope exposure --json and the report's case file encode one
// exposurecase result in one shape (jsonout.Exposure): with the report's
// budget they are equal, key for key, but for the CLI's snapshot and the
// case file's available and note.
func TestExposureJSONEqualsReport(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	js := filepath.Join(t.TempDir(), "case.json")
	code, _, errs := runIn(t, sdir, "report", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--out", filepath.Join(filepath.Dir(js), "r.html"), "--json", js)
	if code != exitFindings { // structural-write: compromise indicated
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	code, out, errs := runIn(t, sdir, "exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json",
		"--draws", fmt.Sprint(report.ExposureDraws), "--curve-draws", fmt.Sprint(report.ExposureCurveDraws), "--json")
	if code != exitOK {
		t.Fatalf("exposure: exit %d: %s", code, errs)
	}
	var cli map[string]any
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Exposure map[string]any `json:"exposure"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if c.Exposure["available"] != true || cli["snapshot"] != "snapshot.db" {
		t.Fatalf("case file exposure available = %v, cli snapshot = %v", c.Exposure["available"], cli["snapshot"])
	}
	delete(cli, "snapshot")
	delete(c.Exposure, "available")
	delete(c.Exposure, "note")
	sel, _ := cli["selectors"].(map[string]any)
	for _, name := range []string{"ppr", "leiden", "node_distance", "rrf", "dense"} {
		if _, ok := sel[name]; !ok {
			t.Errorf("selectors lacks %s", name)
		}
	}
	if !reflect.DeepEqual(cli, c.Exposure) {
		for k := range cli {
			if !reflect.DeepEqual(cli[k], c.Exposure[k]) {
				t.Errorf("key %q differs between memscope exposure --json and the report's case file", k)
			}
		}
		for k := range c.Exposure {
			if _, ok := cli[k]; !ok {
				t.Errorf("key %q only in the report's case file", k)
			}
		}
	}
}

// memscope exposure --equimem-sort orders the EquiMem list as documented:
// rho (triage rank ascending), label (culprits first, then unauthenticated,
// then authenticated), write (write id ascending); --equimem-reverse flips
// it; an unknown key is a usage error. The caveat stays in every order.
func TestExposureEquiMemSortFlag(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	type row struct {
		rank         int
		write, label string
	}
	rows := func(args ...string) []row {
		t.Helper()
		code, out, errs := runIn(t, sdir, append([]string{"exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--draws", "5", "--curve-draws", "0", "--selectors", "ppr"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if !strings.Contains(out, "caveat: ") || !strings.Contains(out, "top decile") {
			t.Errorf("%v: the caveat or the top-decile count is missing", args)
		}
		var rs []row
		in := false
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			switch {
			case len(f) > 0 && f[0] == "RANK":
				in = true
			case in && len(f) == 7:
				var r row
				fmt.Sscan(f[0], &r.rank)
				r.write, r.label = f[1], f[6]
				rs = append(rs, r)
			default:
				in = false
			}
		}
		if len(rs) == 0 {
			t.Fatalf("%v: no EquiMem rows:\n%s", args, out)
		}
		return rs
	}
	group := map[string]int{"CULPRIT": 0, "unauthenticated": 1, "authenticated": 2}
	byRho, byLabel, byWrite, rev := rows(), rows("--equimem-sort", "label"), rows("--equimem-sort", "write"), rows("--equimem-sort", "write", "--equimem-reverse")
	for i := 1; i < len(byRho); i++ {
		if byRho[i-1].rank >= byRho[i].rank {
			t.Errorf("rho order: rank %d before %d", byRho[i-1].rank, byRho[i].rank)
		}
	}
	if byLabel[0].label != "CULPRIT" {
		t.Errorf("label order starts with %+v, want a culprit (structural-write has two)", byLabel[0])
	}
	for i := 1; i < len(byLabel); i++ {
		a, b := byLabel[i-1], byLabel[i]
		if group[a.label] > group[b.label] || group[a.label] == group[b.label] && a.rank >= b.rank {
			t.Errorf("label order: %+v before %+v", a, b)
		}
	}
	for i := 1; i < len(byWrite); i++ {
		if byWrite[i-1].write > byWrite[i].write || rev[i-1].write < rev[i].write {
			t.Errorf("write order at %d: %s, %s (reversed %s, %s)", i, byWrite[i-1].write, byWrite[i].write, rev[i-1].write, rev[i].write)
		}
	}
	if fmt.Sprint(byRho) == fmt.Sprint(byLabel) || fmt.Sprint(byRho) == fmt.Sprint(byWrite) {
		t.Error("the order did not change with the sort key")
	}
	if code, _, _ := runIn(t, sdir, "exposure", "snapshot.db", "--log", "log", "--equimem-sort", "size"); code != exitUsage {
		t.Errorf("--equimem-sort size: exit %d, want usage error", code)
	}
}

// The blast radius in memscope exposure --json counts, per query, the
// recorded actions that followed it, as memscope actions lists them; the
// text output orders the first flips soonest first.
func TestExposureBlastRadius(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	code, out, errs := runIn(t, sdir, "actions", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--json")
	if code != exitOK && code != exitFindings {
		t.Fatalf("actions: exit %d: %s", code, errs)
	}
	var acts []struct {
		Query      string `json:"query"`
		Dispatched bool   `json:"dispatched"`
	}
	if err := json.Unmarshal([]byte(out), &acts); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{}
	for _, a := range acts {
		if a.Query == "" {
			continue
		}
		w := want[a.Query]
		w[0]++
		if a.Dispatched {
			w[1]++
		}
		want[a.Query] = w
	}
	if len(want) == 0 {
		t.Fatal("the demo records no action that followed a query")
	}
	code, out, errs = runIn(t, sdir, "exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--draws", "5", "--curve-draws", "4", "--json")
	if code != exitOK {
		t.Fatalf("exposure: exit %d: %s", code, errs)
	}
	var got struct {
		BlastRadius map[string]struct {
			Actions    int `json:"actions"`
			Dispatched int `json:"dispatched"`
		} `json:"blast_radius"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.BlastRadius) != len(want) {
		t.Errorf("blast radius %v, want %v", got.BlastRadius, want)
	}
	for q, w := range want {
		if g := got.BlastRadius[q]; g.Actions != w[0] || g.Dispatched != w[1] {
			t.Errorf("%s: blast radius %+v, want %d actions, %d dispatched", q, g, w[0], w[1])
		}
	}
	code, out, _ = runIn(t, sdir, "exposure", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--draws", "5", "--curve-draws", "4")
	if code != exitOK || !strings.Contains(out, "first flip, soonest first") {
		t.Fatalf("text output (exit %d) lacks the first-flip table:\n%s", code, out)
	}
}

// The smallest pool is compared exactly: at m=50 (k=5, n=1, t=1) delta is
// exactly 1/10 and meets --target 0.1 (issue 23, item 12).
func TestCertifySmallestPoolExact(t *testing.T) {
	code, out, errs := runIn(t, ".", "certify", "--m", "50", "--k", "5", "--n", "1", "--t", "1", "--target", "0.1")
	if code != exitOK || !strings.Contains(out, "smallest m with delta <= 0.1: 50\n") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	if code, _, _ := runIn(t, ".", "certify", "--target", "1/10"); code != exitOK {
		t.Errorf("--target 1/10: exit %d", code)
	}
	if code, _, _ := runIn(t, ".", "certify", "--target", "x"); code != exitUsage {
		t.Errorf("--target x: exit %d", code)
	}
}
