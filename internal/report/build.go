package report

import (
	"context"
	"encoding/hex"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/assemble/answers"
	"github.com/memscope/memscope/internal/present/dagdraw"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/glossary"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// Options say what the report is made from and how much of it to list.
type Options struct {
	// Inputs are the files and directories to hash (the snapshot, the log
	// directory, anchor and key files, a gate policy).
	Inputs []Input
	// Command is the command line that reproduces the report.
	Command []string
	Version string
	// Now is the generation time printed in the report; the zero value
	// prints no time (tests and reproducible builds pass a fixed clock).
	Now time.Time
	// GatePolicyName names the gate policy in force ("" = built-in).
	GatePolicyName string
	Limits         Limits
}

// Limits bound how many rows each section lists; everything is counted.
// A 100k-entry store must still give a report a person can read.
type Limits struct {
	Examples     int // findings listed per root cause
	QueryRows    int // rows of the replay table
	QueryDetails int // diverging queries shown in full
	Actions      int // rows of the action table
	Refused      int // refused actions whose lineage is drawn
	EntriesEach  int // untrusted justifying entries drawn per action
	Laundering   int // laundering rows listed
	Timeline     int // timeline events listed
}

// DefaultLimits keep a report of any store to a few dozen pages.
var DefaultLimits = Limits{Examples: 12, QueryRows: 60, QueryDetails: 8, Actions: 80, Refused: 8, EntriesEach: 3, Laundering: 20, Timeline: 80}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	return Limits{Examples: pick(l.Examples, d.Examples), QueryRows: pick(l.QueryRows, d.QueryRows), QueryDetails: pick(l.QueryDetails, d.QueryDetails),
		Actions: pick(l.Actions, d.Actions), Refused: pick(l.Refused, d.Refused), EntriesEach: pick(l.EntriesEach, d.EntriesEach), Laundering: pick(l.Laundering, d.Laundering),
		Timeline: pick(l.Timeline, d.Timeline)}
}

// lineageDepth is how many derivation steps up and down a drawing shows.
const lineageDepth = 3

// maxLineageDepth bounds how far up a drawing follows an External origin.
const maxLineageDepth = 12

// Build runs the analyses through s (loaded with assemble.Session.Load) and
// collects the case.
func Build(ctx context.Context, s *assemble.Session, opt Options) (*Case, error) {
	lim := opt.Limits.withDefaults()
	c := &Case{Schema: Schema, Title: Text(s.Opts.Title), Tool: Tool{Name: "memscope", Version: opt.Version}}
	if c.Tool.Version == "" {
		c.Tool.Version = "unknown"
	}
	if !opt.Now.IsZero() {
		c.Generated = opt.Now.UTC().Format(time.RFC3339)
	}
	for _, a := range opt.Command {
		c.Command = append(c.Command, Text(a))
	}
	c.CommandLine = Text(shellJoin(opt.Command))

	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return nil, err
	}
	if err := buildEvidence(ctx, c, s, rep, opt); err != nil {
		return nil, err
	}
	c.Verify = rep
	buildIntegrity(c, s, rep, lim)
	c.Findings = append(c.Findings, rep.Findings...)
	if err := buildLineageAndActions(ctx, c, s, lim); err != nil {
		return nil, err
	}
	rr, rows, err := buildReplay(ctx, c, s, lim)
	if err != nil {
		return nil, err
	}
	c.Findings = append(c.Findings, assemble.ReplayFindings(rows)...)
	if err := buildTimeline(c, s, rr, rows, lim); err != nil {
		return nil, err
	}
	if err := buildExposure(ctx, c, s, lim); err != nil {
		return nil, err
	}
	for _, t := range glossary.Terms {
		if !t.InspectorOnly {
			c.Glossary = append(c.Glossary, Term{Term: t.Term, Meaning: t.Meaning})
		}
	}
	c.Verdict = composeVerdict(c)
	return c, nil
}

func buildEvidence(ctx context.Context, c *Case, s *assemble.Session, rep *verify.Report, opt Options) error {
	files, err := hashInputs(ctx, opt.Inputs)
	if err != nil {
		return err
	}
	ev := &c.Evidence
	ev.Inputs = files
	if ev.Inputs == nil {
		ev.Inputs = []InputFile{}
	}
	for _, f := range files {
		ev.InputTotal.Files++
		ev.InputTotal.Bytes += f.Size
	}
	anchorText := map[string]string{
		"pinned":     "supplied by the investigator, from outside the evidence",
		"unanchored": "read from the evidence itself: proves nothing against whoever could alter it",
	}
	ev.Anchors = []Anchor{
		{Name: "log key", Status: rep.Anchors.LogKey, Source: anchorText[rep.Anchors.LogKey]},
		{Name: "registry root", Status: rep.Anchors.Registry, Source: anchorText[rep.Anchors.Registry]},
	}
	hm := Anchor{Name: "HMAC key (SMSR)", Status: "not given", Source: "HMAC tags were not checked"}
	if len(s.Opts.HMACKey) > 0 {
		hm = Anchor{Name: "HMAC key (SMSR)", Status: "given", Source: "HMAC tags were checked with the key supplied"}
	}
	ev.Anchors = append(ev.Anchors, hm)
	ev.Log = LogFacts{Location: Text(s.Opts.Log), TreeSize: rep.TreeSize, RootHash: hex.EncodeToString(rep.RootHash), Checkpoints: rep.Checkpoints}
	ev.Counts = Counts{Records: rep.Records, Entries: rep.Entries, Writes: rep.Edges, Principals: rep.Principals, Tombstones: rep.Tombstones,
		Nodes: len(s.Nodes), Queries: len(s.Queries), Actions: len(s.Actions)}
	ev.Parameters = Parameters{Tau: s.Opts.Tau, FailClosed: s.Opts.FailClosed, K: s.Opts.K, Damping: s.Opts.Damping,
		LabelPolicy: s.Opts.ReplayPolicy, GatePolicy: opt.GatePolicyName}
	if ev.Parameters.K == 0 {
		ev.Parameters.K = replay.DefaultK
	}
	if ev.Parameters.Damping == 0 {
		ev.Parameters.Damping = replay.DefaultDamping
	}
	if ev.Parameters.LabelPolicy == "" {
		ev.Parameters.LabelPolicy = replay.PolicyDefault
	}
	if ev.Parameters.GatePolicy == "" {
		ev.Parameters.GatePolicy = "built-in"
	}
	ev.LoadIssues = []Text{}
	for _, li := range s.LoadIssues {
		ev.LoadIssues = append(ev.LoadIssues, Text(li))
	}
	return nil
}

func buildIntegrity(c *Case, s *assemble.Session, rep *verify.Report, lim Limits) {
	in := &c.Integrity
	for _, f := range rep.Findings {
		switch f.Severity {
		case finding.SevError:
			in.Errors++
		case finding.SevWarning:
			in.Warnings++
		default:
			in.Infos++
		}
	}
	fams := make([]string, 0, len(rep.Families))
	for f := range rep.Families {
		fams = append(fams, string(f))
	}
	sort.Strings(fams)
	for _, f := range fams {
		in.Families = append(in.Families, FamilyCount{Family: f, Count: rep.Families[finding.Family(f)]})
	}
	in.Groups = []Group{}
	for _, g := range assemble.GroupFindings(rep.Findings, rep.Principals) {
		out := Group{Code: string(g.Code), Severity: string(g.Severity), Headline: Text(g.Headline), Count: len(g.Findings), Shown: []Finding{}}
		seen := map[string]bool{}
		for i, f := range g.Findings {
			if !seen[string(f.Code)] {
				seen[string(f.Code)] = true
				out.Codes = append(out.Codes, string(f.Code))
			}
			if i < lim.Examples {
				out.Shown = append(out.Shown, Finding{Severity: string(f.Severity), Code: string(f.Code), Subject: Text(f.Subject), Message: Text(f.Message)})
			}
		}
		in.Groups = append(in.Groups, out)
	}
	in.GroupsShown = len(in.Groups)
}

func buildLineageAndActions(ctx context.Context, c *Case, s *assemble.Session, lim Limits) error {
	tau, fc := s.Opts.Tau, s.Opts.FailClosed
	sum, err := s.LineageSummary(tau, fc)
	if err != nil {
		return err
	}
	c.Findings = append(c.Findings, assemble.LineageFindings(sum)...)
	labels, err := s.Labels(tau, fc)
	if err != nil {
		return err
	}
	gate, err := s.GateAudit(labels)
	if err != nil {
		return err
	}
	buildLineageSummary(&c.Lineage, s, sum, lim)
	rows, err := s.ActionVerdicts(ctx)
	if err != nil {
		return err
	}
	gateByAction := map[string]lineage.GateResult{}
	for _, g := range gate {
		gateByAction[g.Action] = g
	}
	refusedActions := buildActionRows(&c.Actions, s, rows, gateByAction, lim)
	return buildRefusedLineage(&c.Lineage, s, refusedActions, gateByAction, labels, lim)
}

// buildLineageSummary fills the lineage section's family counts and
// laundered memories.
func buildLineageSummary(ln *LineageSection, s *assemble.Session, sum *assemble.LineageSummary, lim Limits) {
	ln.LineageSummary = sum
	for t := lineage.Trusted; t <= lineage.External; t++ {
		ln.FamilyCounts = append(ln.FamilyCounts, FamilyCount{Family: t.String(), Count: sum.Counts[t.String()]})
	}
	ln.LaunderingTotal = len(sum.Laundering)
	ln.Launder = []LaunderRow{}
	for i, l := range sum.Laundering {
		if i >= lim.Laundering {
			break
		}
		row := LaunderRow{Entry: Text(l.Entry), Recorded: l.Recorded, Recomputed: l.Recomputed}
		if j, ok := s.Index(l.Entry); ok {
			row.Writer = Text(s.EntryAt(j).Writer)
		}
		ln.Launder = append(ln.Launder, row)
	}

}

// refusedByTitles names, by title, the defences that refuse the action.
func refusedByTitles(r defences.Row) []string {
	var out []string
	for _, d := range r.RefusedBy() {
		out = append(out, defenceTitle[d])
	}
	return out
}

// buildActionRows fills the actions section and answers the actions a
// defence or the lineage gate refuses, in the section's order.
func buildActionRows(ac *ActionsSection, s *assemble.Session, rows []defences.Row, gateByAction map[string]lineage.GateResult, lim Limits) []defences.Row {
	ac.Total = len(rows)
	for _, d := range defences.Names {
		ac.Defences = append(ac.Defences, defenceTitle[d])
	}
	ac.DefenceKeys = defences.Names
	ac.Rows, ac.Answer = []ActionRow{}, []jsonout.ActionRow{}
	cov := answers.Coverage(s)
	// Dispatched actions a defence refuses first, then other refusals,
	// then the rest, each in recorded order.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	rank := func(r defences.Row) int {
		switch {
		case r.Dispatched && len(refusedByTitles(r)) > 0:
			return 0
		case len(refusedByTitles(r)) > 0:
			return 1
		}
		return 2
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(rows[order[a]]) < rank(rows[order[b]]) })
	var refusedActions []defences.Row
	for _, i := range order {
		r := rows[i]
		by := refusedByTitles(r)
		if r.Dispatched {
			ac.Dispatched++
		}
		if r.Dispatched && len(by) > 0 {
			ac.Refused++
		}
		if r.Headline {
			ac.Headlines++
		}
		g, inGate := gateByAction[r.Action]
		if len(by) > 0 || inGate && g.Verdict != lineage.Allow {
			refusedActions = append(refusedActions, r)
		}
		if len(ac.Rows) >= lim.Actions {
			continue
		}
		row := ActionRow{ID: Text(r.Action), Tool: Text(r.Tool), Query: Text(r.Query), Dispatched: r.Dispatched, Sensitive: inGate && g.Sensitive,
			Headline: r.Headline, Alert: r.Dispatched && len(by) > 0, RefusedBy: by, Coverage: s.Coverage(verify.TableActions, r.Action)}
		if r.Query != "" {
			row.QueryCoverage = s.Coverage(verify.TableQueries, r.Query)
		}
		for _, d := range defences.Names {
			v := r.Verdicts[d]
			row.Verdicts = append(row.Verdicts, v.Decision)
			row.Reasons = append(row.Reasons, Text(v.Reason))
		}
		ac.Rows = append(ac.Rows, row)
		ac.Answer = append(ac.Answer, jsonout.NewActionRow(r, cov))
	}
	ac.Shown = len(ac.Rows)

	return refusedActions
}

// buildRefusedLineage draws the lineage of every refused action's
// justifying entries, the untrusted ones first.
func buildRefusedLineage(ln *LineageSection, s *assemble.Session, refusedActions []defences.Row, gateByAction map[string]lineage.GateResult, labels []lineage.Trust, lim Limits) error {
	tau, fc := s.Opts.Tau, s.Opts.FailClosed
	ln.Refused = []RefusedLineage{}
	for _, r := range refusedActions {
		ln.RefusedAll++
		if len(ln.Refused) >= lim.Refused {
			continue
		}
		g := gateByAction[r.Action]
		rl := RefusedLineage{Action: Text(r.Action), Tool: Text(r.Tool), Verdict: g.Verdict.String(), Dispatched: r.Dispatched, Reason: Text(g.Reason),
			RefusedBy: refusedByTitles(r), Entries: []EntryLineage{}}
		// Every justifying entry, the untrusted ones first.
		just := slices.Clone(g.Entries)
		sort.SliceStable(just, func(a, b int) bool { return untrustedEntry(just[a]) && !untrustedEntry(just[b]) })
		for _, je := range just {
			if len(rl.Entries) >= lim.EntriesEach {
				break
			}
			el := EntryLineage{Entry: Text(je.ID), Known: je.Known, Recorded: je.Recorded.String(), Recomputed: je.Recomputed.String(), Origins: []Origin{}, Nodes: []DAGNode{}, Edges: []DAGEdge{}}
			if !je.Known {
				el.Recorded = "unknown"
				rl.Entries = append(rl.Entries, el)
				continue
			}
			if err := entryLineage(&el, s, je.ID, labels, tau, fc); err != nil {
				return err
			}
			rl.Entries = append(rl.Entries, el)
		}
		ln.Refused = append(ln.Refused, rl)
	}
	return nil
}

func untrustedEntry(je lineage.JustifyingEntry) bool { return !je.Known || je.Recomputed.IsUntrusted() }

// defenceTitle names each defence as the report's columns do.
var defenceTitle = map[string]string{
	defences.None:       "No defence",
	defences.IFC:        "Justification IFC",
	defences.MemLineage: "MemLineage M6",
	defences.AuthSelect: "AuthSelect",
	defences.SMSR:       "SMSR",
}

// entryLineage fills one entry's drawing and explanation from inspect.
func entryLineage(el *EntryLineage, s *assemble.Session, id string, labels []lineage.Trust, tau float64, fc bool) error {
	v, err := s.EntryLineageWith(id, labels, tau, fc, lineageDepth, dagdraw.Box)
	if err != nil {
		return err
	}
	// Draw far enough up to show where the untrust comes from: the
	// longest explained path from an External ancestor, within a bound.
	depth := lineageDepth
	for _, o := range v.Explanation.Origins {
		depth = max(depth, min(len(o.Path), maxLineageDepth))
	}
	if depth > lineageDepth {
		if v, err = s.EntryLineageWith(id, labels, tau, fc, depth, dagdraw.Box); err != nil {
			return err
		}
	}
	if j, ok := s.Index(id); ok {
		e := s.EntryAt(j)
		el.Writer, el.Content = Text(e.Writer), Text(e.Content)
	}
	for _, o := range v.Explanation.Origins {
		out := Origin{Ancestor: Text(o.Ancestor), Bottleneck: o.Bottleneck, Break: o.Break}
		for _, p := range o.Path {
			out.Path = append(out.Path, PathStep{Parent: Text(p.Parent), Child: Text(p.Child), Weight: p.Weight, Strong: p.Strong})
		}
		el.Origins = append(el.Origins, out)
	}
	l := v.Layout
	nodes := map[int]int{}
	for i := 0; i < l.Len(); i++ {
		n := l.RowNode(i)
		if n < 0 {
			continue
		}
		nodes[n] = len(el.Nodes)
		dn := l.Node(n)
		el.Nodes = append(el.Nodes, DAGNode{ID: Text(dn.ID), Trust: dn.Trust, Focus: dn.Focus})
	}
	for _, e := range l.Edges() {
		p, okp := nodes[e.Parent]
		ch, okc := nodes[e.Child]
		if okp && okc {
			el.Edges = append(el.Edges, DAGEdge{Parent: p, Child: ch, Weight: e.Weight, Strong: e.Strong})
		}
	}
	el.Drawing = draw(l)
	return nil
}

func buildReplay(ctx context.Context, c *Case, s *assemble.Session, lim Limits) (*replay.Replayer, []replay.Row, error) {
	rp := &c.Replay
	rp.Rows, rp.Details, rp.Answer = []QueryRow{}, []QueryDetail{}, []jsonout.ReplayRow{}
	rp.Queries = len(s.Queries)
	rp.Damping = c.Evidence.Parameters.Damping
	rp.CaptureK = c.Evidence.Parameters.K
	if len(s.Queries) == 0 {
		rp.Note = "The store holds no queries, so there is no selection to replay."
		return nil, nil, nil
	}
	rr, err := s.Replayer(ctx)
	if err != nil {
		rp.Note = "The selection could not be replayed: " + err.Error()
		return nil, nil, nil
	}
	rp.Available = true
	rp.Unauth = len(rr.UnauthenticatedEdges())
	qs := s.ReplayQueries()
	rows, err := rr.ReplayAll(ctx, qs, runtime.GOMAXPROCS(0))
	if ctx.Err() != nil {
		return nil, nil, ctx.Err() // interrupted: no report, not a note in one
	}
	if err != nil {
		rp.Available = false
		rp.Note = "The selection could not be replayed: " + err.Error()
		return rr, nil, nil
	}
	answer, err := replayAnswer(ctx, s, rr, qs, rows)
	if err != nil {
		return nil, nil, err
	}
	writes := map[string]*assemble.Write{}
	for i := range s.WriteCount() {
		w := s.WriteAt(i)
		writes[w.ID] = &w
	}
	// The replay table lists diverging rows first (IFC-blind before the
	// rest), then reorders, then the others, each in stored order.
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	rank := func(r replay.Row) int {
		switch {
		case r.Class == diff.Diverge && r.IFCBlind:
			return 0
		case r.Class == diff.Diverge:
			return 1
		case r.Class == diff.Reorder:
			return 2
		}
		return 3
	}
	sort.SliceStable(order, func(a, b int) bool { return rank(rows[order[a]]) < rank(rows[order[b]]) })
	for _, i := range order {
		r, q := rows[i], qs[i]
		switch r.Class {
		case diff.Diverge:
			rp.Diverge++
		case diff.Reorder:
			rp.Reorder++
		default:
			rp.Same++
		}
		if r.IFCBlind {
			rp.IFCBlind++
		}
		if r.Recorded != nil && r.Recorded.Mismatch {
			rp.Mismatch++
		}
		nc := 0
		if r.Culprits != nil {
			nc = len(r.Culprits.Set)
		}
		if len(rp.Rows) < lim.QueryRows {
			rp.Rows = append(rp.Rows, QueryRow{ID: Text(r.QueryID), Coverage: s.Coverage(verify.TableQueries, r.QueryID), Text: Text(q.Text), Class: string(r.Class), IFCBlind: r.IFCBlind, Tie: r.TieDecided, Culprits: nc})
			rp.Answer = append(rp.Answer, answer[i])
		}
		if r.Class == diff.Diverge && len(rp.Details) < lim.QueryDetails {
			d := queryDetail(r, q, writes)
			d.Coverage = s.Coverage(verify.TableQueries, r.QueryID)
			if d.Recorded != nil {
				// Compared as replay does: with the graph the query ran
				// on, where the log places it.
				against := *d.Recorded + " the replay on G"
				if answer[i].AsRan != nil {
					against += " as the query ran"
				}
				d.Recorded = &against
			}
			rp.Details = append(rp.Details, d)
		}
	}
	rp.RowsShown = len(rp.Rows)
	return rr, rows, nil
}

// replayAnswer replays each query as it ran too, as `replay` does: the
// recorded selection is compared with the graph the query ran on (rows
// take that comparison), and the rows are replay --json's.
func replayAnswer(ctx context.Context, s *assemble.Session, rr *replay.Replayer, qs []replay.Query, rows []replay.Row) ([]jsonout.ReplayRow, error) {
	tr, err := s.AsRanReplay(ctx, rr)
	if err != nil {
		return nil, err
	}
	ran, err := assemble.ReplayAsRan(ctx, tr, qs, func(i int) bool { return rows[i].Err == nil })
	if err != nil {
		return nil, err
	}
	assemble.ApplyAsRan(qs, rows, ran)
	return answers.Replay(s, qs, rows, ran), nil
}

// buildTimeline lists the incident's events in the order the timeline
// analysis gives them: registry events, deletions, gate decisions,
// checkpoints and actions always; structural writes when unauthenticated,
// entries when untrusted after lineage, queries when they diverge. The
// rest of the stream is counted.
func buildTimeline(c *Case, s *assemble.Session, rr *replay.Replayer, rows []replay.Row, lim Limits) error {
	tl, err := s.Timeline(rr)
	if err != nil {
		return err
	}
	labels, err := s.Labels(s.Opts.Tau, s.Opts.FailClosed)
	if err != nil {
		return err
	}
	diverging := map[string]bool{}
	for _, r := range rows {
		diverging[r.QueryID] = r.Class == diff.Diverge
	}
	alertAction := map[string]bool{}
	for _, r := range c.Actions.Rows {
		alertAction[string(r.ID)] = r.Alert
	}
	t := &TimelineSection{Order: tl.Order(), Total: len(tl.Events), Events: []TimelineEvent{}, Answer: []jsonout.TimelineEvent{}}
	var picked []pickedEvent
	for i, e := range tl.Events {
		keep, alert := false, false
		switch e.Kind {
		case timeline.KindPrincipal, timeline.KindTombstone, timeline.KindGate, timeline.KindCheckpoint:
			keep = true
		case timeline.KindAction:
			keep, alert = true, alertAction[e.ID]
		case timeline.KindWrite:
			keep = e.Authenticated != nil && !*e.Authenticated
			alert = keep
		case timeline.KindEntry:
			if j, ok := s.Lineage.Index(e.ID); ok {
				keep = labels[j].IsUntrusted()
			}
			alert = keep
		case timeline.KindQuery:
			keep, alert = diverging[e.ID], diverging[e.ID]
		}
		if !keep {
			continue
		}
		what := e.Summary
		if e.Kind == timeline.KindWrite && alert {
			what = "unauthenticated: " + what
		}
		cov := s.EventCoverage(e.Kind, e.ID)
		answer := jsonout.NewTimelineEvent(i, e, cov)
		answer.Alert = alert
		picked = append(picked, pickedEvent{TimelineEvent{Time: time.Unix(0, e.TS).UTC().Format("2006-01-02 15:04:05.000"), Kind: string(e.Kind),
			Placed: string(e.Placed), Subject: Text(e.ID), Principal: Text(e.Principal), What: Text(what), Alert: alert, Coverage: cov}, answer})
	}
	t.Selected = len(picked)
	if len(picked) > lim.Timeline {
		// Too many to list: keep the alerts, in order, then count the rest.
		var alerts []pickedEvent
		for _, e := range picked {
			if e.view.Alert {
				alerts = append(alerts, e)
			}
		}
		picked = alerts
		t.AlertsOnly = true
	}
	if len(picked) > lim.Timeline {
		picked = picked[:lim.Timeline]
	}
	for _, e := range picked {
		t.Events = append(t.Events, e.view)
		t.Answer = append(t.Answer, e.answer)
	}
	if len(t.Events) > 0 {
		c.Timeline = t
	}
	return nil
}

// pickedEvent is a timeline event as the page lists it and as the case
// file holds it.
type pickedEvent struct {
	view   TimelineEvent
	answer jsonout.TimelineEvent
}

func queryDetail(r replay.Row, q replay.Query, writes map[string]*assemble.Write) QueryDetail {
	d := QueryDetail{ID: Text(r.QueryID), Text: Text(q.Text), K: r.K, Class: string(r.Class), IFCBlind: r.IFCBlind, Tie: r.TieDecided,
		Culprits: []Culprit{}, Lemma: []Lemma1{}}
	inG, inAuth := map[string]int{}, map[string]int{}
	for _, it := range r.G.Items {
		inG[it.NodeID] = it.Rank
	}
	for _, it := range r.GAuth.Items {
		inAuth[it.NodeID] = it.Rank
	}
	side := func(sel replay.Selection, other map[string]int) []Selected {
		out := []Selected{}
		for _, it := range sel.Items {
			ch := "kept"
			if o, ok := other[it.NodeID]; !ok {
				ch = "new"
			} else if o != it.Rank {
				ch = "moved"
			}
			out = append(out, Selected{Rank: it.Rank + 1, Node: Text(it.NodeID), Label: Text(it.Label), Score: it.Score, Authenticated: it.Authenticated, Change: ch})
		}
		return out
	}
	d.G, d.GAuth = side(r.G, inAuth), side(r.GAuth, inG)
	if r.Culprits != nil {
		d.CulpritsMinimal, d.Candidates = r.Culprits.Minimal, r.Culprits.Candidates
		for _, cu := range r.Culprits.Set {
			out := Culprit{Edge: Text(cu.EdgeID), Src: Text(cu.Src), Dst: Text(cu.Dst), Weight: cu.Weight, Rule: Text(cu.Label.Rule), RestoresAlone: cu.Restores}
			if w, ok := writes[cu.EdgeID]; ok {
				out.Writer, out.Sources = Text(w.Writer), len(w.Sources)
			}
			d.Culprits = append(d.Culprits, out)
		}
	}
	if r.Recorded != nil {
		m := "matches"
		if r.Recorded.Mismatch {
			m = "differs from"
		}
		d.Recorded = &m
	}
	for _, t := range r.Targets {
		d.Lemma = append(d.Lemma, Lemma1{Node: Text(t.NodeID), ResetMass: t.ResetMass, Floor: t.Floor, CaptureBound: t.CaptureBound, Evictable: t.Evictable})
	}
	return d
}

// shellJoin quotes args for a POSIX shell so the line can be pasted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
