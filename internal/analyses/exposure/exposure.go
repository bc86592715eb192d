// Package exposure estimates how open a memory graph is to the selection
// channel of AuthSelect (arXiv:2606.12290): it replays every
// query under five selectors side by side (PPR, Leiden community selection,
// node-distance rerank, RRF of dense and BM25, dense only), measures each
// selector's structural reliance S_dom and, by seeded Monte Carlo over
// bounded no-source writes plus a targeted construction, its adversarial
// divergence S_adv and the dose-response of selection change against the
// number of accumulated writes. It is pure analysis: no terminal code.
package exposure

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/leiden"
	"github.com/memscope/memscope/internal/par"
	"github.com/memscope/memscope/replay"
)

// Options tune the estimate. Zero values take the defaults.
type Options struct {
	Seed  uint64
	Draws int // Monte Carlo draws per query and budget (default 1000)
	// Edges is the number of no-source edges one bounded write adds
	// (default 3): each from one of the query's seed entities to one
	// wrong passage.
	Edges int
	// CleanWeight bounds the clean-indistinguishable budget: each edge
	// weighs uniformly in [1, CleanWeight] (default 2; clean edges have
	// median 1 and max 4 in the paper's graphs).
	CleanWeight float64
	// HeavyWeight is the heavy budget's edge weight (default 60, the
	// paper's attack weight).
	HeavyWeight float64
	CurveMax    int // the curve runs from 1 to CurveMax accumulated writes (default 16)
	CurveDraws  int // write sequences per query for the curve (default 20; negative: no curve)
	Workers     int // queries analysed at once (0: one per CPU)
	Damping     float64
	Resolution  float64 // Leiden resolution (default 1)
	// LeidenMode says how a draw's Leiden selection is recomputed:
	// LeidenFull (the full algorithm, local moving, refinement and
	// aggregation until stable, on G_auth plus the write, warm-started from
	// G_auth's partition), LeidenIncremental (local moving from the
	// writes' endpoints only: a dynamic-frontier approximation) or
	// LeidenAuto ("" too): full up to LeidenFullMaxNodes nodes, else
	// incremental. Result.Options.LeidenMode says which ran.
	LeidenMode string
	// Selectors restricts the run (nil: all five).
	Selectors []string
}

func (o Options) normalised() (Options, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Draws, 1000)
	def(&o.Edges, 3)
	def(&o.CurveMax, 16)
	def(&o.CurveDraws, 20)
	if o.CurveDraws < 0 {
		o.CurveDraws = 0
	}
	if o.CleanWeight == 0 {
		o.CleanWeight = 2
	}
	if o.HeavyWeight == 0 {
		o.HeavyWeight = 60
	}
	if o.Damping == 0 {
		o.Damping = replay.DefaultDamping
	}
	if o.Resolution == 0 {
		o.Resolution = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Selectors == nil {
		o.Selectors = SelectorNames
	}
	if o.LeidenMode == "" {
		o.LeidenMode = LeidenAuto
	}
	if !slices.Contains([]string{LeidenAuto, LeidenFull, LeidenIncremental}, o.LeidenMode) {
		return o, fmt.Errorf("exposure: Leiden mode %q (want %s, %s or %s)", o.LeidenMode, LeidenAuto, LeidenFull, LeidenIncremental)
	}
	switch {
	case o.Draws < 0 || o.Draws > 1_000_000:
		return o, fmt.Errorf("exposure: draws %d out of range 0..1000000", o.Draws)
	case o.Edges < 0 || o.Edges > 1000:
		return o, fmt.Errorf("exposure: edges per write %d out of range 1..1000", o.Edges)
	case o.CurveMax < 0 || o.CurveMax > 1000 || o.CurveDraws < 0 || o.CurveDraws > 100_000:
		return o, fmt.Errorf("exposure: curve %d writes x %d draws out of range", o.CurveMax, o.CurveDraws)
	case !(o.CleanWeight >= 1) || math.IsInf(o.CleanWeight, 0) || !(o.HeavyWeight > 0) || math.IsInf(o.HeavyWeight, 0):
		return o, fmt.Errorf("exposure: weights clean %v / heavy %v: want clean >= 1 and heavy > 0, finite", o.CleanWeight, o.HeavyWeight)
	case !(o.Damping > 0 && o.Damping < 1):
		return o, fmt.Errorf("exposure: damping %v out of range (0, 1)", o.Damping)
	}
	for _, s := range o.Selectors {
		if !slices.Contains(SelectorNames, s) {
			return o, fmt.Errorf("exposure: unknown selector %q (want one of %v)", s, SelectorNames)
		}
	}
	return o, nil
}

// Leiden draw modes (Options.LeidenMode).
const (
	LeidenAuto        = "auto"
	LeidenFull        = "full"
	LeidenIncremental = "incremental"
)

// LeidenFullMaxNodes is the largest graph on which LeidenAuto recomputes
// the full Leiden algorithm per draw: one full run costs O(edges) per
// pass, about a second on the 50k-node benchmark graph, so 1,000 draws per
// query would take hours there.
const LeidenFullMaxNodes = 20_000

// Budget names.
const (
	BudgetClean = "clean" // weights in [1, CleanWeight]
	BudgetHeavy = "heavy" // weight HeavyWeight
)

// Target is one passage a query selects on G_auth, with how often a bounded
// heavy write evicted it under PPR and its Lemma 1 standing.
type Target struct {
	Node      string
	ResetMass float64 // normalised r(target)
	Floor     float64 // (1-d) r(target)
	// Anchored: the floor is at or above the query's one-hop capture
	// bound (replay.CaptureBoundFor: (1-d) d r(s) for the strongest other
	// seed s, the bound replay's Lemma 1 rows use), so no write budget can
	// evict it (Lemma 1); otherwise it is a low-floor (walk-dominated)
	// target, EVICTABLE in replay.
	Anchored bool
	Evicted  float64 // share of heavy draws under PPR that pushed it out
}

// QueryResult is one query under one selector.
type QueryResult struct {
	Query string
	Class diff.Class // G_auth (before) against G (after)
	// TopKG and TopKAuth are the selections on G and on G_auth, best first.
	TopKG, TopKAuth []string
	// Baseline is the structure-free selection S_dom compares against
	// (dense for PPR and Leiden, RRF for node-distance; empty otherwise).
	Baseline []string
	SDom     float64 // 1 - Jaccard(selection on G_auth, Baseline)
	// SDomNotCheckable says why SDom was not computed ("" when it was):
	// PPR and Leiden compare against the dense ranking, which a query
	// without dense scores does not have. SDom is then no number at all.
	SDomNotCheckable string
	// SAdv is the share of heavy-budget draws whose selected set differs
	// from G_auth's; SAdvClean the same at the clean budget.
	SAdv, SAdvClean float64
	// Reordered is the share of heavy draws that kept the set but changed
	// the order (node-distance's perturb-without-opening).
	Reordered float64
	Targeted  bool // the targeted construction changed the selected set
	// FirstFlip is the median number of accumulated clean-budget writes
	// (over the curve's sequences) at which the selected set first
	// changed (the lower median); 0 when fewer than half the sequences
	// changed within CurveMax.
	// Flipped is the share of sequences that changed within CurveMax.
	FirstFlip int
	Flipped   float64
	Uncertain int // PPR draws whose cut-off stayed a tie at 1e-15
	Targets   []Target
	// NotCheckable says why the selector could not run on this query.
	NotCheckable string
}

// SelectorResult is one selector over every query.
type SelectorResult struct {
	Name string
	// Structural: the selector reads graph structure at all.
	Structural bool
	// Exposed: some bounded write (a Monte Carlo draw at either budget or
	// the targeted construction) changed some query's selected set.
	Exposed bool
	SDom    float64 // mean over the queries whose S_dom was computed
	// SDomQueries counts those queries; 0: S_dom is not checkable here.
	SDomQueries     int
	SAdv, SAdvClean float64 // mean over checkable queries
	// Curve[i] is the share of write sequences whose selected set differs
	// from G_auth's after i+1 accumulated clean-budget writes.
	Curve   []float64
	Queries []QueryResult
}

// Result is the whole estimate.
type Result struct {
	Options   Options
	Selectors []SelectorResult
	// Ranked lists query ids, most exposed first (PPR heavy S_adv, then
	// Leiden's, then clean S_adv).
	Ranked []string
}

// Selector returns the named selector's result.
func (r *Result) Selector(name string) (SelectorResult, bool) {
	for _, s := range r.Selectors {
		if s.Name == name {
			return s, true
		}
	}
	return SelectorResult{}, false
}

// Analyze runs the estimate for every query on rp's graph. Base selections
// are replayed on G_auth; the attacker adds no-source edges to G_auth.
func Analyze(ctx context.Context, rp *replay.Replayer, queries []replay.Query, opt Options) (*Result, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	e, err := newEnv(ctx, rp, opt)
	if err != nil {
		return nil, err
	}
	per := make([][]QueryResult, len(queries)) // per query, per selector
	curves := make([][][]float64, len(queries))
	errs := make([]error, len(queries))
	par.Each(len(queries), opt.Workers, func(i int) {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			return
		}
		per[i], curves[i], errs[i] = e.query(ctx, i, queries[i])
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	res := &Result{Options: e.opt} // with the Leiden mode auto resolved
	for si, name := range opt.Selectors {
		sr := SelectorResult{Name: name, Structural: name == PPR || name == Leiden || name == NodeDistance, Curve: make([]float64, opt.CurveMax)}
		n := 0
		curveN := 0
		for qi := range queries {
			q := per[qi][si]
			sr.Queries = append(sr.Queries, q)
			if q.NotCheckable != "" {
				continue
			}
			n++
			if q.SDomNotCheckable == "" {
				sr.SDomQueries++
				sr.SDom += q.SDom
			}
			sr.SAdv += q.SAdv
			sr.SAdvClean += q.SAdvClean
			if q.SAdv > 0 || q.SAdvClean > 0 || q.Targeted {
				sr.Exposed = true
			}
			if c := curves[qi][si]; c != nil {
				curveN++
				for j := range sr.Curve {
					sr.Curve[j] += c[j]
				}
			}
		}
		if sr.SDomQueries > 0 {
			sr.SDom /= float64(sr.SDomQueries)
		}
		if n > 0 {
			sr.SAdv /= float64(n)
			sr.SAdvClean /= float64(n)
		}
		for j := range sr.Curve {
			if curveN > 0 {
				sr.Curve[j] /= float64(curveN)
			}
		}
		res.Selectors = append(res.Selectors, sr)
	}
	res.Ranked = rankQueries(res, queries)
	return res, nil
}

func rankQueries(res *Result, queries []replay.Query) []string {
	type qs struct {
		id  string
		key [3]float64
	}
	var rows []qs
	for qi, q := range queries {
		var k [3]float64
		for _, s := range res.Selectors {
			r := s.Queries[qi]
			switch s.Name {
			case PPR:
				k[0] = r.SAdv
				k[2] = max(k[2], r.SAdvClean)
			case Leiden:
				k[1] = r.SAdv
				k[2] = max(k[2], r.SAdvClean)
			}
		}
		rows = append(rows, qs{q.ID, k})
	}
	slices.SortStableFunc(rows, func(a, b qs) int {
		for i := range a.key {
			if a.key[i] != b.key[i] {
				if a.key[i] > b.key[i] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.id
	}
	return out
}

// env is what every query shares: the two views, their Leiden partitions
// and the BM25 index over passage text.
type env struct {
	rp         *replay.Replayer
	g          *replay.Graph
	opt        Options
	adjG, adjA *adj
	unauth     []int // edge indices G_auth leaves out
	isP        []bool
	passages   []int32
	bm         *bm25
	lgA        *leiden.Graph
	memG, memA []int32 // Leiden membership on G and G_auth

	evals atomic.Int64 // selector evaluations on a written graph: the Monte Carlo's unit of work
}

func newEnv(ctx context.Context, rp *replay.Replayer, opt Options) (*env, error) {
	g := rp.Graph()
	e := &env{rp: rp, g: g, opt: opt}
	labels := rp.Labels()
	for i, l := range labels {
		if !l.Authenticated {
			e.unauth = append(e.unauth, i)
		}
	}
	e.adjG = buildAdj(g, func(int) bool { return true })
	e.adjA = buildAdj(g, func(i int) bool { return labels[i].Authenticated })
	nodes := g.Nodes()
	e.isP = make([]bool, len(nodes))
	for i, n := range nodes {
		if n.Kind == replay.KindPassage {
			e.isP[i] = true
			e.passages = append(e.passages, int32(i))
		}
	}
	e.bm = newBM25(e.passages, func(v int32) string { return nodes[v].Label })
	if e.opt.LeidenMode == LeidenAuto {
		e.opt.LeidenMode = LeidenFull
		if len(nodes) > LeidenFullMaxNodes {
			e.opt.LeidenMode = LeidenIncremental
		}
	}
	if e.wants(Leiden) {
		lgG, err := leidenGraph(e.adjG)
		if err != nil {
			return nil, err
		}
		if e.lgA, err = leidenGraph(e.adjA); err != nil {
			return nil, err
		}
		lo := leiden.Options{Seed: opt.Seed, Resolution: opt.Resolution}
		if e.memG, err = leiden.Run(ctx, lgG, lo); err != nil {
			return nil, err
		}
		if e.memA, err = leiden.Run(ctx, e.lgA, lo); err != nil {
			return nil, err
		}
	}
	return e, nil
}

func (e *env) wants(s string) bool { return slices.Contains(e.opt.Selectors, s) }

// leidenGraph converts a view's CSR (each edge seen from both ends) to
// leiden's edge list.
func leidenGraph(a *adj) (*leiden.Graph, error) {
	var es []leiden.Edge
	for v := int32(0); int(v) < a.n; v++ {
		for p := a.off[v]; p < a.off[v+1]; p++ {
			u := a.col[p]
			switch {
			case u > v:
				es = append(es, leiden.Edge{A: v, B: u, Weight: a.w[p]})
			case u == v:
				es = append(es, leiden.Edge{A: v, B: v, Weight: a.w[p] / 2})
			}
		}
	}
	return leiden.NewGraph(a.n, es)
}

func (e *env) ids(vs []int32) []string {
	nodes := e.g.Nodes()
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = nodes[v].ID
	}
	return out
}

func (e *env) class(onAuth, onG []int32) diff.Class {
	c, err := diff.ClassifyIDs(e.ids(onAuth), e.ids(onG))
	if err != nil {
		return diff.Diverge
	}
	return c
}
