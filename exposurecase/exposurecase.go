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
	"strings"

	"github.com/memscope/memscope/equimem"
	"github.com/memscope/memscope/exposure"
	"github.com/memscope/memscope/inspect"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/mwp"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/smsr"
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
func Build(ctx context.Context, s *inspect.Session, opt exposure.Options) (*Exposure, error) {
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
func triage(ctx context.Context, s *inspect.Session, rp *replay.Replayer, qs []replay.Query) (*EquiMemTriage, error) {
	var ws []equimem.Write
	if err := s.Snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		ws = append(ws, equimem.Write{ID: r.WID, Src: r.Src, Dst: r.Dst, Rel: r.Rel, Writer: r.Writer})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("equimem: %w", err)
	}
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

// EquiMem list orders: memscope exposure --equimem-sort and the
// inspector's sort key (docs/EXPOSURE.md).
const (
	// SortRho is triage order: lowest rho_detect first (triage_rank).
	SortRho = "rho"
	// SortLabel groups by provenance label, the thing that decides:
	// replay culprits, then the other unauthenticated writes, then the
	// authenticated ones; triage order within each.
	SortLabel = "label"
	// SortWrite is by write id (byte order), triage order for equal ids.
	SortWrite = "write"
)

// EquiMemSorts lists the orders, the inspector's cycle order.
var EquiMemSorts = []string{SortRho, SortLabel, SortWrite}

// EquiMemSortName says what an order sorts by, for headers and help.
func EquiMemSortName(key string) string {
	switch key {
	case SortLabel:
		return "provenance label (culprit, unauthenticated, authenticated)"
	case SortWrite:
		return "write id"
	}
	return "rho_detect, lowest first"
}

// ProvenanceLabel is the word shown beside a write's score: the label
// replay gives it, with replay's culprits singled out.
func ProvenanceLabel(authenticated, culprit bool) string {
	switch {
	case culprit:
		return "CULPRIT"
	case !authenticated:
		return "unauthenticated"
	}
	return "authenticated"
}

// EquiMemKey is what the orders compare.
type EquiMemKey struct {
	Rank                   int // triage rank (1 = lowest rho); 0 sorts last
	Authenticated, Culprit bool
	Write                  string
}

// SortEquiMem orders rows in place by key (SortRho for an unknown key),
// reversed when desc. get reads a row's key. The sort is stable and total
// (triage rank breaks every tie), so one key always gives one order.
func SortEquiMem[T any](rows []T, key string, desc bool, get func(T) EquiMemKey) {
	group := func(k EquiMemKey) int {
		switch {
		case k.Culprit:
			return 0
		case !k.Authenticated:
			return 1
		}
		return 2
	}
	rank := func(k EquiMemKey) int {
		if k.Rank <= 0 {
			return int(^uint(0) >> 1)
		}
		return k.Rank
	}
	slices.SortStableFunc(rows, func(x, y T) int {
		a, b := get(x), get(y)
		c := 0
		switch key {
		case SortLabel:
			c = cmp.Compare(group(a), group(b))
		case SortWrite:
			c = strings.Compare(a.Write, b.Write)
		}
		if c == 0 {
			c = cmp.Compare(rank(a), rank(b))
		}
		if desc {
			return -c
		}
		return c
	})
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
