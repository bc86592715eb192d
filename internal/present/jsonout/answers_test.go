package jsonout

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/replay"
)

// byRole answers a coverage label per role, so a test sees which role
// each field asked about.
var byRole = Coverage{
	Query:  func(id string) string { return "query-label:" + id },
	Node:   func(id string) string { return "node-label:" + id },
	Action: func(id string) string { return "action-label:" + id },
}

// A replay row: ranks 1-based, ids sanitised, each id's coverage asked of
// its own table, an undefined margin null, a failed row's reason kept.
func TestNewReplayRow(t *testing.T) {
	t.Parallel()
	r := replay.Row{QueryID: "q\x1b1", K: 2, Class: diff.Diverge,
		G:       replay.Selection{Items: []replay.Item{{NodeID: "p1", Rank: 0, Score: 0.5, Authenticated: true}}},
		Targets: []replay.Lemma1{{NodeID: "p1", Margin: math.NaN(), RankG: 0}, {NodeID: "p2", Margin: 0.25, RankG: 1}},
		Err:     errors.New("bad\x07reset")}
	j := NewReplayRow(r, "text", byRole)
	if strings.ContainsAny(j.Query+j.Error, "\x1b\x07") {
		t.Errorf("unsanitised: %q %q", j.Query, j.Error)
	}
	if j.Coverage != "query-label:q\x1b1" || len(j.TopKG) != 1 || j.TopKG[0].Rank != 1 || j.TopKG[0].Coverage != "node-label:p1" {
		t.Errorf("row %+v", j)
	}
	if j.Lemma1[0].Margin != nil || j.Lemma1[1].Margin == nil || *j.Lemma1[1].Margin != 0.25 || j.Lemma1[1].RankG != 2 {
		t.Errorf("lemma1 %+v", j.Lemma1)
	}
	if j.Culprits == nil || j.CulpritDetail == nil || j.Immune == nil || j.TopKAuth == nil {
		t.Error("empty lists must encode as [], not null")
	}
}

// An action row keys each defence's verdict by name and labels the
// action's and its query's rows separately; no query, no query label.
func TestNewActionRow(t *testing.T) {
	t.Parallel()
	r := defences.Row{Action: "a1", Tool: "pay", Query: "q1", Dispatched: true,
		Verdicts: map[string]defences.Verdict{defences.IFC: {Decision: "allow", Reason: "signed\x1b"}}}
	j := NewActionRow(r, byRole)
	if j.Coverage != "action-label:a1" || j.QueryCoverage != "query-label:q1" || j.Verdicts[defences.IFC].Decision != "allow" || strings.Contains(j.Verdicts[defences.IFC].Reason, "\x1b") {
		t.Errorf("row %+v", j)
	}
	r.Query = ""
	if j := NewActionRow(r, byRole); j.QueryCoverage != "" {
		t.Errorf("no query, yet query_coverage %q", j.QueryCoverage)
	}
}

// A timeline event outside the log has a null leaf; its time is RFC 3339
// in UTC with milliseconds.
func TestNewTimelineEvent(t *testing.T) {
	t.Parallel()
	e := timeline.Event{Kind: timeline.KindQuery, ID: "q1", Leaf: -1, TS: 1_700_000_000_123_456_789}
	j := NewTimelineEvent(7, e, "unsigned")
	if j.Leaf != nil || j.Index != 7 || j.Time != "2023-11-14T22:13:20.123Z" || j.Coverage != "unsigned" {
		t.Errorf("event %+v", j)
	}
	e.Leaf = 0
	if j := NewTimelineEvent(0, e, ""); j.Leaf == nil || *j.Leaf != 0 {
		t.Errorf("leaf 0: %v", j.Leaf)
	}
}
