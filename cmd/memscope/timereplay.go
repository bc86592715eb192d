package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memscope/memscope/inspect"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/sanitize"
	"github.com/memscope/memscope/timeline"
)

// jsonAsRan is a query replayed on the graph as it stood when it ran.
type jsonAsRan struct {
	Moment           string     `json:"moment"`
	PlacedBy         string     `json:"placed_by"`
	Class            string     `json:"class"`
	TopKG            []jsonItem `json:"topk_g"`
	TopKAuth         []jsonItem `json:"topk_auth"`
	RecordedMismatch *bool      `json:"recorded_mismatch,omitempty"`
}

type jsonWriteRef struct {
	Write  string `json:"write"`
	Writer string `json:"writer"`
	Leaf   *int64 `json:"leaf"`
	Time   string `json:"time"`
}

type jsonInterval struct {
	From  jsonWriteRef  `json:"from"`
	Until *jsonWriteRef `json:"until"`
}

type jsonFlip struct {
	Found           bool           `json:"found"`
	Write           string         `json:"write"`
	Writer          string         `json:"writer"`
	Leaf            *int64         `json:"leaf"`
	Time            string         `json:"time"`
	Confirmed       bool           `json:"confirmed"`
	Candidates      int            `json:"candidates"`
	Solves          int64          `json:"solves"`
	Budget          int            `json:"solve_budget"`
	Intervals       []jsonInterval `json:"intervals"`
	IntervalsNote   string         `json:"intervals_checked"`
	BisectionAgrees bool           `json:"bisection_agrees"`
	QueriesAffected []string       `json:"queries_affected"`
	ActionsAffected []string       `json:"actions_affected"`
}

func refJSON(w timeline.WriteRef) jsonWriteRef {
	j := jsonWriteRef{Write: w.ID, Writer: w.Writer, Time: formatWhen(w.TS)}
	if w.Leaf >= 0 {
		l := w.Leaf
		j.Leaf = &l
	}
	return j
}

func flipJSON(f *timeline.Flip, haveNow bool) *jsonFlip {
	j := &jsonFlip{Found: f.Found, Confirmed: f.Confirmed, Candidates: f.Candidates, Solves: f.Solves, Budget: timeline.FlipBudget(f.Candidates, haveNow),
		BisectionAgrees: f.BisectionAgrees, QueriesAffected: append([]string{}, f.QueriesAffected...), ActionsAffected: append([]string{}, f.ActionsAffected...),
		IntervalsNote: "not checked (pass --scan)"}
	if f.Found {
		r := refJSON(f.Write)
		j.Write, j.Writer, j.Leaf, j.Time = r.Write, r.Writer, r.Leaf, r.Time
	}
	if f.Scanned {
		j.IntervalsNote = "scanned after every unauthenticated write"
		j.Intervals = []jsonInterval{}
		for _, in := range f.Intervals {
			ji := jsonInterval{From: refJSON(in.From)}
			if in.Until != nil {
				u := refJSON(*in.Until)
				ji.Until = &u
			}
			j.Intervals = append(j.Intervals, ji)
		}
	}
	return j
}

// parseMoment resolves --as-of: "leaf:N" or a bare integer below 1e15 is a
// log leaf, "ts:NS", a larger integer or RFC 3339 text is a recorded time,
// anything else names a query (the moment it ran).
func parseMoment(tl *timeline.Timeline, s string) (timeline.Cut, error) {
	if rest, ok := strings.CutPrefix(s, "leaf:"); ok {
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			return timeline.Cut{}, usagef("--as-of %s: %v", s, err)
		}
		return tl.AfterLeaf(n)
	}
	if rest, ok := strings.CutPrefix(s, "ts:"); ok {
		n, err := parseWhen(rest)
		if err != nil {
			return timeline.Cut{}, err
		}
		return tl.AtTime(n), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 1e15 {
			return tl.AfterLeaf(n)
		}
		return tl.AtTime(n), nil
	}
	if n, err := parseWhen(s); err == nil {
		return tl.AtTime(n), nil
	}
	if c, err := tl.Before(timeline.KindQuery, s); err == nil {
		return c, nil
	}
	return timeline.Cut{}, usagef("--as-of %q is not a leaf (leaf:N), a time (RFC 3339 or ts:NS) or a query id", s)
}

// asRanJSON replays q as it ran and describes it.
func asRanJSON(tr *timeline.Replay, q replay.Query) (*jsonAsRan, error) {
	row, cut, err := tr.AsRan(q)
	if err != nil {
		return nil, err
	}
	j := &jsonAsRan{Moment: cut.Desc, PlacedBy: string(cut.Placed), Class: string(row.Class), TopKG: items(row.G), TopKAuth: items(row.GAuth)}
	if row.Recorded != nil {
		m := row.Recorded.Mismatch
		j.RecordedMismatch = &m
	}
	return j, nil
}

func firstFlip(s *inspect.Session, tr *timeline.Replay, q replay.Query, now replay.Row, scan bool) (*jsonFlip, error) {
	f, err := tr.FirstFlip(q, timeline.FlipOptions{Scan: scan, Queries: s.ReplayQueries(), EntryOf: s.PassageEntries(), Now: &now})
	if err != nil {
		return nil, err
	}
	return flipJSON(f, true), nil
}

func writeFlip(w io.Writer, query string, f *jsonFlip) {
	fmt.Fprintf(w, "\nfirst flip of %s:", sanitize.Line(query))
	if !f.Found {
		fmt.Fprintf(w, " none (no bisection point over %d unauthenticated writes differs)\n", f.Candidates)
		return
	}
	leaf := "-"
	if f.Leaf != nil {
		leaf = strconv.FormatInt(*f.Leaf, 10)
	}
	conf := "confirmed: same just before it, different right after it"
	if !f.Confirmed {
		conf = "NOT confirmed: the selection does not change at this write alone (authenticated writes after it decide)"
	}
	fmt.Fprintf(w, " write %s by %s, leaf %s, %s\n  %s\n", f.Write, sanitize.Line(f.Writer), leaf, f.Time, conf)
	fmt.Fprintf(w, "  bisection over %d unauthenticated writes: %d PPR solves (budget %d)\n", f.Candidates, f.Solves, f.Budget)
	if f.Intervals == nil {
		fmt.Fprintf(w, "  intervals: %s\n", f.IntervalsNote)
	} else {
		for _, in := range f.Intervals {
			until := "still differs now"
			if in.Until != nil {
				until = "agrees again after " + in.Until.Write
			}
			fmt.Fprintf(w, "  differs from %s; %s\n", in.From.Write, until)
		}
		if !f.BisectionAgrees {
			fmt.Fprintln(w, "  the scan found an earlier flip than the bisection: divergence is not monotone over the log")
		}
	}
	fmt.Fprintf(w, "  queries that ran on a flipped selection afterwards: %d %v\n", len(f.QueriesAffected), f.QueriesAffected)
	fmt.Fprintf(w, "  actions that followed those selections: %d %v\n", len(f.ActionsAffected), f.ActionsAffected)
}
