// Package answers builds the one JSON type per answer (package jsonout)
// from a session's analyses, for the CLI's --json and the report's case
// file alike. It sits beside assemble, not in it: analyses' own tests open
// sessions through assemble, and jsonout imports analyses, so assemble
// itself must not import jsonout.
package answers

import (
	"fmt"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// Coverage is the session's Coverage as the JSON answers' constructors take it
// (package jsonout): the same labels, by the role a row plays.
func Coverage(s *assemble.Session) jsonout.Coverage {
	return jsonout.Coverage{
		Query:  func(id string) string { return s.Coverage(verify.TableQueries, id) },
		Node:   func(id string) string { return s.Coverage(verify.TableNodes, id) },
		Action: func(id string) string { return s.Coverage(verify.TableActions, id) },
	}
}

// Replay is `replay --json`'s rows, and the report's case file's:
// each query of qs replayed now (rows) with its coverage labels and, where
// the timeline places it (ran, from ReplayAsRan over the same queries),
// replayed as it ran; the recorded selection is compared with the graph
// the query ran on. A query whose as-ran replay fails becomes a FAILED
// row, in rows too, so the exit status sees it. ran nil: no as-ran
// columns (rows replayed at another moment).
func Replay(s *assemble.Session, qs []replay.Query, rows []replay.Row, ran []assemble.AsRanRow) []jsonout.ReplayRow {
	cov := Coverage(s)
	out := make([]jsonout.ReplayRow, len(rows))
	for i, r := range rows {
		out[i] = jsonout.NewReplayRow(r, qs[i].Text, cov)
		if r.Err != nil || ran == nil || !ran[i].Placed {
			continue
		}
		if err := ran[i].Err; err != nil {
			// This query fails alone; the others are still reported.
			rows[i] = replay.Row{QueryID: qs[i].ID, K: qs[i].K, Class: diff.Failed, Err: fmt.Errorf("as it ran: %w", err)}
			out[i] = jsonout.NewReplayRow(rows[i], qs[i].Text, cov)
			continue
		}
		out[i].AsRan = jsonout.NewAsRan(ran[i].Row, ran[i].Cut, cov)
		out[i].RecordedMismatch = out[i].AsRan.RecordedMismatch
	}
	return out
}

// Actions is `actions --json`'s rows, and the report's case file's.
func Actions(s *assemble.Session, rows []defences.Row) []jsonout.ActionRow {
	cov := Coverage(s)
	out := make([]jsonout.ActionRow, len(rows))
	for i, r := range rows {
		out[i] = jsonout.NewActionRow(r, cov)
	}
	return out
}

// Timeline is `timeline --json`'s document: the events f selects, each
// with its coverage label, and how the writes are labelled (from the
// verification against the log when the session has one). snapshot names
// the snapshot as the user gave it.
func Timeline(s *assemble.Session, snapshot string, tl *timeline.Timeline, f timeline.Filter) jsonout.Timeline {
	labels := "not checked (no --log)"
	if s.Opts.Log != "" {
		labels = "from verification against the log"
	}
	out := jsonout.Timeline{Snapshot: snapshot, Order: tl.Order(), Labels: labels, Events: []jsonout.TimelineEvent{}}
	for _, i := range tl.Select(f) {
		e := tl.Events[i]
		out.Events = append(out.Events, jsonout.NewTimelineEvent(i, e, s.EventCoverage(e.Kind, e.ID)))
	}
	return out
}
