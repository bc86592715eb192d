package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/memscope/memscope/exposure"
	"github.com/memscope/memscope/exposurecase"
	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/inspect"
	"github.com/memscope/memscope/smsr"
	"github.com/memscope/memscope/verify"
)

const exposureUsage = "memscope exposure SNAPSHOT --log DIR|URL [anchors] [--seed 1] [--draws 1000] [--edges 3] [--clean-weight 2] [--heavy-weight 60] [--curve-draws 20] [--curve-max 16] [--selectors ppr,leiden,...] [--leiden auto|full|incremental] [--k 5] [--json]"

type jsonExposureQuery struct {
	Query        string          `json:"query"`
	Class        string          `json:"class"`
	SDom         float64         `json:"s_dom"`
	SAdv         float64         `json:"s_adv"`
	SAdvClean    float64         `json:"s_adv_clean"`
	Reordered    float64         `json:"reordered"`
	Targeted     bool            `json:"targeted"`
	Uncertain    int             `json:"uncertain"`
	TopKG        []string        `json:"topk_g"`
	TopKAuth     []string        `json:"topk_auth"`
	Baseline     []string        `json:"baseline"`
	Targets      []jsonTarget    `json:"targets,omitempty"`
	SMSR         *jsonSMSRSimple `json:"smsr,omitempty"`
	NotCheckable string          `json:"not_checkable,omitempty"`
	// Coverage is "unsigned" when no signature covers the query row whose
	// reset vector the draws start from.
	Coverage string `json:"coverage,omitempty"`
}

type jsonTarget struct {
	Node      string  `json:"node"`
	ResetMass float64 `json:"reset_mass"`
	Floor     float64 `json:"teleport_floor"`
	Anchored  bool    `json:"anchored"`
	Evicted   float64 `json:"evicted"`
}

type jsonCurvePoint struct {
	Writes  int     `json:"writes"`
	Changed float64 `json:"changed"`
}

type jsonSelector struct {
	Structural bool                `json:"structural"`
	Exposed    bool                `json:"exposed"`
	SDom       float64             `json:"s_dom"`
	SAdv       float64             `json:"s_adv"`
	SAdvClean  float64             `json:"s_adv_clean"`
	Curve      []jsonCurvePoint    `json:"curve"`
	Queries    []jsonExposureQuery `json:"queries"`
}

type jsonSMSRSimple struct {
	M     int     `json:"m"`
	K     int     `json:"k"`
	N     int     `json:"n"`
	T     int     `json:"t"`
	Delta float64 `json:"delta"`
}

type jsonSMSRStore struct {
	jsonSMSRSimple
	// Keyed by the number of runs ("5", "7").
	DeltaVsT map[string][]jsonPoint `json:"delta_vs_t"`
	DeltaVsM map[string][]jsonPoint `json:"delta_vs_m"`
	Basis    string                 `json:"basis"`
}

type jsonBudget struct {
	Edges       int     `json:"edges"`
	CleanWeight float64 `json:"clean_weight_max"`
	HeavyWeight float64 `json:"heavy_weight"`
	Draws       int     `json:"draws"`
	CurveDraws  int     `json:"curve_draws"`
	Seed        uint64  `json:"seed"`
	// LeidenMode is how Leiden draws were recomputed: full or incremental.
	LeidenMode string `json:"leiden_mode"`
}

type jsonExposure struct {
	Snapshot  string                  `json:"snapshot"`
	Budget    jsonBudget              `json:"budget"`
	Selectors map[string]jsonSelector `json:"selectors"`
	Ranked    []string                `json:"ranked"`
	SMSR      *jsonSMSRStore          `json:"smsr"`
	EquiMem   *jsonEquiMem            `json:"equimem"`
	MWP       *jsonMWP                `json:"mwp"`
	Notes     []string                `json:"notes"`
	// QueryCoverage maps each query whose row no signature covers to its
	// label ("unsigned"); covered queries are absent.
	QueryCoverage map[string]string `json:"query_coverage"`
}

type jsonEquiWrite struct {
	Write         string  `json:"write"`
	Writer        string  `json:"writer"`
	Rel           string  `json:"rel"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	SLocal        float64 `json:"s_local"`
	SPath         float64 `json:"s_path"`
	Alpha         float64 `json:"alpha"`
	Rho           float64 `json:"rho_detect"`
	Paths         int     `json:"paths"`
	Truncated     bool    `json:"truncated"`
	Authenticated bool    `json:"authenticated"`
	Rule          string  `json:"label_rule"`
	Culprit       bool    `json:"culprit"`
	Rank          int     `json:"triage_rank"`
}

type jsonEquiMem struct {
	Depth               int             `json:"depth"`
	TopDecile           int             `json:"top_decile"`
	Culprits            int             `json:"culprits"`
	CulpritsInTopDecile int             `json:"culprits_in_top_decile"`
	Unauthenticated     int             `json:"unauthenticated"`
	UnauthInTopDecile   int             `json:"unauthenticated_in_top_decile"`
	Writes              []jsonEquiWrite `json:"writes"`
	Caveat              string          `json:"caveat"`
}

type jsonMWPCheck struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Detail   string `json:"detail"`
	Findings int    `json:"findings"`
}

type jsonMWP struct {
	Rejected int               `json:"rejected"`
	Accepted int               `json:"accepted"`
	Checks   []jsonMWPCheck    `json:"checks"`
	Findings []finding.Finding `json:"findings"`
}

var exposureNotes = []string{
	"s_adv: share of bounded no-source writes (heavy budget) that change a query's selected set on G_auth; s_adv_clean: the same at the clean-indistinguishable budget",
	"harm here is selection change, the stage replay can measure; whether the reader then acts wrongly is not measured",
	"rrf and dense read no structure: their s_adv is 0 by construction, and measured as such",
}

func runExposure(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("exposure", exposureUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	seed := fs.Uint64("seed", 1, "Monte Carlo seed")
	draws := fs.Int("draws", 1000, "Monte Carlo draws per query and budget")
	edges := fs.Int("edges", 3, "no-source edges per bounded write")
	clean := fs.Float64("clean-weight", 2, "clean budget: each edge weighs uniformly in [1, this]")
	heavy := fs.Float64("heavy-weight", 60, "heavy budget: each edge's weight")
	curveDraws := fs.Int("curve-draws", 20, "write sequences per query for the harm-vs-writes curve (0: none)")
	curveMax := fs.Int("curve-max", 16, "the curve runs to this many accumulated writes")
	leidenMode := fs.String("leiden", exposure.LeidenAuto, "Leiden draws: full (the whole algorithm on each written graph), incremental (local moving from the writes only, an approximation) or auto (full up to "+fmt.Sprint(exposure.LeidenFullMaxNodes)+" nodes)")
	sel := fs.String("selectors", "", "comma-separated subset of "+strings.Join(exposure.SelectorNames, ","))
	k := fs.Int("k", 0, "top-k (default: each query's recorded k, else 5)")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT; usage: %s", exposureUsage)
	}
	if ef.log == "" {
		return exitUsage, usagef("--log is required: edge provenance comes from verifying the writes; usage: %s", exposureUsage)
	}
	opt := exposure.Options{Seed: *seed, Draws: *draws, Edges: *edges, CleanWeight: *clean, HeavyWeight: *heavy, CurveDraws: *curveDraws, CurveMax: *curveMax, LeidenMode: *leidenMode}
	if *curveDraws == 0 {
		opt.CurveDraws = -1
	}
	if *draws == 0 {
		return exitUsage, usagef("--draws must be positive")
	}
	if *sel != "" {
		opt.Selectors = strings.Split(*sel, ",")
	}
	s, err := ef.open(ctx, pos[0], inspect.Options{K: *k})
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	ended := phase(stderr, "exposure", "exposure")
	ex, err := exposurecase.Build(ctx, s, opt)
	ended(err)
	if err != nil {
		return exitUsage, usagef("%v", err)
	}
	res := ex.Result
	out := toJSONExposure(pos[0], ex)
	for name, sel := range out.Selectors {
		for i := range sel.Queries {
			sel.Queries[i].Coverage = s.Coverage(verify.TableQueries, sel.Queries[i].Query)
		}
		out.Selectors[name] = sel
	}
	out.QueryCoverage = map[string]string{}
	for _, q := range ex.Queries {
		if l := s.Coverage(verify.TableQueries, q.ID); l != "" {
			out.QueryCoverage[q.ID] = l
		}
	}
	if *asJSON {
		return exitOK, writeJSON(stdout, out)
	}
	writeExposure(stdout, out, res)
	return exitOK, nil
}

func toJSONExposure(snapshot string, ex *exposurecase.Exposure) jsonExposure {
	res := ex.Result
	o := res.Options
	out := jsonExposure{Snapshot: snapshot, Selectors: map[string]jsonSelector{}, Ranked: res.Ranked, Notes: exposureNotes,
		Budget: jsonBudget{Edges: o.Edges, CleanWeight: o.CleanWeight, HeavyWeight: o.HeavyWeight, Draws: o.Draws, CurveDraws: o.CurveDraws, Seed: o.Seed, LeidenMode: o.LeidenMode}}
	out.Notes = append(append([]string(nil), exposureNotes...), leidenNote(o.LeidenMode))
	for _, s := range res.Selectors {
		js := jsonSelector{Structural: s.Structural, Exposed: s.Exposed, SDom: s.SDom, SAdv: s.SAdv, SAdvClean: s.SAdvClean, Curve: []jsonCurvePoint{}, Queries: []jsonExposureQuery{}}
		for i, c := range s.Curve {
			js.Curve = append(js.Curve, jsonCurvePoint{Writes: i + 1, Changed: c})
		}
		for _, q := range s.Queries {
			jq := jsonExposureQuery{Query: q.Query, Class: string(q.Class), SDom: q.SDom, SAdv: q.SAdv, SAdvClean: q.SAdvClean, Reordered: q.Reordered,
				Targeted: q.Targeted, Uncertain: q.Uncertain, TopKG: orEmpty(q.TopKG), TopKAuth: orEmpty(q.TopKAuth), Baseline: orEmpty(q.Baseline), NotCheckable: q.NotCheckable}
			for _, t := range q.Targets {
				jq.Targets = append(jq.Targets, jsonTarget{Node: t.Node, ResetMass: t.ResetMass, Floor: t.Floor, Anchored: t.Anchored, Evicted: t.Evicted})
			}
			if c, ok := ex.QuerySMSR[q.Query]; ok && s.Name == exposure.PPR {
				jq.SMSR = &jsonSMSRSimple{M: c.M, K: c.K, N: c.N, T: c.T, Delta: c.Delta}
			}
			js.Queries = append(js.Queries, jq)
		}
		out.Selectors[s.Name] = js
	}
	if sum := ex.StoreSMSR; sum != nil {
		out.SMSR = &jsonSMSRStore{jsonSMSRSimple: jsonSMSRSimple{M: sum.M, K: sum.K, N: sum.N, T: sum.T, Delta: sum.Delta},
			DeltaVsT: map[string][]jsonPoint{}, DeltaVsM: map[string][]jsonPoint{}, Basis: exposurecase.StoreSMSRBasis}
		for _, n := range smsr.CurveRuns {
			out.SMSR.DeltaVsT[fmt.Sprint(n)] = points(sum.VsT[n])
			out.SMSR.DeltaVsM[fmt.Sprint(n)] = points(sum.VsM[n])
		}
	}
	if e := ex.EquiMem; e != nil {
		out.EquiMem = &jsonEquiMem{Depth: e.Depth, TopDecile: e.TopDecile, Culprits: e.Culprits, CulpritsInTopDecile: e.CulpritsInTopDecile,
			Unauthenticated: e.Unauthenticated, UnauthInTopDecile: e.UnauthInDecile, Writes: []jsonEquiWrite{}, Caveat: exposurecase.EquiMemCaveat}
		for _, w := range e.Writes {
			out.EquiMem.Writes = append(out.EquiMem.Writes, jsonEquiWrite{Write: w.ID, Writer: w.Writer, Rel: w.Rel, Src: w.Src, Dst: w.Dst, SLocal: w.SLocal, SPath: w.SPath,
				Alpha: w.Alpha, Rho: w.Rho, Paths: w.Paths, Truncated: w.Truncated, Authenticated: w.Authenticated, Rule: w.Rule, Culprit: w.Culprit, Rank: w.Rank})
		}
	}
	audit := ex.MWP
	out.MWP = &jsonMWP{Rejected: audit.Rejected, Accepted: audit.Accepted, Findings: audit.Findings}
	if out.MWP.Findings == nil {
		out.MWP.Findings = []finding.Finding{}
	}
	for _, c := range audit.Checks {
		out.MWP.Checks = append(out.MWP.Checks, jsonMWPCheck{Name: c.Name, Status: c.Status, Detail: c.Detail, Findings: c.Findings})
	}
	return out
}

// leidenNote says how the Leiden draws were recomputed.
func leidenNote(mode string) string {
	if mode == exposure.LeidenIncremental {
		return "leiden draws re-ran local moving from the writes' endpoints only (incremental): an approximation of re-clustering that can miss changes a full run finds (docs/EXPOSURE.md)"
	}
	return "leiden draws re-ran the full algorithm (local moving, refinement, aggregation, until stable) on each written graph, warm-started from G_auth's partition"
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeExposure(w io.Writer, out jsonExposure, res *exposure.Result) {
	b := out.Budget
	fmt.Fprintf(w, "exposure of %s to bounded no-source writes (%d edges from a query's seed entities to one wrong passage; clean: weight 1..%g, heavy: %g; %d draws per query and budget, seed %d)\n\n",
		clip(out.Snapshot, 60), b.Edges, b.CleanWeight, b.HeavyWeight, b.Draws, b.Seed)
	fmt.Fprintf(w, "%-14s %-8s %-7s %-7s %-9s %s\n", "SELECTOR", "EXPOSED", "S_DOM", "S_ADV", "S_ADV(W<="+fmt.Sprint(b.CleanWeight)+")", "CLASSES G vs G_auth")
	for _, s := range res.Selectors {
		exp := "no"
		if s.Exposed {
			exp = "YES"
		}
		var classes []string
		for _, q := range s.Queries {
			classes = append(classes, fmt.Sprintf("%s=%s", q.Query, q.Class))
		}
		fmt.Fprintf(w, "%-14s %-8s %-7.3f %-7.3f %-9.3f %s\n", s.Name, exp, s.SDom, s.SAdv, s.SAdvClean, clip(strings.Join(classes, " "), 80))
	}
	for _, s := range res.Selectors {
		if !s.Structural || len(s.Curve) == 0 {
			continue
		}
		if slices.Max(s.Curve) == 0 {
			fmt.Fprintf(w, "\n%s: no selection changed at any number of writes up to %d\n", s.Name, len(s.Curve))
			continue
		}
		fmt.Fprintf(w, "\n%s: share of selections changed after n accumulated clean-budget writes\n", s.Name)
		writeCurve(w, s.Curve)
	}
	fmt.Fprintln(w, "\nqueries, most exposed first (PPR targets: anchored = teleport floor above the capture bound)")
	ppr, hasPPR := res.Selector(exposure.PPR)
	for _, id := range res.Ranked {
		fmt.Fprintf(w, "  %s%s\n", clip(id, 60), bracket(out.QueryCoverage[id]))
		if !hasPPR {
			continue
		}
		for _, q := range ppr.Queries {
			if q.Query != id {
				continue
			}
			for _, t := range q.Targets {
				kind := "low-floor"
				if t.Anchored {
					kind = "anchored"
				}
				fmt.Fprintf(w, "    %-36s %-9s floor %.4f  evicted in %.0f%% of heavy draws\n", clip(t.Node, 36), kind, t.Floor, 100*t.Evicted)
			}
		}
	}
	if out.SMSR != nil {
		c := out.SMSR
		fmt.Fprintf(w, "\nSMSR certificate for the store: m=%d k=%d n=%d t=%d delta=%.4f (%s)\n", c.M, c.K, c.N, c.T, c.Delta, c.Basis)
		// The Figure 3 curves for n = 5, at most a dozen bars each.
		for _, cv := range []struct {
			label string
			pts   []jsonPoint
		}{{"t", c.DeltaVsT["5"]}, {"m", c.DeltaVsM["5"]}} {
			fmt.Fprintf(w, "  delta against %s (n=5):\n", cv.label)
			step := max(1, (len(cv.pts)+11)/12)
			var ps []smsr.Point
			for i := 0; i < len(cv.pts); i += step {
				ps = append(ps, smsr.Point{X: cv.pts[i].X, Delta: cv.pts[i].Delta})
			}
			writeBars(w, ps, cv.label)
		}
	}
	if e := out.EquiMem; e != nil {
		fmt.Fprintf(w, "\nEquiMem rho_detect over %d structural writes (depth %d): triage's top decile (%d lowest) holds %d of %d replay culprits and %d of %d unauthenticated writes\n",
			len(e.Writes), e.Depth, e.TopDecile, e.CulpritsInTopDecile, e.Culprits, e.UnauthInTopDecile, e.Unauthenticated)
		fmt.Fprintf(w, "  caveat: %s\n", e.Caveat)
		shown := 0
		for _, x := range e.Writes {
			if x.Culprit || !x.Authenticated {
				fmt.Fprintf(w, "  %-36s rho %.3f (local %.2f path %.2f alpha %.2f) rank %d  %s\n", clip(x.Write, 36), x.Rho, x.SLocal, x.SPath, x.Alpha, x.Rank, culpritMark(x))
				if shown++; shown >= 20 {
					break
				}
			}
		}
	}
	if m := out.MWP; m != nil {
		fmt.Fprintf(w, "\nMWP non-formation audit: %d rejected, %d accepted candidates\n", m.Rejected, m.Accepted)
		for _, c := range m.Checks {
			fmt.Fprintf(w, "  %-15s %-14s %d finding(s)  %s\n", c.Name, c.Status, c.Findings, clip(c.Detail, 90))
		}
		for _, f := range m.Findings {
			fmt.Fprintf(w, "  %s %s  %s: %s\n", f.Severity, f.Code, clip(f.Subject, 40), clip(f.Message, 120))
		}
	}
	fmt.Fprintln(w)
	for _, n := range out.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeCurve draws a curve of shares in [0, 1] as one bar per point.
func writeCurve(w io.Writer, c []float64) {
	const width = 40
	for i, v := range c {
		n := int(math.Round(v * width))
		fmt.Fprintf(w, "  %2d |%-*s| %.2f\n", i+1, width, strings.Repeat("#", n), v)
	}
}

func culpritMark(x jsonEquiWrite) string {
	switch {
	case x.Culprit:
		return "replay culprit (unauthenticated)"
	case !x.Authenticated:
		return "unauthenticated"
	}
	return ""
}
