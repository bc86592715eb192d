package report

import (
	"bytes"
	"testing"
)

// The exposure section renders what memscope exposure finds: on the
// structural-write demo PPR and Leiden are exposed and the other three
// selectors are not; the store certificate and its curves are drawn; the
// MWP audit of the mwp demo reports each planted failure, alpha_vec
// included.
func TestExposureSection(t *testing.T) {
	t.Parallel()
	c, page, js := buildCase(t, "structural-write", true)
	ex := c.Exposure
	if ex == nil || !ex.Available {
		t.Fatalf("no exposure section: %+v", ex)
	}
	want := map[string]bool{"ppr": true, "leiden": true, "node_distance": false, "rrf": false, "dense": false}
	if len(ex.Selectors) != len(want) {
		t.Fatalf("%d selectors, want %d", len(ex.Selectors), len(want))
	}
	for _, s := range ex.Selectors {
		if s.Exposed != want[s.Name] {
			t.Errorf("%s exposed %v, want %v", s.Name, s.Exposed, want[s.Name])
		}
		js, ok := ex.JSON.Selectors[s.Name]
		if !ok || js.Exposed != s.Exposed || len(js.Queries) == 0 || len(js.Queries[0].TopKAuth) == 0 {
			t.Errorf("%s: the case file lacks the selector or its per-query ranked lists", s.Name)
		}
	}
	if ex.HarmChart == nil || len(ex.HarmChart.Series) != 3 {
		t.Fatalf("harm chart: %+v, want one series per structural selector (ppr, leiden, node_distance)", ex.HarmChart)
	}
	// First flip and blast radius: every query, soonest PPR flip first
	// (">" rows last), and the table on the page.
	if len(ex.Flips) != ex.FlipsTotal || len(ex.Flips) == 0 || !bytes.Contains(page, []byte("First flip and blast radius")) {
		t.Errorf("first-flip rows %d of %d", len(ex.Flips), ex.FlipsTotal)
	}
	for i := 1; i < len(ex.Flips); i++ {
		if !ex.Flips[i-1].Soon && ex.Flips[i].Soon {
			t.Errorf("a query PPR never flips is listed before one it flips: %+v", ex.Flips)
		}
	}
	if ex.SMSR == nil || ex.SMSR.VsT == nil || ex.SMSR.VsM == nil || len(ex.SMSR.VsT.Series) != 2 {
		t.Fatalf("SMSR certificate or curves missing: %+v", ex.SMSR)
	}
	if ex.EquiMem == nil || ex.EquiMem.Culprits == 0 || ex.EquiMem.Caveat == "" {
		t.Errorf("EquiMem triage incomplete: %+v", ex.EquiMem)
	}
	for _, b := range [][]byte{[]byte(`id="exposure"`), []byte(`<figure class="chart">`), []byte("SMSR certificate for the store"), []byte("EquiMem triage")} {
		if !bytes.Contains(page, b) {
			t.Errorf("page lacks %s", b)
		}
	}
	for _, k := range []string{`"exposure"`, `"topk_auth"`, `"s_adv"`, `"s_dom"`, `"rho_detect"`} {
		if !bytes.Contains(js, []byte(k)) {
			t.Errorf("case file lacks %s", k)
		}
	}

	c, page, _ = buildCase(t, "mwp", true)
	codes := map[string]bool{}
	for _, f := range c.Exposure.MWP.Findings {
		codes[f.Code] = true
	}
	for _, code := range []string{"MWP_PRLR_TRACE", "MWP_GATE_BYPASS", "MWP_NONCE_REUSE", "MWP_CANDIDATE_HASH_MISMATCH", "MWP_VERSION_CHAIN_BROKEN", "MWP_VECTOR_RESIDUE"} {
		if !codes[code] || !bytes.Contains(page, []byte(code)) {
			t.Errorf("%s not in the report's MWP audit", code)
		}
	}
}

// Same inputs, same bytes: the Monte Carlo is seeded.
func TestExposureDeterministic(t *testing.T) {
	t.Parallel()
	_, a, ja := buildCase(t, "structural-write", true)
	_, b, jb := buildCase(t, "structural-write", true)
	if !bytes.Equal(a, b) || !bytes.Equal(ja, jb) {
		t.Error("two reports of one store differ")
	}
}

// Section 6 words the lineage gate by what it decided: on the
// structural-write demo only AuthSelect refuses the attacked action, and
// the page says the whole-justification gate allows it rather than
// quoting an "allow" as if it were the refusal.
func TestLineageSectionNamesTheRefusingDefence(t *testing.T) {
	t.Parallel()
	c, page, _ := buildCase(t, "structural-write", true)
	allowOnly := 0
	for _, r := range c.Lineage.Refused {
		if r.Verdict == "allow" {
			allowOnly++
		}
	}
	if allowOnly == 0 {
		t.Fatal("no refused action that the lineage gate allows: the test sees nothing")
	}
	if !bytes.Contains(page, []byte("The lineage gate over the whole justification allows it")) {
		t.Error("an action the lineage gate allows is not worded as allowed")
	}
	if bytes.Contains(page, []byte(`whole justification says <span class="mark">allow`)) {
		t.Error("the page still quotes the gate's allow as the refusal")
	}
}
