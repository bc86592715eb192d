package tuisource

import (
	"context"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/timeline"
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
		row, err := tr.At(q, timeline.Cut{Index: cut})
		if err != nil {
			continue // the replay view says why this query fails
		}
		if row.Class == diff.Diverge {
			out = append(out, q.ID)
		}
	}
	return out, nil
}

// asRan fills v.AsRan: each query replayed on the graph as it stood when it
// ran. A query with no place in the timeline, or one that cannot be
// replayed then, keeps a zero row (the view shows it as it is now).
func (src *Source) asRan(ctx context.Context, qs []replay.Query, v *tui.ReplayView) {
	tr, err := src.timeReplay(ctx)
	if err != nil {
		return
	}
	rows := make([]replay.Row, len(qs))
	at := make([]string, len(qs))
	placed := 0
	for i, q := range qs {
		if ctx.Err() != nil {
			return
		}
		if _, ok := tr.Timeline().Index(timeline.KindQuery, q.ID); !ok {
			continue
		}
		row, cut, err := tr.AsRan(q)
		if err != nil || row.Err != nil {
			continue
		}
		rows[i], at[i] = row, cut.Desc
		placed++
	}
	if placed > 0 {
		v.AsRan, v.AsRanAt = rows, at
	}
}
