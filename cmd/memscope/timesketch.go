package main

import (
	"io"
	"time"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/present/jsonout"
)

// outputTimesketch is timeline's --output-format for Timesketch.
const outputTimesketch = "timesketch"

// timesketchEvent is one line of Timesketch's JSONL import: the three
// fields its importer requires (message, datetime in ISO 8601,
// timestamp_desc; timesketch/lib/utils.py read_and_validate_jsonl), the
// microsecond timestamp it would otherwise derive, and memscope's own
// fields under names Timesketch does not treat specially.
type timesketchEvent struct {
	Message       string   `json:"message"`
	Datetime      string   `json:"datetime"`
	Timestamp     int64    `json:"timestamp"`
	TimestampDesc string   `json:"timestamp_desc"`
	DataType      string   `json:"data_type"`
	Kind          string   `json:"memscope_kind"`
	ID            string   `json:"memscope_id"`
	Leaf          *int64   `json:"log_leaf,omitempty"`
	Principal     string   `json:"principal"`
	PlacedBy      string   `json:"placed_by"`
	Authenticated *bool    `json:"authenticated,omitempty"`
	Coverage      string   `json:"coverage,omitempty"`
	Cites         []string `json:"cites,omitempty"`
	Snapshot      string   `json:"snapshot"`
}

// writeTimesketch writes the timeline as Timesketch JSONL, one event a
// line, sanitised like every memscope JSON.
func writeTimesketch(w io.Writer, snapshot string, events []jsonout.TimelineEvent) error {
	for _, e := range events {
		desc := "memscope record time (placed by log position)"
		if e.Placed == string(timeline.ByTime) {
			desc = "memscope record time (placed by recorded time: not in the log)"
		}
		msg := e.Summary
		if e.Authenticated != nil && !*e.Authenticated {
			msg = "UNAUTH " + msg
		}
		if e.Coverage != "" {
			msg = "[" + e.Coverage + "] " + msg
		}
		line, err := jsonout.MarshalLine(timesketchEvent{
			Message: msg, Datetime: time.Unix(0, e.TS).UTC().Format(time.RFC3339Nano), Timestamp: e.TS / 1000, TimestampDesc: desc,
			DataType: "memscope:timeline:" + e.Kind, Kind: e.Kind, ID: e.ID, Leaf: e.Leaf, Principal: e.Principal, PlacedBy: e.Placed,
			Authenticated: e.Authenticated, Coverage: e.Coverage, Cites: e.Cites, Snapshot: snapshot,
		})
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}
