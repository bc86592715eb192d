package jsonout

import (
	"time"

	"github.com/memscope/memscope/internal/analyses/timeline"
)

// Timeline is `timeline --json`'s answer.
type Timeline struct {
	Snapshot string          `json:"snapshot"`
	Order    string          `json:"order"`
	Labels   string          `json:"write_labels"`
	Events   []TimelineEvent `json:"events"`
}

// TimelineEvent is one event of the store's timeline, in `timeline --json`
// and in the report's case file (`timeline.events`).
type TimelineEvent struct {
	// Index is the event's place in the whole timeline (timeline.Events).
	Index         int      `json:"index"`
	Kind          string   `json:"kind"`
	ID            string   `json:"id"`
	Leaf          *int64   `json:"leaf"`
	Size          uint64   `json:"tree_size,omitempty"`
	Time          string   `json:"time"`
	TS            int64    `json:"ts"`
	Placed        string   `json:"placed_by"`
	Principal     string   `json:"principal"`
	Summary       string   `json:"summary"`
	Authenticated *bool    `json:"authenticated,omitempty"`
	Cites         []string `json:"cites,omitempty"`
	// Coverage is "unsigned" for an event read from a row no signature
	// covers (queries, actions, gate events, unanchored checkpoints).
	Coverage string `json:"coverage,omitempty"`
	// Alert marks, in the report's case file, an event the report puts
	// first (the CLI marks none).
	Alert bool `json:"alert,omitempty"`
}

// NewTimelineEvent is the one constructor of a timeline event: e is
// events[index], coverage its row's label.
func NewTimelineEvent(index int, e timeline.Event, coverage string) TimelineEvent {
	return TimelineEvent{Index: index, Kind: string(e.Kind), ID: e.ID, Size: e.Size, Time: FormatTime(e.TS), TS: e.TS, Placed: string(e.Placed),
		Principal: e.Principal, Summary: e.Summary, Authenticated: e.Authenticated, Cites: e.Cites, Leaf: leafOf(e.Leaf), Coverage: coverage}
}

// FormatTime writes a recorded time (ns since the epoch) as every JSON
// answer does: RFC 3339 in UTC with milliseconds.
func FormatTime(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000Z")
}
