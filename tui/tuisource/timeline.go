package tuisource

import (
	"context"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/tui"
)

var _ tui.TimelineSource = (*Source)(nil)

// timeReplay builds (once) the timeline over the verified write labels.
func (src *Source) timeReplay(ctx context.Context) (*timeline.Replay, error) {
	src.mu.Lock()
	tr := src.tr
	src.mu.Unlock()
	if tr != nil {
		return tr, nil
	}
	rp, err := src.replayer(ctx)
	if err != nil {
		return nil, err
	}
	// The timeline holds every entry.
	if err := src.WaitLoaded(ctx); err != nil {
		return nil, err
	}
	tr, err = src.s.TimeReplay(rp)
	if err != nil {
		return nil, err
	}
	src.mu.Lock()
	src.tr = tr
	src.mu.Unlock()
	return tr, nil
}

// Timeline implements tui.TimelineSource.
func (src *Source) Timeline(ctx context.Context) (*timeline.Timeline, error) {
	tr, err := src.timeReplay(ctx)
	if err != nil {
		return nil, err
	}
	return tr.Timeline(), nil
}

// DivergingAt implements tui.TimelineSource: every stored query replayed on
// the graph as it stood before event cut.
func (src *Source) DivergingAt(ctx context.Context, cut int) ([]string, error) {
	tr, err := src.timeReplay(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, q := range src.s.ReplayQueries() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row, err := tr.At(ctx, q, timeline.Cut{Index: cut})
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			continue // the replay view says why this query fails
		}
		if row.Class == diff.Diverge {
			out = append(out, q.ID)
		}
	}
	return out, nil
}

// asRanView fills v.AsRan: each query replayed on the graph as it stood
// when it ran. A query with no place in the timeline, or one that cannot
// be replayed then, keeps a zero row (the view shows it as it is now).
func asRanView(res *replayed, v *tui.ReplayView) {
	if res.ran == nil {
		return
	}
	rows := make([]replay.Row, len(res.qs))
	at := make([]string, len(res.qs))
	placed := 0
	for i, ran := range res.ran {
		if !ran.Placed || ran.Err != nil || ran.Row.Err != nil {
			continue
		}
		rows[i], at[i] = ran.Row, ran.Cut.Desc
		placed++
	}
	if placed > 0 {
		v.AsRan, v.AsRanAt = rows, at
	}
}
