package tuisource

import (
	"context"
	"slices"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble/answers"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/tui"
)

var _ tui.Answerer = (*Source)(nil)

// ReplayAnswer implements tui.Answerer: the rows the view replayed, as
// memscope replay --json writes them (answers.Replay, with the as-ran
// replay the view holds).
func (src *Source) ReplayAnswer(ctx context.Context) ([]jsonout.ReplayRow, error) {
	res, err := src.replay(ctx)
	if err != nil {
		return nil, err
	}
	// answers.Replay marks a query whose as-ran replay failed in the rows
	// it is given: the view's rows stay as they are.
	return answers.Replay(src.s, res.qs, slices.Clone(res.rows), res.ran), nil
}

// ActionAnswer implements tui.Answerer: the defences' verdicts under the
// view's labels, as memscope actions --json writes them.
func (src *Source) ActionAnswer() []jsonout.ActionRow {
	return answers.Actions(src.s, src.ActionVerdicts())
}

// TimelineAnswer implements tui.Answerer: every event of tl, as memscope
// timeline --json writes them.
func (src *Source) TimelineAnswer(tl *timeline.Timeline) jsonout.Timeline {
	return answers.Timeline(src.s, src.s.Opts.Snapshot, tl, timeline.Filter{})
}
