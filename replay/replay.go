package replay

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/par"
)

// Query is one stored query: what the agent asked, the reset vector the
// selector used, and what the agent was shown.
type Query struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Reset maps node id -> reset mass as stored (HippoRAG2: seed entities at
	// fact score / passages containing the entity, plus every passage at
	// 0.05 x min-max normalised dense score). It is normalised on replay.
	Reset map[string]float64 `json:"reset"`
	K     int                `json:"k"` // top-k; 0 takes Config.K
	// Recorded is the selection the agent saw, best first, if recorded.
	Recorded []string `json:"recorded"`
	// DenseScores maps passage id -> the stored dense (embedding) similarity
	// of that passage to the query. Only the immune selectors read it; a
	// snapshot stores it per query so replay needs no embedding model.
	DenseScores map[string]float64 `json:"dense_scores"`
	// Center is the node the node-distance selector measures hops from.
	// Empty: the node with the largest reset mass (ties by node order).
	Center string `json:"center"`
}

// Config configures a Replayer. Zero values take the defaults.
type Config struct {
	Policy LabelPolicy  `json:"policy"` // nil: PolicyDefault
	Solve  SolveOptions `json:"solve"`
	K      int          `json:"k"` // default top-k for queries that carry none (DefaultK)
	// Culprits searches, for every row whose G and G_auth selections
	// differ, for a set of writes whose removal restores G_auth; each test
	// is one PPR solve. CulpritMode says how (empty: CulpritsMinimal).
	Culprits    bool        `json:"culprits"`
	CulpritMode CulpritMode `json:"culprit_mode"`
	// Evictions runs the single-edge eviction probe for every target
	// selected on G (see Eviction): up to about 9 + 24 PPR solves per
	// evictable target, so callers turn it on for one query at a time.
	Evictions bool `json:"evictions"`
	// CulpritBudget caps the tests (PPR solves) one culprit search may
	// spend, counted as a one-at-a-time search runs them: a speculative
	// second test run beside the one that passed is not counted
	// (0: DefaultCulpritBudget). A search that hits it reports Minimal=false.
	CulpritBudget int `json:"culprit_budget"`
	// CulpritTime caps the wall time of one culprit search (0: the mode's
	// default). A search that hits it reports the best set so far with
	// Minimal=false.
	CulpritTime time.Duration `json:"culprit_time"`
}

// CulpritMode chooses the culprit search.
type CulpritMode string

const (
	// CulpritsNone skips the search.
	CulpritsNone CulpritMode = "none"
	// CulpritsFast bisects the writes ordered by the walk mass they carry
	// on G for the shortest restoring prefix, then drops writes one at a
	// time until none can go: about log2(candidates) + 2|set| solves.
	CulpritsFast CulpritMode = "fast"
	// CulpritsMinimal is delta debugging (ddmin) over every candidate.
	CulpritsMinimal CulpritMode = "minimal"
)

// ParseCulpritMode reads a --culprits flag value.
func ParseCulpritMode(s string) (CulpritMode, error) {
	switch m := CulpritMode(s); m {
	case CulpritsNone, CulpritsFast, CulpritsMinimal:
		return m, nil
	}
	return "", fmt.Errorf("culprit mode %q: want none, fast or minimal", s)
}

// DefaultCulpritBudget bounds ddmin's worst case (quadratic in the number
// of candidate writes) so a row never hangs the caller.
const DefaultCulpritBudget = 400

// Default time budgets of one culprit search: fast is for interactive use,
// minimal for a report that may take a while.
const (
	DefaultFastCulpritTime    = 2 * time.Second
	DefaultMinimalCulpritTime = 30 * time.Second
)

// Replayer replays queries on G and G_auth for one graph and label policy.
// It is safe for concurrent use.
type Replayer struct {
	g   *Graph
	cfg Config
	// Each edge's label is a code into the distinct labels: a million
	// writes share a few (see labelTable).
	labels    labelTable
	allLabels []EdgeLabel // Labels' expansion, built when first asked
	labelOnce sync.Once
	unauth    []int32 // every unauthenticated edge, in edge order
	full      *view   // G
	auth      *view   // G_auth: G minus every unauthenticated write
	authIsG   bool    // G_auth removes no walk-carrying write: Replay solves G alone

	counter solveCounter
	prep    culpritPrep // shared by every culprit search, built on first use

}

// NewReplayer labels every edge of g with the policy and prepares G and
// G_auth. Every vertex stays in G_auth; only edges go.
func NewReplayer(g *Graph, cfg Config) (*Replayer, error) {
	if cfg.Policy == nil {
		cfg.Policy = verifiedPolicy{}
	}
	if cfg.K == 0 {
		cfg.K = DefaultK
	}
	if cfg.K < 0 {
		return nil, fmt.Errorf("replay: default k %d is negative", cfg.K)
	}
	if cfg.CulpritBudget == 0 {
		cfg.CulpritBudget = DefaultCulpritBudget
	}
	switch cfg.CulpritMode {
	case "":
		cfg.CulpritMode = CulpritsMinimal
	case CulpritsNone:
		cfg.Culprits = false
	case CulpritsFast, CulpritsMinimal:
	default:
		return nil, fmt.Errorf("replay: unknown culprit mode %q", cfg.CulpritMode)
	}
	if cfg.CulpritTime == 0 {
		cfg.CulpritTime = DefaultMinimalCulpritTime
		if cfg.CulpritMode == CulpritsFast {
			cfg.CulpritTime = DefaultFastCulpritTime
		}
	}
	var err error
	if cfg.Solve, err = cfg.Solve.normalised(); err != nil {
		return nil, err
	}
	r := &Replayer{g: g, cfg: cfg, labels: newLabelTable(g, cfg.Policy)}
	for i := range r.labels.of {
		if !r.labels.authenticated(i) {
			r.unauth = append(r.unauth, int32(i))
		}
	}
	r.full = g.newView(nil)
	r.auth = g.newView(r.unauth)
	r.authIsG = r.auth.sameAsG()
	return r, nil
}

// Graph returns the graph being replayed.
func (r *Replayer) Graph() *Graph { return r.g }

// Labels returns the label of every edge, in edge order (do not modify).
// The first call expands them (about 72 bytes an edge, kept); Label and
// Authenticated read one edge's without it.
func (r *Replayer) Labels() []EdgeLabel {
	r.labelOnce.Do(func() {
		r.allLabels = make([]EdgeLabel, len(r.labels.of))
		for i := range r.allLabels {
			r.allLabels[i] = r.labels.at(i)
		}
	})
	return r.allLabels
}

// Label returns edge i's label (its slices are shared: do not modify).
func (r *Replayer) Label(i int) EdgeLabel { return r.labels.at(i) }

// Authenticated says whether edge i is in G_auth.
func (r *Replayer) Authenticated(i int) bool { return r.labels.authenticated(i) }

// UnauthenticatedEdges returns the ids of the writes G_auth leaves out.
func (r *Replayer) UnauthenticatedEdges() []string {
	ids := make([]string, len(r.unauth))
	for i, e := range r.unauth {
		ids[i] = r.g.EdgeID(int(e))
	}
	return ids
}

// Row is the replay of one query.
type Row struct {
	QueryID string     `json:"query"`
	K       int        `json:"k"`
	G       Selection  `json:"topk_g"`    // top-k on the full graph
	GAuth   Selection  `json:"topk_auth"` // top-k on the authenticated subgraph
	Class   diff.Class `json:"class"`
	// Changes compares G_auth (before) with G (after): "new" items are the
	// ones unauthenticated structure brought in, "dropped" the ones it pushed out.
	Changes diff.Result `json:"changes"`
	// IFCBlind: the sets differ, yet every item selected on G is
	// authenticated, so a faithful provenance check of the selected items
	// passes the row (AuthSelect's (arXiv:2606.12290) divergence set D). Only replay finds it.
	IFCBlind bool `json:"ifc_blind"`
	// TieDecided: the class may be an artefact of node-order tie breaking at
	// the cut-off on either side.
	TieDecided bool `json:"tie_decided"`
	// Rank1Changed: the top passage differs between G and G_auth. On a
	// REORDER row the set is the same yet what the agent read first is
	// not: flagged because a reader that takes the first passage acts
	// differently.
	Rank1Changed bool           `json:"rank1_changed"`
	Recorded     *RecordedCheck `json:"recorded"`
	Targets      []Lemma1       `json:"targets"`  // one per passage selected on either side or recorded
	Culprits     *Culprits      `json:"culprits"` // nil unless Config.Culprits and the row is not SAME
	Immune       []ImmuneRow    `json:"immune"`   // nil unless the query carries dense scores
	// Err says why this query could not be replayed (Class is then
	// diff.Failed and the selections are empty); the other rows stand.
	Err error `json:"err"`
}

// RecordedCheck compares the recorded selection with the replayed one on G.
type RecordedCheck struct {
	Recorded []string `json:"recorded"`
	// Changes compares the replay on G (before) with the recording (after).
	Changes  diff.Result `json:"changes"`
	Mismatch bool        `json:"mismatch"` // the recording differs from the replay: a finding
	Unknown  []string    `json:"unknown"`  // recorded ids that are not passage nodes of the graph
}

// queryStart is what every replay of q starts from: its k and its reset
// vector over the graph's nodes.
func (r *Replayer) queryStart(q Query) (int, []float64, error) {
	k, err := r.queryK(q)
	if err != nil {
		return 0, nil, err
	}
	reset, err := r.g.ResetVector(q.Reset)
	if err != nil {
		return 0, nil, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	return k, reset, nil
}

func (r *Replayer) queryK(q Query) (int, error) {
	if q.K < 0 {
		return 0, fmt.Errorf("query \"%s\": k %d is negative", q.ID, q.K)
	}
	if q.K == 0 {
		return r.cfg.K, nil
	}
	return q.K, nil
}

// Replay replays one query on G and G_auth (solved together, on two cores
// when there are two).
func (r *Replayer) Replay(ctx context.Context, q Query) (Row, error) { return r.replay(ctx, q, false) }

// replay is Replay; oneCore solves G and G_auth as a fused pair on the
// calling goroutine, for callers that already run one query per core.
func (r *Replayer) replay(ctx context.Context, q Query, oneCore bool) (Row, error) {
	k, reset, err := r.queryStart(q)
	if err != nil {
		return Row{}, err
	}
	return r.replayStarted(ctx, q, k, reset, oneCore)
}

// replayStarted is replay once queryStart has given q's k and reset.
func (r *Replayer) replayStarted(ctx context.Context, q Query, k int, reset []float64, oneCore bool) (Row, error) {
	var scores [][]float64
	var err error
	switch {
	case r.authIsG:
		// G_auth is G (every write authenticated): its scores are G's, bit
		// for bit, however the pair would have been solved (each view's
		// sweeps are the same operations on the same numbers, and a fused
		// pair stops when both have converged, which is when one has), so
		// G is solved alone.
		if scores, err = r.g.solve(ctx, reset, r.cfg.Solve, []*view{r.full}); err == nil {
			scores = append(scores, slices.Clone(scores[0]))
		}
	case oneCore:
		scores, err = r.g.solvePair(ctx, reset, r.cfg.Solve, r.full, r.auth, reset, reset)
	default:
		scores, err = r.g.solve(ctx, reset, r.cfg.Solve, []*view{r.full, r.auth})
	}
	if err != nil {
		return Row{}, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	return r.replayFrom(ctx, q, k, reset, scores[0], scores[1])
}

// replayFrom is the rest of a replay once q's scores on G and G_auth are
// known.
func (r *Replayer) replayFrom(ctx context.Context, q Query, k int, reset, onG, onAuth []float64) (Row, error) {
	row, err := r.baseRow(q, k, onG, onAuth)
	if err != nil {
		return Row{}, err
	}
	row.Rank1Changed = len(row.G.Items) > 0 && len(row.GAuth.Items) > 0 && row.G.Items[0].NodeID != row.GAuth.Items[0].NodeID
	row.Targets = r.lemma1(q, reset, k, onG, onAuth, row)
	if r.cfg.Evictions {
		if err := r.evictions(ctx, reset, k, onG, row, row.Targets); err != nil {
			return Row{}, fmt.Errorf("query \"%s\": eviction probe: %w", q.ID, err)
		}
	}
	if r.cfg.Culprits && row.Class != diff.Same {
		c, err := r.culprits(ctx, reset, k, onG, onAuth, row)
		if err != nil {
			return Row{}, fmt.Errorf("query \"%s\": culprits: %w", q.ID, err)
		}
		row.Culprits = c
	}
	if q.DenseScores != nil {
		if row.Immune, err = r.immune(q, reset, k); err != nil {
			return Row{}, err
		}
	}
	return row, nil
}

// baseRow selects the top-k on both sides and classifies the row: the part
// of a replay every caller needs (Replay adds the diagnostics).
func (r *Replayer) baseRow(q Query, k int, onG, onAuth []float64) (Row, error) {
	row := Row{QueryID: q.ID, K: k}
	row.G = r.g.selectPassages(onG, k)
	row.GAuth = r.g.selectPassages(onAuth, k)
	var err error
	if row.Changes, err = diff.Compare(row.GAuth.DiffItems(), row.G.DiffItems()); err != nil {
		return Row{}, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	row.Class = row.Changes.Class
	row.IFCBlind = row.Class == diff.Diverge && row.G.AllAuthenticated()
	row.TieDecided = row.Class != diff.Same && (row.G.TieAtCutoff || row.GAuth.TieAtCutoff)
	if q.Recorded != nil {
		if row.Recorded, err = r.checkRecorded(q, row.G); err != nil {
			return Row{}, err
		}
	}
	return row, nil
}

func (r *Replayer) checkRecorded(q Query, onG Selection) (*RecordedCheck, error) {
	rc := &RecordedCheck{Recorded: append([]string(nil), q.Recorded...)}
	for _, id := range q.Recorded {
		if i, ok := r.g.nodeIndex[id]; !ok || r.g.nodes[i].Kind != KindPassage {
			rc.Unknown = append(rc.Unknown, id)
		}
	}
	var err error
	rc.Changes, err = diff.Compare(onG.DiffItems(), recordedItems(q.Recorded))
	if err != nil {
		return nil, fmt.Errorf("query \"%s\": recorded selection: %w", q.ID, err)
	}
	rc.Mismatch = rc.Changes.Class != diff.Same
	return rc, nil
}

func recordedItems(ids []string) []diff.Item {
	out := make([]diff.Item, len(ids))
	for i, id := range ids {
		out[i] = diff.Item{ID: id}
	}
	return out
}

// ReplayAll replays every query using up to workers goroutines (0: one per
// CPU). Rows come back in query order. A query that cannot be replayed
// (a reset vector naming no node, a bad recorded selection) gets a row of
// class diff.Failed with Err saying why; every other row stands. When ctx
// is cancelled the solves under way stop at their next sweep, no further
// query starts, and ReplayAll returns ctx's error and no rows.
func (r *Replayer) ReplayAll(ctx context.Context, qs []Query, workers int) ([]Row, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows := make([]Row, len(qs))
	errs := make([]error, len(qs))
	// With a query per core, splitting each query's two views over the
	// cores as well would only make the workers queue for them: each
	// worker solves its pair fused.
	if r.authIsG && workers > 1 {
		// Each worker solves up to four queries on G in one pass: a sweep
		// of a large graph then costs about 0.3 of four (twoqueries.go).
		r.replayLanesOnG(ctx, qs, workers, rows, errs)
	} else {
		par.Each(len(qs), workers, func(i int) {
			if ctx.Err() != nil {
				return
			}
			rows[i], errs[i] = r.replay(ctx, qs[i], workers > 1)
		})
	}
	// A cancelled replay is no row's failure.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// One unreplayable query fails alone: its row says why, every other
	// row stands.
	for i, err := range errs {
		if err != nil {
			rows[i] = Row{QueryID: qs[i].ID, K: qs[i].K, Class: diff.Failed, Err: err}
		}
	}
	return rows, nil
}

// Base is the graph a what-if starts from.
type Base int

const (
	BaseG     Base = iota // the full graph: name edges to remove
	BaseGAuth             // the authenticated subgraph: name edges to restore
)

// WhatIf is a replay on a modified graph.
type WhatIf struct {
	Selection Selection   `json:"selection"`
	VsG       diff.Result `json:"vs_g"`      // G (before) against the modified graph (after)
	VsGAuth   diff.Result `json:"vs_g_auth"` // G_auth (before) against the modified graph (after)
	Removed   []string    `json:"removed"`   // edges absent from the modified graph, in edge order
}

// WhatIf replays q on base with the named edges removed and the named
// edges restored (restoring wins when an edge is named in both). Restoring
// an edge that base already has, or removing one it lacks, is a no-op.
func (r *Replayer) WhatIf(ctx context.Context, q Query, base Base, remove, restore []string) (WhatIf, error) {
	k, err := r.queryK(q)
	if err != nil {
		return WhatIf{}, err
	}
	rm, err := r.g.edgeIndices(remove, "what-if removal")
	if err != nil {
		return WhatIf{}, err
	}
	rs, err := r.g.edgeIndices(restore, "what-if restore")
	if err != nil {
		return WhatIf{}, err
	}
	absent := make([]bool, r.g.EdgeCount())
	switch base {
	case BaseG:
	case BaseGAuth:
		for _, e := range r.unauth {
			absent[e] = true
		}
	default:
		return WhatIf{}, fmt.Errorf("replay: unknown what-if base %d", base)
	}
	for _, e := range rm {
		absent[e] = true
	}
	for _, e := range rs {
		absent[e] = false
	}
	var without []int32
	var out WhatIf
	for e, gone := range absent {
		if gone {
			without = append(without, int32(e))
			out.Removed = append(out.Removed, r.g.EdgeID(e))
		}
	}
	reset, err := r.g.ResetVector(q.Reset)
	if err != nil {
		return WhatIf{}, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	scores, err := r.g.solve(ctx, reset, r.cfg.Solve, []*view{r.full, r.auth, r.g.newView(without)})
	if err != nil {
		return WhatIf{}, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	out.Selection = r.g.selectPassages(scores[2], k)
	onG := r.g.selectPassages(scores[0], k)
	onAuth := r.g.selectPassages(scores[1], k)
	if out.VsG, err = diff.Compare(onG.DiffItems(), out.Selection.DiffItems()); err != nil {
		return WhatIf{}, err
	}
	if out.VsGAuth, err = diff.Compare(onAuth.DiffItems(), out.Selection.DiffItems()); err != nil {
		return WhatIf{}, err
	}
	return out, nil
}
