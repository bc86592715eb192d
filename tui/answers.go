package tui

import (
	"context"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/present/jsonout"
)

// Answerer is a Source over memscope's own evidence that gives the CLI's
// JSON answers (package jsonout, built as memscope replay, actions and
// timeline --json build them), so an export from the inspector is the
// same document as the command's --json. A native store's source does not
// implement it: its views export what they show.
type Answerer interface {
	// ReplayAnswer is memscope replay --json's rows.
	ReplayAnswer(ctx context.Context) ([]jsonout.ReplayRow, error)
	// ActionAnswer is memscope actions --json's rows.
	ActionAnswer() []jsonout.ActionRow
	// TimelineAnswer is memscope timeline --json's document for tl.
	TimelineAnswer(tl *timeline.Timeline) jsonout.Timeline
}
