package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/replay"
)

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

func firstFlip(ctx context.Context, s *assemble.Session, tr *timeline.Replay, q replay.Query, now replay.Row, scan bool) (*jsonout.FirstFlip, error) {
	f, err := tr.FirstFlip(ctx, q, timeline.FlipOptions{Scan: scan, Queries: s.ReplayQueries(), EntryOf: s.PassageEntries(), Now: &now})
	if err != nil {
		return nil, err
	}
	return jsonout.NewFirstFlip(f, true), nil
}

func writeFlip(w io.Writer, query string, f *jsonout.FirstFlip) {
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

type jsonImpact struct {
	Query   string   `json:"query"`
	Without []string `json:"selection_without"`
	With    []string `json:"selection_with"`
	Brought []string `json:"brought_in"`
}

type jsonBlast struct {
	Target  string       `json:"target"`
	Writes  []string     `json:"writes"`
	Queries []jsonImpact `json:"queries_changed"`
	Actions []string     `json:"actions_following"`
	Entries []string     `json:"entries_written"`
	Derived []string     `json:"entries_derived"`
	Solves  int64        `json:"solves"`
}

func blastJSON(target string, b *assemble.Blast) jsonBlast {
	j := jsonBlast{Target: target, Writes: orEmpty(b.Writes), Queries: []jsonImpact{}, Actions: orEmpty(b.Actions), Entries: orEmpty(b.Entries), Derived: orEmpty(b.Derived), Solves: b.Solves}
	for _, q := range b.Queries {
		j.Queries = append(j.Queries, jsonImpact{Query: q.Query, Without: q.Without, With: q.With, Brought: orEmpty(q.Brought)})
	}
	return j
}

func writeBlast(w io.Writer, j jsonBlast) {
	fmt.Fprintf(w, "blast radius of %s: %d structural write(s), %d entr(ies) written\n", sanitize.Line(j.Target), len(j.Writes), len(j.Entries))
	fmt.Fprintf(w, "  queries whose selection (as they ran, on G) the writes changed: %d\n", len(j.Queries))
	for _, q := range j.Queries {
		fmt.Fprintf(w, "    %s: brought in %s\n", sanitize.Line(q.Query), sanitize.Line(strings.Join(q.Brought, ",")))
	}
	fmt.Fprintf(w, "  actions that followed those selections: %d %s\n", len(j.Actions), sanitize.Line(strings.Join(j.Actions, ",")))
	fmt.Fprintf(w, "  entries derived (lineage) from entries it wrote: %d\n", len(j.Derived))
	for i, d := range j.Derived {
		if i == maxListed {
			fmt.Fprintf(w, "    ... %d more (see --json)\n", len(j.Derived)-maxListed)
			break
		}
		fmt.Fprintf(w, "    %s\n", sanitize.Line(d))
	}
	fmt.Fprintf(w, "  (%d PPR solves)\n", j.Solves)
}

type jsonCompromise struct {
	Principal string `json:"principal"`
	From      string `json:"from"`
	Entries   int    `json:"entries_treated_unauthenticated"`
	Writes    int    `json:"writes_treated_unauthenticated"`
	Labels    []struct {
		Entry  string `json:"entry"`
		Now    string `json:"now"`
		Assume string `json:"assumed"`
	} `json:"labels_changed"`
	Verdicts []assemble.VerdictChange `json:"verdicts_changed"`
	Classes  []assemble.ClassChange   `json:"replay_classes_changed"`
}

// parseAssume reads P@T (T: RFC 3339 or ns; omitted: from the start).
func parseAssume(s string) (string, int64, error) {
	p, t, ok := strings.Cut(s, "@")
	if p == "" {
		return "", 0, usagef("--assume-compromised %q: want PRINCIPAL@TIME", s)
	}
	if !ok || t == "" {
		return p, 0, nil
	}
	ts, err := parseWhen(t)
	return p, ts, err
}

func compromiseJSON(c *assemble.Compromise) jsonCompromise {
	j := jsonCompromise{Principal: c.Principal, From: formatWhen(c.From), Entries: len(c.Entries), Writes: len(c.Writes),
		Verdicts: c.Verdicts, Classes: c.Classes}
	if j.Verdicts == nil {
		j.Verdicts = []assemble.VerdictChange{}
	}
	if j.Classes == nil {
		j.Classes = []assemble.ClassChange{}
	}
	j.Labels = make([]struct {
		Entry  string `json:"entry"`
		Now    string `json:"now"`
		Assume string `json:"assumed"`
	}, len(c.Labels))
	for i, l := range c.Labels {
		j.Labels[i].Entry, j.Labels[i].Now, j.Labels[i].Assume = l.Entry, l.Now.String(), l.Assume.String()
	}
	return j
}

func writeCompromise(w io.Writer, j jsonCompromise) {
	fmt.Fprintf(w, "assuming %s compromised from %s: %d entries and %d structural writes treated as unauthenticated\n",
		sanitize.Line(j.Principal), j.From, j.Entries, j.Writes)
	fmt.Fprintf(w, "  lineage labels that change: %d\n", len(j.Labels))
	for i, l := range j.Labels {
		if i == maxListed {
			fmt.Fprintf(w, "    ... %d more (see --json)\n", len(j.Labels)-maxListed)
			break
		}
		fmt.Fprintf(w, "    %s  %s -> %s\n", sanitize.Line(l.Entry), l.Now, l.Assume)
	}
	fmt.Fprintf(w, "  gate verdicts that change: %d\n", len(j.Verdicts))
	for _, v := range j.Verdicts {
		fmt.Fprintf(w, "    %s  %s -> %s (dispatched %v)\n", sanitize.Line(v.Action), v.Now, v.Assume, v.Dispatched)
	}
	fmt.Fprintf(w, "  replay classes (G vs G_auth, now) that change: %d\n", len(j.Classes))
	for _, c := range j.Classes {
		fmt.Fprintf(w, "    %s  %s -> %s\n", sanitize.Line(c.Query), c.Now, c.Assume)
	}
}

// maxListed bounds the ids a text answer lists; --json has them all.
const maxListed = 50

// runTimeQuestion answers --blast and --assume-compromised.
func runTimeQuestion(ctx context.Context, s *assemble.Session, rp *replay.Replayer, tr *timeline.Replay, blast, from, assume string, asJSON bool, w io.Writer) (int, error) {
	var out struct {
		Blast      *jsonBlast      `json:"blast,omitempty"`
		Compromise *jsonCompromise `json:"assume_compromised,omitempty"`
	}
	if blast != "" {
		var t int64
		if from != "" {
			var err error
			if t, err = parseWhen(from); err != nil {
				return exitUsage, err
			}
		}
		b, err := s.BlastRadius(ctx, tr, blast, t)
		if err != nil {
			return exitUsage, err
		}
		j := blastJSON(blast, b)
		out.Blast = &j
	}
	if assume != "" {
		p, t, err := parseAssume(assume)
		if err != nil {
			return exitUsage, err
		}
		c, err := s.AssumeCompromised(ctx, rp, tr.Timeline(), p, t, assemble.DefaultTau)
		if err != nil {
			return exitUsage, err
		}
		j := compromiseJSON(c)
		out.Compromise = &j
	}
	if asJSON {
		return exitOK, writeJSON(w, out)
	}
	if out.Blast != nil {
		writeBlast(w, *out.Blast)
	}
	if out.Compromise != nil {
		if out.Blast != nil {
			fmt.Fprintln(w)
		}
		writeCompromise(w, *out.Compromise)
	}
	return exitOK, nil
}
