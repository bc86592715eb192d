package replay

import (
	"context"
	"fmt"
	"sync/atomic"
)

// solveCounter counts PPR views solved through ReplayPresent, so callers
// can show what a search (for example the first-flip bisection) cost.
type solveCounter struct{ n atomic.Int64 }

// Solves returns how many PPR views ReplayPresent has solved on this
// Replayer (G and G_auth count as two).
func (r *Replayer) Solves() int64 { return r.counter.n.Load() }

// ReplayPresent replays q on G and G_auth restricted to the edges for which
// present(i) is true (i in edge order): the graph as it stood at some
// moment, with writes logged later left out of both sides. Every vertex
// stays. The row has the selections, class, IFC-blind mark and the recorded
// check; Lemma 1, culprits and immune selectors are left to Replay.
func (r *Replayer) ReplayPresent(ctx context.Context, q Query, present func(edge int) bool) (Row, error) {
	k, reset, err := r.queryStart(q)
	if err != nil {
		return Row{}, err
	}
	var absent, absentAuth []int32
	for i := range r.g.ends {
		switch {
		case !present(i):
			absent = append(absent, int32(i))
			absentAuth = append(absentAuth, int32(i))
		case !r.labels.authenticated(i):
			absentAuth = append(absentAuth, int32(i))
		}
	}
	full, auth := r.full, r.auth
	if len(absent) > 0 {
		full, auth = r.g.newView(absent), r.g.newView(absentAuth)
	}
	scores, err := r.g.solve(ctx, reset, r.cfg.Solve, []*view{full, auth})
	if err != nil {
		return Row{}, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	r.counter.n.Add(2)
	return r.baseRow(q, k, scores[0], scores[1])
}

// SelectPresent solves one view, G restricted to the edges for which
// present(i) is true, and returns its top-k: half the cost of
// ReplayPresent when the caller already has the other side (it counts one
// solve).
func (r *Replayer) SelectPresent(ctx context.Context, q Query, present func(edge int) bool) (Selection, error) {
	k, reset, err := r.queryStart(q)
	if err != nil {
		return Selection{}, err
	}
	var absent []int32
	for i := range r.g.ends {
		if !present(i) {
			absent = append(absent, int32(i))
		}
	}
	scores, err := r.g.solve(ctx, reset, r.cfg.Solve, []*view{r.g.newView(absent)})
	if err != nil {
		return Selection{}, fmt.Errorf("query \"%s\": %w", q.ID, err)
	}
	r.counter.n.Add(1)
	return r.g.selectPassages(scores[0], k), nil
}
