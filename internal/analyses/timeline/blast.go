package timeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/replay"
)

// QueryImpact is one query whose selection, as it ran, the writes changed.
type QueryImpact struct {
	Query string
	// Without is the selection on G as the query ran had the writes never
	// been made; With is the selection it got.
	Without, With []string
	// Brought are the passages the writes brought into the selection.
	Brought []string
}

// Blast is what a set of writes reached.
type Blast struct {
	Writes  []string
	Queries []QueryImpact
	// Actions ran after an impacted query and cite an entry shown by a
	// passage the writes brought in.
	Actions []string
	// Failed are queries that could not be replayed (their reset vector
	// is bad): not counted either way.
	Failed []string
	// Solves counts the PPR views solved (one or two per query that ran
	// after the first of the writes).
	Solves int64
}

// BlastRadius replays every query that ran after the first of the named
// writes, as it ran, with and without them, on G (what the agent saw), and
// lists the queries whose selected set they changed and the actions that
// followed those selections. entryOf maps passage nodes to entries.
func (r *Replay) BlastRadius(ctx context.Context, writes []string, queries []replay.Query, entryOf map[string]string) (*Blast, error) {
	if r.queriesOnly {
		return nil, ErrQueriesOnly
	}
	gone := make([]bool, r.rp.Graph().EdgeCount())
	first := len(r.tl.Events)
	for _, id := range writes {
		i, ok := r.rp.Graph().EdgeIndex(id)
		if !ok {
			return nil, fmt.Errorf("timeline: no structural write \"%s\"", id)
		}
		gone[i] = true
		first = min(first, r.pos[i])
	}
	b := &Blast{Writes: slices.Clone(writes)}
	start := r.rp.Solves()
	type ran struct {
		q   replay.Query
		cut int
	}
	var after []ran
	for _, q := range queries {
		if i, ok := r.tl.Index(KindQuery, q.ID); ok && i > first {
			after = append(after, ran{q, i})
		}
	}
	slices.SortFunc(after, func(x, y ran) int { return x.cut - y.cut })
	brought := map[string]int{} // entry -> stream index of the first query that brought it
	for _, a := range after {
		cut := a.cut
		with, err := r.rp.SelectPresent(ctx, a.q, func(e int) bool { return r.pos[e] < cut })
		if ctx.Err() != nil {
			return nil, ctx.Err() // cancelled, not a failed query
		}
		if err != nil {
			b.Failed = append(b.Failed, a.q.ID)
			continue
		}
		without, err := r.rp.SelectPresent(ctx, a.q, func(e int) bool { return r.pos[e] < cut && !gone[e] })
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			b.Failed = append(b.Failed, a.q.ID)
			continue
		}
		c, err := diff.ClassifyIDs(without.IDs(), with.IDs())
		if err != nil {
			return nil, err
		}
		if c != diff.Diverge {
			continue
		}
		imp := QueryImpact{Query: a.q.ID, Without: without.IDs(), With: with.IDs()}
		for _, id := range imp.With {
			if !slices.Contains(imp.Without, id) {
				imp.Brought = append(imp.Brought, id)
				if eid := entryOf[id]; eid != "" {
					if _, seen := brought[eid]; !seen {
						brought[eid] = cut
					}
				}
			}
		}
		b.Queries = append(b.Queries, imp)
	}
	for i, e := range r.tl.Events {
		if e.Kind != KindAction {
			continue
		}
		for _, c := range e.Cites {
			if at, ok := brought[c]; ok && i > at {
				b.Actions = append(b.Actions, e.ID)
				break
			}
		}
	}
	b.Solves = r.rp.Solves() - start
	return b, nil
}

// WritesBy lists the structural writes of a principal recorded after from
// (ns; 0: all), in stream order.
func (t *Timeline) WritesBy(principal string, from int64) []string {
	var out []string
	for _, e := range t.Events {
		if e.Kind == KindWrite && e.Principal == principal && e.TS > from {
			out = append(out, e.ID)
		}
	}
	return out
}
