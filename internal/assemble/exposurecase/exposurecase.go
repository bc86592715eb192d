// Package exposurecase assembles memscope exposure's whole answer for one
// inspect session: the exposure analysis (package exposure) with SMSR's
// certificates, EquiMem's triage against replay's culprits and the MWP
// audit beside it. The CLI and the report render its one value. It lives
// apart from inspect because exposure's own tests load stores through
// inspect.
package exposurecase

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/memscope/memscope/internal/analyses/equimem"
	"github.com/memscope/memscope/internal/analyses/exposure"
	"github.com/memscope/memscope/internal/analyses/mwp"
	"github.com/memscope/memscope/internal/analyses/smsr"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
)

// EquiMemCaveat goes with every EquiMem result, wherever it is shown.
const EquiMemCaveat = "rho_detect is EquiMem's provenance-free structural signal; AuthSelect shows that write provenance, not structure or weight, decides whether a write is an attack: a low score is a lead, a high score clears nothing"

// StoreSMSRBasis says what the store certificate's m and t count.
const StoreSMSRBasis = "m = entries in the store, t = entries with a verification or tag finding, k = 5, n = 5"

// Exposure is everything memscope exposure answers about one store: the
// selectors' exposure, SMSR's certificate for the store and per query,
// EquiMem's triage and the MWP audit. The CLI, the inspector and the report
// all render this one value.
type Exposure struct {
	Result  *exposure.Result
	Queries []replay.Query
	// StoreSMSR is nil when the store has no entries or was not verified.
	StoreSMSR *smsr.Summary
	// QuerySMSR is keyed by query id: m = the query's candidate passages
	// (those with a stored dense score), t = the unauthenticated ones.
	QuerySMSR map[string]smsr.Certificate
	EquiMem   *EquiMemTriage
	MWP       mwp.Report
	// Reach is each query's blast radius: the recorded actions that
	// followed its selection (keyed by query id; queries no action
	// followed are absent). A flip of that query's selection reaches them.
	Reach map[string]ActionReach
}

// ActionReach counts the recorded actions that followed one query's
// selection, and how many of them were dispatched.
type ActionReach struct {
	Actions, Dispatched int
}

// EquiMemWrite is one structural write's EquiMem score beside its
// provenance label.
type EquiMemWrite struct {
	equimem.Score
	Writer, Rel, Src, Dst string
	Authenticated         bool
	Rule                  string // the replay label rule, or why there is none
	Culprit               bool   // a replay culprit of some query
	Rank                  int    // 1-based triage rank (lowest rho first)
}

// EquiMemTriage is rho_detect for every structural write in store order,
// with how many culprits and unauthenticated writes triage's top decile
// holds.
type EquiMemTriage struct {
	Depth, TopDecile                int
	Culprits, CulpritsInTopDecile   int
	Unauthenticated, UnauthInDecile int
	Writes                          []EquiMemWrite
}

// Build runs the exposure analysis with opt and assembles the other
// papers' results beside it. It needs the session's verification report
// (Verify) for the store certificate; without one StoreSMSR is nil.
func Build(ctx context.Context, s *assemble.Session, opt exposure.Options) (*Exposure, error) {
	rp, err := s.Replayer(ctx)
	if err != nil {
		return nil, err
	}
	qs := s.ReplayQueries()
	res, err := exposure.Analyze(ctx, rp, qs, opt)
	if err != nil {
		return nil, err
	}
	out := &Exposure{Result: res, Queries: qs, QuerySMSR: map[string]smsr.Certificate{}, Reach: map[string]ActionReach{}}
	for _, a := range s.Actions {
		if a.Query == "" {
			continue
		}
		r := out.Reach[a.Query]
		r.Actions++
		if a.Dispatched {
			r.Dispatched++
		}
		out.Reach[a.Query] = r
	}
	if rep := s.Report(); rep != nil && rep.Entries > 0 {
		if sum, err := smsr.Summarise(rep.Entries, 5, 5, len(rep.EntryStatus)); err == nil {
			out.StoreSMSR = &sum
		}
	}
	// k per query is the size of its selection on G_auth (what the agent
	// kept), as replay resolved it.
	kOf := map[string]int{}
	for _, sel := range res.Selectors {
		for _, q := range sel.Queries {
			if n := len(q.TopKAuth); n > kOf[q.Query] {
				kOf[q.Query] = n
			}
		}
	}
	for _, q := range qs {
		k := kOf[q.ID]
		if k == 0 {
			k = replay.DefaultK
		}
		if c, ok := QueryCertificate(rp, q, k); ok {
			out.QuerySMSR[q.ID] = c
		}
	}
	if out.EquiMem, err = triage(ctx, s, rp, qs); err != nil {
		return nil, err
	}
	// Only meta values the store's signed configuration verified decide
	// the audit's windows, and verify's coverage labels its gate events.
	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return nil, err
	}
	in, err := mwp.Collect(ctx, s.Snap, nil, rep)
	if err != nil {
		return nil, err
	}
	out.MWP = mwp.Audit(in)
	return out, nil
}

// QueryCertificate is SMSR's certificate for one query: the pool is the
// query's candidate passages (those with a stored dense score), t the
// unauthenticated ones, k runs keep k each (capped at m).
func QueryCertificate(rp *replay.Replayer, q replay.Query, k int) (smsr.Certificate, bool) {
	g := rp.Graph()
	m, t := 0, 0
	for id := range q.DenseScores {
		i, ok := g.NodeIndex(id)
		if !ok {
			continue
		}
		m++
		if !g.Nodes()[i].Authenticated {
			t++
		}
	}
	if m == 0 {
		return smsr.Certificate{}, false
	}
	c, err := smsr.Certify(m, min(k, m), 5, t)
	return c, err == nil
}

// triage scores every structural write in store order and ranks them
// against the culprits replay finds (and the unauthenticated writes).
func triage(ctx context.Context, s *assemble.Session, rp *replay.Replayer, qs []replay.Query) (*EquiMemTriage, error) {
	var ws []equimem.Write
	if err := s.Snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		ws = append(ws, equimem.Write{ID: r.WID, Src: r.Src, Dst: r.Dst, Rel: r.Rel, Writer: r.Writer})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("equimem: %w", err)
	}
	return triageWrites(ctx, ws, rp, qs)
}

// triageWrites scores the structural writes ws (store order) and ranks
// them against replay's culprits and the unauthenticated writes.
func triageWrites(ctx context.Context, ws []equimem.Write, rp *replay.Replayer, qs []replay.Query) (*EquiMemTriage, error) {
	nodes := len(rp.Graph().Nodes())
	scores, err := equimem.Analyze(ctx, ws, equimem.Options{Nodes: nodes})
	if err != nil {
		return nil, err
	}
	rows, err := rp.ReplayAll(ctx, qs, 0)
	if err != nil {
		return nil, err
	}
	culprits := map[string]bool{}
	for _, r := range rows {
		if r.Culprits != nil {
			for _, c := range r.Culprits.Set {
				culprits[c.EdgeID] = true
			}
		}
	}
	unauth := map[string]bool{}
	for _, id := range rp.UnauthenticatedEdges() {
		unauth[id] = true
	}
	tc, tu := equimem.Rank(scores, culprits), equimem.Rank(scores, unauth)
	rank := map[string]int{}
	for i, id := range tc.Order {
		rank[id] = i + 1
	}
	out := &EquiMemTriage{Depth: equimem.Depth(nodes), TopDecile: tc.TopDecile, Culprits: tc.Culprits, CulpritsInTopDecile: tc.InDecile,
		Unauthenticated: tu.Culprits, UnauthInDecile: tu.InDecile}
	g, labels := rp.Graph(), rp.Labels()
	for i, sc := range scores {
		w := ws[i]
		ew := EquiMemWrite{Score: sc, Writer: w.Writer, Rel: w.Rel, Src: w.Src, Dst: w.Dst, Culprit: culprits[w.ID], Rank: rank[w.ID]}
		if ei, ok := g.EdgeIndex(w.ID); ok {
			ew.Authenticated, ew.Rule = labels[ei].Authenticated, labels[ei].Rule
		} else {
			ew.Rule = "not in the replay graph"
		}
		out.Writes = append(out.Writes, ew)
	}
	return out, nil
}

// Flip is one query's first flip under the walk and community selectors
// with its blast radius.
type Flip struct {
	Query string
	// PPR and Leiden are the median number of accumulated clean-budget
	// writes at which the selection first changed (0: fewer than half the
	// write sequences changed it within the curve's length); the shares
	// are of sequences that changed it at all.
	PPR, Leiden               int
	PPRFlipped, LeidenFlipped float64
	// PPRRan, LeidenRan: the selector ran on this query and drew its
	// curve (false: not run, or not checkable there).
	PPRRan, LeidenRan bool
	Reach             ActionReach
}

// FirstFlips orders the queries by how soon accumulated writes flip
// their selection: fewest writes under PPR first (never last), then under
// Leiden, then more actions reached, then store order. Nil when no curve
// was drawn.
func (ex *Exposure) FirstFlips() []Flip {
	res := ex.Result
	if res.Options.CurveDraws <= 0 || res.Options.CurveMax <= 0 {
		return nil
	}
	out := make([]Flip, len(ex.Queries))
	for i, q := range ex.Queries {
		out[i] = Flip{Query: q.ID, Reach: ex.Reach[q.ID]}
	}
	for _, sel := range res.Selectors {
		for i, q := range sel.Queries {
			if i >= len(out) || q.NotCheckable != "" {
				continue
			}
			switch sel.Name {
			case exposure.PPR:
				out[i].PPR, out[i].PPRFlipped, out[i].PPRRan = q.FirstFlip, q.Flipped, true
			case exposure.Leiden:
				out[i].Leiden, out[i].LeidenFlipped, out[i].LeidenRan = q.FirstFlip, q.Flipped, true
			}
		}
	}
	never := func(n int) int {
		if n == 0 {
			return int(^uint(0) >> 1)
		}
		return n
	}
	slices.SortStableFunc(out, func(a, b Flip) int {
		if c := cmp.Compare(never(a.PPR), never(b.PPR)); c != 0 {
			return c
		}
		if c := cmp.Compare(never(a.Leiden), never(b.Leiden)); c != 0 {
			return c
		}
		return cmp.Compare(b.Reach.Actions, a.Reach.Actions)
	})
	return out
}

// JSON is ex in jsonout's one exposure shape. coverage labels a query row by id ("" when a
// signature covers it; assemble.Session.Coverage on the queries table).
func (ex *Exposure) JSON(coverage func(query string) string) jsonout.Exposure {
	res := ex.Result
	o := res.Options
	out := jsonout.Exposure{Selectors: map[string]jsonout.ExposureSelector{}, Ranked: jsonout.OrEmpty(res.Ranked),
		Notes:         append(append([]string(nil), jsonout.ExposureNotes...), jsonout.LeidenNote(o.LeidenMode)),
		Budget:        jsonout.ExposureBudget{Edges: o.Edges, CleanWeight: o.CleanWeight, HeavyWeight: o.HeavyWeight, Draws: o.Draws, CurveDraws: o.CurveDraws, CurveMax: o.CurveMax, Seed: o.Seed, LeidenMode: o.LeidenMode},
		QueryCoverage: map[string]string{}, BlastRadius: map[string]jsonout.ActionReach{}}
	for id, r := range ex.Reach {
		out.BlastRadius[id] = jsonout.ActionReach{Actions: r.Actions, Dispatched: r.Dispatched}
	}
	for _, q := range ex.Queries {
		if l := coverage(q.ID); l != "" {
			out.QueryCoverage[q.ID] = l
		}
	}
	for _, s := range res.Selectors {
		js := jsonout.ExposureSelector{Structural: s.Structural, Exposed: s.Exposed, SDom: s.SDom, SDomQueries: s.SDomQueries, SAdv: s.SAdv, SAdvClean: s.SAdvClean, Curve: []jsonout.CurvePoint{}, Queries: []jsonout.ExposureQuery{}}
		if s.SDomQueries == 0 {
			js.SDomNotCheckable = "no query has the baseline S_dom compares against"
		}
		for i, c := range s.Curve {
			js.Curve = append(js.Curve, jsonout.CurvePoint{Writes: i + 1, Changed: c})
		}
		for _, q := range s.Queries {
			jq := jsonout.ExposureQuery{Query: q.Query, Class: string(q.Class), SDom: q.SDom, SDomNotCheckable: q.SDomNotCheckable, SAdv: q.SAdv, SAdvClean: q.SAdvClean, Reordered: q.Reordered,
				Targeted: q.Targeted, FirstFlip: q.FirstFlip, Flipped: q.Flipped, Uncertain: q.Uncertain, TopKG: jsonout.OrEmpty(q.TopKG), TopKAuth: jsonout.OrEmpty(q.TopKAuth), Baseline: jsonout.OrEmpty(q.Baseline),
				NotCheckable: q.NotCheckable, Coverage: out.QueryCoverage[q.Query]}
			for _, t := range q.Targets {
				jq.Targets = append(jq.Targets, jsonout.ExposureTarget{Node: t.Node, ResetMass: t.ResetMass, Floor: t.Floor, Anchored: t.Anchored, Evicted: t.Evicted})
			}
			if c, ok := ex.QuerySMSR[q.Query]; ok && s.Name == exposure.PPR {
				jq.SMSR = &jsonout.SMSRCert{M: c.M, K: c.K, N: c.N, T: c.T, Delta: c.Delta}
			}
			js.Queries = append(js.Queries, jq)
		}
		out.Selectors[s.Name] = js
	}
	if sum := ex.StoreSMSR; sum != nil {
		out.SMSR = &jsonout.SMSRStore{SMSRCert: jsonout.SMSRCert{M: sum.M, K: sum.K, N: sum.N, T: sum.T, Delta: sum.Delta},
			DeltaVsT: map[string][]jsonout.SMSRPoint{}, DeltaVsM: map[string][]jsonout.SMSRPoint{}, Basis: StoreSMSRBasis}
		for _, n := range smsr.CurveRuns {
			out.SMSR.DeltaVsT[fmt.Sprint(n)] = jsonout.SMSRPoints(sum.VsT[n])
			out.SMSR.DeltaVsM[fmt.Sprint(n)] = jsonout.SMSRPoints(sum.VsM[n])
		}
	}
	if e := ex.EquiMem; e != nil {
		out.EquiMem = &jsonout.EquiMem{Depth: e.Depth, TopDecile: e.TopDecile, Culprits: e.Culprits, CulpritsInTopDecile: e.CulpritsInTopDecile,
			Unauthenticated: e.Unauthenticated, UnauthInTopDecile: e.UnauthInDecile, Writes: []jsonout.EquiMemWrite{}, Caveat: EquiMemCaveat}
		for _, w := range e.Writes {
			out.EquiMem.Writes = append(out.EquiMem.Writes, jsonout.EquiMemWrite{Write: w.ID, Writer: w.Writer, Rel: w.Rel, Src: w.Src, Dst: w.Dst, SLocal: w.SLocal, SPath: w.SPath,
				Alpha: w.Alpha, Rho: w.Rho, Paths: w.Paths, Truncated: w.Truncated, Authenticated: w.Authenticated, Rule: w.Rule, Culprit: w.Culprit, Rank: w.Rank})
		}
	}
	out.MWP = MWPJSON(ex.MWP)
	return out
}

// MWPJSON is the MWP audit in its one JSON shape, which memscope exposure,
// the report and the inspector's Exposure view all show.
func MWPJSON(audit mwp.Report) *jsonout.MWP {
	out := &jsonout.MWP{Rejected: audit.Rejected, Accepted: audit.Accepted, Checks: []jsonout.MWPCheck{}, Findings: audit.Findings}
	if out.Findings == nil {
		out.Findings = []finding.Finding{}
	}
	for _, c := range audit.Checks {
		out.Checks = append(out.Checks, jsonout.MWPCheck{Name: c.Name, Status: c.Status, Detail: c.Detail, Findings: c.Findings})
	}
	return out
}
