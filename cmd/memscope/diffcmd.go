package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

const diffUsage = "memscope diff A B [--queries FILE (native stores)] [--log DIR|URL] [--log-key VKEY|FILE | --anchors FILE] [--a-checkpoint N] [--b-checkpoint M] [--k 5] [--json | --inspect]"

// compactJSON encodes v on one line with every string sanitised, for
// documents written piece by piece.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, buf.Bytes()); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("diff", diffUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	cpA := fs.Int("a-checkpoint", 0, "take A at its N-th checkpoint (1-based; default: the latest, every row)")
	cpB := fs.Int("b-checkpoint", 0, "take B at its M-th checkpoint (1-based; default: the latest, every row)")
	k := fs.Int("k", 0, "top-k for the per-query selections (default: each query's own)")
	asJSON := fs.Bool("json", false, "print JSON (streamed: changes first, then the summary)")
	queries := fs.String("queries", "", "native stores: replay these queries on both copies (selections then and now)")
	inspectMode := fs.Bool("inspect", false, "open the inspector's diff mode on the differences (a terminal is needed)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 2 {
		return exitUsage, usagef("want two snapshots A and B; usage: %s", diffUsage)
	}
	nativeA, err := nativeOrSnapshot("diff", pos[0])
	if err != nil {
		return exitUsage, err
	}
	nativeB, err := nativeOrSnapshot("diff", pos[1])
	if err != nil {
		return exitUsage, err
	}
	if nativeA && nativeB {
		return runNativeDiff(ctx, stdout, pos[0], pos[1], *queries, ef, *asJSON)
	}
	an, err := ef.resolveFor(pos[0], pos[1], ef.log)
	if err != nil {
		return exitUsage, err
	}
	o := assemble.DiffOptions{A: pos[0], B: pos[1], Log: ef.log, LogKey: an.LogKey, LogKeyFromEvidence: an.Sources.LogKey, LogOptions: an.Log, CheckpointA: *cpA, CheckpointB: *cpB, K: *k}
	if *inspectMode {
		if *asJSON {
			return exitUsage, usagef("--inspect and --json exclude each other")
		}
		return runDiffInspector(ctx, o)
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	defer w.Flush()
	em := &changeEmitter{w: w, asJSON: *asJSON, a: pos[0], b: pos[1]}
	if *asJSON {
		fmt.Fprintf(w, "{\n  \"a\": %q,\n  \"b\": %q,\n  \"changes\": [", sanitize.Line(pos[0]), sanitize.Line(pos[1]))
	}
	res, err := assemble.DiffSnapshots(ctx, o, em.emit)
	if err != nil {
		return exitUsage, err
	}
	errs, _, _ := finding.Count(res.Findings)
	status := exitOK
	if errs > 0 {
		status = exitFindings
	}
	sum := newDiffSummary(res)
	if *asJSON {
		if err := sum.writeJSONTail(w, em.n, res.Report.Dropped, errs == 0); err != nil {
			return exitUsage, err
		}
		return status, nil
	}
	sum.writeText(w, em.n, res.Report.Dropped)
	return status, nil
}

// changeEmitter streams each row change as it is found: one compact JSON
// object per change inside the "changes" array, or one text line.
type changeEmitter struct {
	w      io.Writer
	asJSON bool
	a, b   string
	n      int
}

func (e *changeEmitter) emit(c diff.RowChange) error {
	if e.asJSON {
		b, err := compactJSON(jsonout.NewDiffChange(c, verify.LabelUnsigned))
		if err != nil {
			return err
		}
		sep := ",\n    "
		if e.n == 0 {
			sep = "\n    "
		}
		e.n++
		_, err = fmt.Fprintf(e.w, "%s%s", sep, b)
		return err
	}
	if e.n == 0 {
		fmt.Fprintf(e.w, "changes from A (%s) to B (%s):\n", sanitize.Line(e.a), sanitize.Line(e.b))
	}
	e.n++
	mark := map[diff.ChangeKind]string{diff.Added: "+", diff.Removed: "-", diff.Tombstoned: "x", diff.Changed: "~"}[c.Kind]
	note := ""
	switch {
	case c.Kind == diff.Removed && c.Signed:
		note = "  ERROR: no tombstone"
	case c.Kind == diff.Changed && c.Signed:
		note = "  ERROR: signed record changed"
	case c.Kind == diff.Tombstoned:
		note = "  (tombstone in B)"
	case !c.Signed:
		note = "  [unsigned]: nothing proves either version"
	}
	_, err := fmt.Fprintf(e.w, "  %s %-11s %-10s %s%s\n", mark, c.Table, c.Kind, sanitize.Line(c.Key), note)
	return err
}

// diffSummary is what diff says after the changes: consistency, per-table
// counts, per-query selections and findings.
type diffSummary struct {
	cons     jsonout.DiffConsistency
	tables   map[string]jsonout.DiffCounts
	queries  []jsonout.DiffSelection
	findings []finding.Finding
}

func newDiffSummary(res *assemble.DiffResult) diffSummary {
	s := diffSummary{
		cons:     jsonout.NewDiffConsistency(res.Consistency),
		tables:   map[string]jsonout.DiffCounts{},
		queries:  []jsonout.DiffSelection{},
		findings: res.Findings,
	}
	for t, c := range res.Report.Tables {
		s.tables[t] = jsonout.DiffCounts{Added: c.Added, Removed: c.Removed, Tombstoned: c.Tombstoned, Changed: c.Changed, Same: c.Same}
	}
	for _, q := range res.Queries {
		s.queries = append(s.queries, jsonout.DiffSelection{Query: q.Query, Then: q.Then, Now: q.Now, Class: q.Class, Problem: q.Problem})
	}
	if s.findings == nil {
		s.findings = []finding.Finding{}
	}
	return s
}

// writeJSONTail closes the streamed "changes" array (n changes written)
// and writes the summary's keys.
func (s diffSummary) writeJSONTail(w io.Writer, n, dropped int, ok bool) error {
	if n > 0 {
		fmt.Fprint(w, "\n  ")
	}
	fmt.Fprint(w, "],\n")
	for i, part := range []struct {
		key string
		v   any
	}{{"consistency", s.cons}, {"tables", s.tables}, {"queries", s.queries}, {"findings", s.findings}, {"findings_dropped", dropped}, {"ok", ok}} {
		b, err := compactJSON(part.v)
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == 5 {
			sep = "\n"
		}
		fmt.Fprintf(w, "  %q: %s%s", part.key, b, sep)
	}
	fmt.Fprintln(w, "}")
	return nil
}

func (s diffSummary) writeText(w io.Writer, n, dropped int) {
	if n == 0 {
		fmt.Fprintln(w, "no rows differ")
	}
	fmt.Fprintf(w, "\nconsistency: %s (%s)\n", s.cons.Status, sanitize.Line(s.cons.Detail))
	fmt.Fprintf(w, "  A: tree size %d, signature %s\n  B: tree size %d, signature %s\n", s.cons.A.Size, s.cons.A.Signature, s.cons.B.Size, s.cons.B.Signature)
	fmt.Fprintf(w, "\n%-12s %6s %8s %10s %8s %8s\n", "TABLE", "ADDED", "REMOVED", "TOMBSTONED", "CHANGED", "SAME")
	for _, t := range []string{"principals", "entries", "writes", "tombstones", "queries", "actions", "gate_events"} {
		c := s.tables[t]
		fmt.Fprintf(w, "%-12s %6d %8d %10d %8d %8d\n", t, c.Added, c.Removed, c.Tombstoned, c.Changed, c.Same)
	}
	if len(s.queries) > 0 {
		fmt.Fprintln(w, "\nselection on G then (A) and now (B), per query in both:")
		for _, q := range s.queries {
			if q.Problem != "" {
				fmt.Fprintf(w, "  %-20s not replayed: %s\n", sanitize.Line(q.Query), sanitize.Line(q.Problem))
				continue
			}
			fmt.Fprintf(w, "  %-20s %-8s then %s\n  %-20s %-8s now  %s\n", sanitize.Line(q.Query), q.Class, sanitize.Line(strings.Join(q.Then, ",")), "", "", sanitize.Line(strings.Join(q.Now, ",")))
		}
	}
	fmt.Fprintf(w, "\nfindings: %d\n", len(s.findings))
	for _, f := range s.findings {
		fmt.Fprintf(w, "  %-7s %-30s %s: %s\n", f.Severity, f.Code, sanitize.Line(f.Subject), sanitize.Line(f.Message))
	}
	if dropped > 0 {
		fmt.Fprintf(w, "  (%d more findings not kept)\n", dropped)
	}
}

// maxInspectedChanges bounds the changes the diff mode holds in memory;
// the rest are counted (the streaming text and JSON list them all).
const maxInspectedChanges = 200000

// diffData is the diff mode's view of a finished comparison.
func diffData(o assemble.DiffOptions, res *assemble.DiffResult, changes []diff.RowChange, omitted int) tui.DiffData {
	d := tui.DiffData{A: o.A, B: o.B, Consistency: res.Consistency.Status, Detail: res.Consistency.Detail, Findings: res.Findings,
		Changes: changes, Omitted: omitted}
	for _, t := range loader.KeyedTables {
		if c := res.Report.Tables[t]; c != nil {
			d.Tables = append(d.Tables, tui.DiffTable{Name: t, Added: c.Added, Removed: c.Removed, Tombstoned: c.Tombstoned, Changed: c.Changed, Same: c.Same})
		}
	}
	for _, q := range res.Queries {
		d.Queries = append(d.Queries, tui.DiffQuery{Query: q.Query, Class: q.Class, Then: q.Then, Now: q.Now, Problem: q.Problem})
	}
	return d
}

func runDiffInspector(ctx context.Context, o assemble.DiffOptions) (int, error) {
	if !term.IsTerminal(os.Stdout.Fd()) {
		return exitUsage, usagef("--inspect needs a terminal; use the text output or --json when piped")
	}
	var changes []diff.RowChange
	omitted := 0
	res, err := assemble.DiffSnapshots(ctx, o, func(c diff.RowChange) error {
		if len(changes) < maxInspectedChanges {
			changes = append(changes, c)
		} else {
			omitted++
		}
		return nil
	})
	if err != nil {
		return exitUsage, err
	}
	opts, err := tuiOptions(false, "")
	if err != nil {
		return exitUsage, err
	}
	if err := onTerminal(func() error { return tui.RunDiff(diffData(o, res, changes, omitted), opts) }); err != nil {
		return exitUsage, err
	}
	if errs, _, _ := finding.Count(res.Findings); errs > 0 {
		return exitFindings, nil
	}
	return exitOK, nil
}
