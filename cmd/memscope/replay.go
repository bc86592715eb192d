package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/assemble/answers"
	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/replay"
)

const replayUsage = "memscope replay SNAPSHOT --log DIR|URL [anchors] [--query ID] [--k 5] [--damping 0.5] [--policy NAME] [--without EDGE,...] [--restore EDGE,...] [--culprits fast|minimal|none] [--evictions] [--labels] [--as-of LEAF|TIME|QUERY] [--first-flip [--scan]] [--blast WRITE|principal:P [--from T]] [--assume-compromised P@T] [--json]\n       memscope replay STORE [--queries FILE | --query-embeddings FILE] [--format FORMAT] [--query ID] [--k 5] [--without EDGE,...] [--restore EDGE,...] [--labels] [--json]"

// replayFlags are replay's parsed flags.
type replayFlags struct {
	ef                                                evidenceFlags
	nq                                                nativeQueries
	queryID, policy, without, restore, culprits, asOf string
	blast, blastFrom, assume, format                  string
	k                                                 int
	damping                                           float64
	evictions, labels, flip, scan, asJSON             bool
}

// parseReplayFlags parses replay's arguments; a nil result means the
// command ends with code and err (usage was already printed or is err).
func parseReplayFlags(args []string, stderr io.Writer) (*replayFlags, string, int, error) {
	f := &replayFlags{}
	fs := newFlagSet("replay", replayUsage, stderr)
	f.ef.register(fs)
	fs.StringVar(&f.queryID, "query", "", "show one query in full")
	fs.IntVar(&f.k, "k", 0, "top-k (default: each query's recorded k, else 5)")
	fs.Float64Var(&f.damping, "damping", 0.5, "PPR damping (probability of following an edge)")
	fs.StringVar(&f.policy, "policy", "", "edge label policy: "+strings.Join(replay.PolicyNames(), ", ")+" (default "+replay.PolicyDefault+")")
	fs.StringVar(&f.without, "without", "", "what-if: replay on G with these edge ids removed (comma-separated)")
	fs.StringVar(&f.restore, "restore", "", "what-if: replay on G_auth with these unauthenticated edge ids put back (comma-separated)")
	fs.StringVar(&f.culprits, "culprits", string(replay.CulpritsFast), "culprit search: fast (bisect the heaviest writes, then reduce; seconds at most), minimal (delta debugging over every candidate), none")
	fs.BoolVar(&f.evictions, "evictions", false, "probe, for each passage selected on G, the smallest weight of one added no-source edge that evicts it (on by default with --query)")
	fs.BoolVar(&f.labels, "labels", false, "list every structural write with its label and the rule that decided it")
	fs.StringVar(&f.asOf, "as-of", "", "replay on the graph as it stood at a moment: leaf:N, a time (RFC 3339 or ts:NS) or a query id (when it ran)")
	fs.BoolVar(&f.flip, "first-flip", false, "for each diverging query, bisect the log for the first write after which G's selection differs from G_auth's")
	fs.BoolVar(&f.scan, "scan", false, "with --first-flip: replay after every unauthenticated write and list every interval of divergence")
	fs.StringVar(&f.blast, "blast", "", "blast radius of a structural write id, or of principal:NAME (its writes and entries)")
	fs.StringVar(&f.blastFrom, "from", "", "with --blast principal:NAME: only its records after this time (RFC 3339 or ns)")
	fs.StringVar(&f.assume, "assume-compromised", "", "PRINCIPAL@TIME: treat its records after TIME as unauthenticated and show what changes")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
	fs.StringVar(&f.format, "format", "", "read a native store of this format: "+storeFormats()+" (default: detected from the contents)")
	f.nq.register(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, "", exitUsage, nil
	}
	if len(pos) != 1 {
		return nil, "", exitUsage, usagef("want exactly one SNAPSHOT or STORE; usage: %s", replayUsage)
	}
	return f, pos[0], exitOK, nil
}

// snapshotUsageError refuses flag combinations a snapshot replay cannot
// honour, in the order the checks always ran.
func (f *replayFlags) snapshotUsageError() error {
	if f.nq.given() {
		return usagef("--queries and --query-embeddings are for native stores; a snapshot records its own queries")
	}
	if f.asOf != "" && (f.without != "" || f.restore != "") {
		return usagef("--as-of cannot be combined with --without or --restore")
	}
	if f.ef.log == "" {
		return usagef("--log is required: edge provenance comes from verifying the writes; usage: %s", replayUsage)
	}
	return nil
}

// light says whether the replay needs no entry beyond those the provenance
// pass reads: replaying the queries now and as they ran does not; moments,
// flips, blast radii, compromise assumptions and one query's actions (with
// every defence's verdict) read every entry.
func (f *replayFlags) light() bool {
	return f.asOf == "" && !f.flip && f.blast == "" && f.assume == "" && f.queryID == ""
}

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) (code int, err error) {
	f, snapshot, code, err := parseReplayFlags(args, stderr)
	if f == nil {
		return code, err
	}
	native, err := storeOrSnapshot("replay", f.format, snapshot)
	if err != nil {
		return exitUsage, err
	}
	if native {
		if f.asOf != "" || f.flip || f.blast != "" || f.assume != "" {
			return exitUsage, usagef("--as-of, --first-flip, --blast and --assume-compromised need a log's write order; a native store has none")
		}
		ro := replayOutput{queryID: f.queryID, without: f.without, restore: f.restore, labels: f.labels, asJSON: f.asJSON}
		return runNativeReplay(ctx, stdout, snapshot, f.format, f.nq, f.ef, ro, replay.Config{K: f.k, Culprits: true, Evictions: f.evictions || f.queryID != "", Solve: replay.SolveOptions{Damping: f.damping}}, f.policy)
	}
	if err := f.snapshotUsageError(); err != nil {
		return exitUsage, err
	}
	mode, err := replay.ParseCulpritMode(f.culprits)
	if err != nil {
		return exitUsage, usagef("--culprits: %v", err)
	}
	open := f.ef.open
	if f.light() {
		open = f.ef.openSmall
	}
	s, err := open(ctx, snapshot, assemble.Options{K: f.k, Damping: f.damping, ReplayPolicy: f.policy, CulpritMode: mode, Evictions: f.evictions || f.queryID != ""})
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	defer func() {
		if err == nil {
			code = warnLoadIssues(stderr, s, code)
		}
	}()
	return f.replaySession(ctx, s, snapshot, stdout, stderr)
}

// replaySession replays the opened snapshot's queries (or --query's one)
// and answers every question the flags ask of them.
func (f *replayFlags) replaySession(ctx context.Context, s *assemble.Session, snapshot string, stdout, stderr io.Writer) (int, error) {
	rp, err := s.Replayer(ctx)
	if err != nil {
		return exitUsage, err
	}
	if f.labels {
		ids, err := s.InputIDs(ctx)
		if err != nil {
			return exitUsage, err
		}
		return exitOK, writeLabels(stdout, rp, ids, f.asJSON)
	}
	if f.without != "" && f.restore != "" {
		return exitUsage, usagef("--without starts from G and --restore from G_auth: give one of them")
	}
	qs := s.ReplayQueries()
	if f.queryID != "" {
		id, err := idform.Resolve(queryIDs(s), f.queryID)
		if err != nil {
			return exitUsage, usagef("--query: %v in %s", err, snapshot)
		}
		q, _ := s.Query(id)
		qs = []replay.Query{q}
	}
	ended := phase(stderr, "replay", "replay")
	rows, err := rp.ReplayAll(ctx, qs, runtime.GOMAXPROCS(0))
	ended(err)
	if err != nil {
		return exitUsage, err
	}
	timeReplay := s.TimeReplay
	if f.light() {
		timeReplay = func(rp *replay.Replayer) (*timeline.Replay, error) { return s.AsRanReplay(ctx, rp) }
	}
	tr, err := timeReplay(rp)
	if err != nil {
		return exitUsage, err
	}
	if f.blast != "" && !strings.HasPrefix(f.blast, "principal:") {
		// Any form of a write id the views print (package idform).
		id, err := idform.Resolve(writeIDs(s), f.blast)
		if err != nil {
			return exitUsage, usagef("--blast: %v", err)
		}
		f.blast = id
	}
	if f.blast != "" || f.assume != "" {
		return runTimeQuestion(ctx, s, rp, tr, f.blast, f.blastFrom, f.assume, f.asJSON, stdout)
	}
	cut, ran, err := f.placeRows(ctx, tr, qs, rows)
	if err != nil {
		return exitUsage, err
	}
	var removed, restored []string
	if f.without != "" {
		if removed, err = resolveAll(writeIDs(s), strings.Split(f.without, ",")); err != nil {
			return exitUsage, usagef("--without: %v", err)
		}
	}
	if f.restore != "" {
		if restored, err = resolveAll(writeIDs(s), strings.Split(f.restore, ",")); err != nil {
			return exitUsage, usagef("--restore: %v", err)
		}
	}
	out, err := f.outputRows(ctx, s, rp, tr, qs, rows, ran, cut, removed, restored)
	if err != nil {
		return exitUsage, err
	}
	status := replayStatus(rows)
	// Names that print alike are said once, on stderr (the JSON answer is
	// the rows): the table shows each escaped, and each resolves to itself.
	for _, f := range s.GraphCollisions() {
		fmt.Fprintf(stderr, "memscope: warning: %s %s: %s\n", f.Code, sanitize.Line(f.Subject), sanitize.Line(f.Message))
	}
	if f.queryID != "" && len(out) == 1 {
		acts, err := s.ActionVerdicts(ctx)
		if err != nil {
			return exitUsage, err
		}
		for _, a := range answers.Actions(s, acts) {
			if a.Query == out[0].Query {
				out[0].Actions = append(out[0].Actions, a)
			}
		}
	}
	if f.asJSON {
		return status, writeJSON(stdout, out)
	}
	f.writeReplayText(stdout, rows, out, cut, removed != nil || restored != nil)
	return status, nil
}

// placeRows either replays every query as it ran (once, for the recorded
// check and the as-ran columns) or, with --as-of, replaces each row by the
// query replayed on the graph as it stood at that moment.
func (f *replayFlags) placeRows(ctx context.Context, tr *timeline.Replay, qs []replay.Query, rows []replay.Row) (*timeline.Cut, []assemble.AsRanRow, error) {
	if f.asOf == "" {
		ran, err := assemble.ReplayAsRan(ctx, tr, qs, func(i int) bool { return rows[i].Err == nil })
		if err != nil {
			return nil, nil, err
		}
		assemble.ApplyAsRan(qs, rows, ran)
		return nil, ran, nil
	}
	c, err := parseMoment(tr.Timeline(), f.asOf)
	if err != nil {
		// A query named in any form the views print (package idform).
		id, rerr := idform.Resolve(func(yield func(string) bool) {
			for _, q := range qs {
				if !yield(q.ID) {
					return
				}
			}
		}, f.asOf)
		if rerr != nil {
			return nil, nil, err
		}
		if c, err = parseMoment(tr.Timeline(), id); err != nil {
			return nil, nil, err
		}
	}
	for i, q := range qs {
		if rows[i].Err != nil {
			continue
		}
		if row, err := tr.At(ctx, q, c); ctx.Err() != nil {
			return nil, nil, ctx.Err()
		} else if err != nil {
			rows[i] = replay.Row{QueryID: q.ID, K: q.K, Class: diff.Failed, Err: err}
		} else {
			rows[i] = row
		}
	}
	return &c, nil, nil
}

// outputRows turns the replayed rows into --json rows with their as-of or
// as-ran columns (answers.Replay, as the report's), first flips and
// what-ifs. A query whose as-ran replay fails becomes a FAILED row in rows
// too, so the exit status sees it.
func (f *replayFlags) outputRows(ctx context.Context, s *assemble.Session, rp *replay.Replayer, tr *timeline.Replay, qs []replay.Query, rows []replay.Row, ran []assemble.AsRanRow, cut *timeline.Cut, removed, restored []string) ([]jsonout.ReplayRow, error) {
	out := answers.Replay(s, qs, rows, ran)
	var err error
	for i, r := range rows {
		if r.Err != nil {
			// This query failed alone; its row says why.
			continue
		}
		if cut != nil {
			out[i].AsOf = cut.Desc
		}
		if f.flip && r.Class == diff.Diverge && cut == nil {
			if out[i].FirstFlip, err = firstFlip(ctx, s, tr, qs[i], r, f.scan); err != nil {
				return nil, err
			}
		}
		if removed != nil || restored != nil {
			if out[i].WhatIf, err = whatIfRow(ctx, rp, qs[i], removed, restored, answers.Coverage(s)); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// writeReplayText prints replay's text answer: the table (or one query's
// detail), first flips, what-ifs and the actions that followed --query.
func (f *replayFlags) writeReplayText(stdout io.Writer, rows []replay.Row, out []jsonout.ReplayRow, cut *timeline.Cut, whatIf bool) {
	if cut != nil {
		desc := cut.Desc
		if placed := fmt.Sprintf("(placed by %s)", cut.Placed); !strings.Contains(desc, placed) {
			desc += " " + placed // some moments already say how they were placed
		}
		fmt.Fprintf(stdout, "as of %s\n\n", desc)
	}
	if f.queryID == "" {
		writeReplayTable(stdout, out)
	}
	for _, r := range out {
		if r.FirstFlip != nil {
			writeFlip(stdout, r.Query, r.FirstFlip)
		}
	}
	if f.queryID != "" || whatIf {
		for i, r := range rows {
			writeReplayDetail(stdout, r, out[i])
		}
	}
	if f.queryID != "" && len(out) == 1 {
		fmt.Fprintf(stdout, "\nactions that followed this query's selection: %d\n", len(out[0].Actions))
		for _, a := range out[0].Actions {
			writeActionDetail(stdout, a)
		}
	}
}

// replayStatus is exit 1 when the rows carry an error-severity finding
// (an IFC-blind divergence), as verify does for its errors; the findings
// are the ones the inspector lists.
func replayStatus(rows []replay.Row) int { return exitFor(assemble.ReplayFindings(rows)) }

func writeReplayTable(w io.Writer, rows []jsonout.ReplayRow) {
	writeCoverageNote(w, "queries", rows, func(r jsonout.ReplayRow) string { return r.Coverage })
	writeCoverageNote(w, "nodes", rows, func(r jsonout.ReplayRow) string { return itemsCoverage(r.TopKG, r.TopKAuth) })
	fmt.Fprintf(w, "%-20s %-8s %-8s %-9s %-9s %-6s %-4s %-8s %-18s %s\n", "QUERY", "CLASS", "AS-RAN", "RECORDED", "IFC-BLIND", "RANK1", "TIE", "CULPRITS", "ROW", "TEXT")
	for _, r := range rows {
		asRan, rec := "-", "-"
		if r.AsRan != nil {
			asRan = r.AsRan.Class
		}
		if r.RecordedMismatch != nil {
			rec = "ok"
			if *r.RecordedMismatch {
				rec = "MISMATCH"
			}
		}
		blind, tie, rank1 := "-", "-", "-"
		if r.IFCBlind {
			blind = "YES"
		}
		if r.Rank1Changed {
			rank1 = "FLIP"
		}
		if r.Tie {
			tie = "tie"
		}
		text := r.Text
		if r.Error != "" {
			text = "not replayed: " + r.Error
		}
		fmt.Fprintf(w, "%-20s %-8s %-8s %-9s %-9s %-6s %-4s %-8d %-18s %s\n", clipShown(r.Query, 20), r.Class, asRan, rec, blind, rank1, tie, len(r.Culprits), rowLabel(r.Coverage), text)
	}
}

// rowLabel is a coverage label for a table column: "signed" for a covered
// row.
func rowLabel(label string) string {
	if label == "" {
		return "signed"
	}
	return label
}

// itemsCoverage is the first coverage label among selected items ("" when
// every node row is covered).
func itemsCoverage(lists ...[]jsonout.ReplayItem) string {
	for _, its := range lists {
		for _, it := range its {
			if it.Coverage != "" {
				return it.Coverage
			}
		}
	}
	return ""
}

func writeReplayDetail(w io.Writer, r replay.Row, j jsonout.ReplayRow) {
	fmt.Fprintf(w, "\nquery %s%s: %s\n", j.Query, bracket(j.Coverage), j.Text)
	if j.Coverage != "" {
		fmt.Fprintf(w, "  (%s)\n", assemble.UnsignedNote("this query row", j.Coverage))
	}
	fmt.Fprintf(w, "class %s", j.Class)
	if j.IFCBlind {
		fmt.Fprint(w, ", IFC-blind: every passage selected on G is authenticated, yet unauthenticated structure changed the set")
	}
	if j.Rank1Changed {
		fmt.Fprint(w, "; rank 1 changed: the passage read first on G is not G_auth's")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\n  %-4s %-34s %-10s | %-34s %-10s %s\n", "RANK", "G_auth (authenticated writes only)", "SCORE", "G (every write)", "SCORE", "CHANGE")
	for i := 0; i < max(len(j.TopKG), len(j.TopKAuth)); i++ {
		var a, g jsonout.ReplayItem
		if i < len(j.TopKAuth) {
			a = j.TopKAuth[i]
		}
		if i < len(j.TopKG) {
			g = j.TopKG[i]
		}
		change := ""
		if i < len(r.G.Items) {
			change = changeOf(r.Changes, r.G.Items[i].NodeID)
		}
		fmt.Fprintf(w, "  %-4d %-34s %-10.6f | %-34s %-10.6f %s\n", i+1, clipShown(a.Node, 34), a.Score, clipShown(g.Node, 34), g.Score, change)
	}
	if l := itemsCoverage(j.TopKG, j.TopKAuth); l != "" {
		fmt.Fprintf(w, "  (%s: which entry each passage is, and so whether it is authenticated)\n", assemble.UnsignedNote("nodes", l))
	}
	if len(j.Culprits) > 0 {
		minimal := "yes"
		switch {
		case j.CulpritsTimedOut:
			minimal = "not proven, the search ran out of time (try --culprits minimal)"
		case !j.CulpritsMinimal:
			minimal = "not proven, the search ran out of solves"
		}
		fmt.Fprintf(w, "\nculprits (%s search; removing all of them restores the G_auth selection; 1-minimal: %s):\n", j.CulpritsMode, minimal)
		for _, c := range j.CulpritDetail {
			fmt.Fprintf(w, "  %s  %s -> %s  weight %g  (%s; removing it alone: %s)\n", c.Edge, c.Src, c.Dst, c.Weight, c.Rule, c.ChangesAlone)
		}
	}
	if len(j.Lemma1) > 0 {
		fmt.Fprintln(w, "\nLemma 1 (each passage's teleport floor against the capture that one injected edge from the strongest")
		fmt.Fprintln(w, "other seed allows; its margin to the (k+1)-th on G; the smallest single no-source edge that evicts it):")
		for _, t := range j.Lemma1 {
			ev := "safe"
			if t.Evictable {
				ev = "EVICTABLE"
			}
			margin := "not selected on G"
			if t.Margin != nil {
				margin = fmt.Sprintf("rank %d, margin %.4f", t.RankG, *t.Margin)
			}
			fmt.Fprintf(w, "  %-34s floor %.4f  bound %.4f (seed %s)  %-9s  %s", clipShown(t.Node, 34), t.Floor, t.CaptureBound, clipShown(t.Seed, 24), ev, margin)
			switch e := t.Eviction; {
			case e == nil:
			case e.AnyPositive:
				fmt.Fprintf(w, "; evicted by %s -> %s at any positive weight (tied at the cut-off)", clipShown(e.Seed, 24), clipShown(e.Sink, 24))
			case e.Found:
				fmt.Fprintf(w, "; evicted by %s -> %s at weight %.4g", clipShown(e.Seed, 24), clipShown(e.Sink, 24), e.Weight)
			default:
				fmt.Fprintf(w, "; no single edge up to weight %g evicts it", e.Max)
			}
			fmt.Fprintln(w)
		}
	}
	for _, im := range j.Immune {
		fmt.Fprintf(w, "\nimmune selector %s: %s on G vs G_auth\n", im.Selector, im.Class)
	}
	if j.WhatIf != nil {
		fmt.Fprintf(w, "\nwhat-if (edges absent: %s): vs G %s, vs G_auth %s\n", strings.Join(j.WhatIf.Removed, ","), j.WhatIf.VsG, j.WhatIf.VsGAuth)
		for _, it := range j.WhatIf.TopK {
			fmt.Fprintf(w, "  %-4d %-34s %.6f\n", it.Rank, clipShown(it.Node, 34), it.Score)
		}
	}
}

// changeOf describes how an item selected on G moved relative to G_auth.
func changeOf(res diff.Result, node string) string {
	for _, c := range res.Items {
		if c.ID == node {
			return c.Change.Arrow() + " " + string(c.Change)
		}
	}
	return ""
}

// clip fits a table cell to n bytes with a ~ mark, on a terminal only
// (clipColumns): written to a file or a pipe every cell is whole, since
// what is read later must not lose an id's or a message's end.
func clip(s string, n int) string {
	return clipShown(sanitize.Line(s), n)
}

// clipShown is clip for text already sanitised (the JSON rows' fields):
// the sanitiser escapes its own escapes, so a second pass would show a
// printed id as something else.
func clipShown(s string, n int) string {
	if !clipColumns || len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}

type jsonLabel struct {
	Edge          string  `json:"edge"`
	Src           string  `json:"src"`
	Dst           string  `json:"dst"`
	Weight        float64 `json:"weight"`
	Writer        string  `json:"writer"`
	Sources       int     `json:"sources"`
	Authenticated bool    `json:"authenticated"`
	Rule          string  `json:"rule"`
	Declared      bool    `json:"declared"`
	// InputID is the id an import's input gave the write (import notes),
	// with its coverage label ("" signed and verified).
	InputID         string `json:"input_id,omitempty"`
	InputIDCoverage string `json:"input_id_coverage,omitempty"`
}

// writeLabels lists each write's label under the replayer's policy, with
// the rule that decided it; importer-declared labels say "declared".
func writeLabels(w io.Writer, rp *replay.Replayer, ids map[string]assemble.InputID, asJSON bool) error {
	edges, labels := rp.Graph().Edges(), rp.Labels()
	out := make([]jsonLabel, len(edges))
	for i, e := range edges {
		out[i] = jsonLabel{Edge: sanitize.Line(e.ID), Src: sanitize.Line(e.Src), Dst: sanitize.Line(e.Dst), Weight: e.Weight, Writer: sanitize.Line(e.Prov.Writer),
			Sources: len(e.Prov.Sources), Authenticated: labels[i].Authenticated, Rule: sanitize.Line(labels[i].Rule), Declared: labels[i].Declared}
		if in, ok := ids[e.ID]; ok {
			out[i].InputID, out[i].InputIDCoverage = sanitize.Line(in.ID), in.Coverage
		}
	}
	if asJSON {
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "%-36s %-15s %-8s %s\n", "EDGE", "LABEL", "WEIGHT", "RULE / WRITER / ENDPOINTS")
	for _, l := range out {
		label := "authenticated"
		if !l.Authenticated {
			label = "UNAUTH"
		}
		if l.Declared {
			label += " (declared)"
		}
		input := ""
		if l.InputID != "" {
			input = "; input id " + l.InputID
			if l.InputIDCoverage != "" {
				input += " [" + l.InputIDCoverage + "]"
			}
		}
		fmt.Fprintf(w, "%-36s %-15s %-8g %s; %s; %s -> %s%s\n", l.Edge, label, l.Weight, l.Rule, l.Writer, l.Src, l.Dst, input)
	}
	return nil
}

// sanitizeAll sanitises each string (ids echoed from the command line or
// the evidence).
func sanitizeAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = sanitize.Line(s)
	}
	return out
}
