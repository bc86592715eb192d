package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/verify"
)

const lineageUsage = "memscope lineage SNAPSHOT [ENTRY] [--log DIR|URL [anchors]] [--tau T] [--fail-closed] [--depth N] [--policy FILE] [--json | --dot | --svg FILE]\n       memscope lineage STORE [MEMORY | NODE] [--format FORMAT] [--json]\n       memscope lineage sweep SNAPSHOT [--json]"

func runLineage(ctx context.Context, args []string, stdout, stderr io.Writer) (code int, err error) {
	if len(args) > 0 && args[0] == "sweep" {
		return runSweep(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("lineage", lineageUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	var lf lineageFlags
	lf.register(fs, "policy")
	depth := fs.Int("depth", 3, "ancestor and descendant depth drawn around ENTRY")
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "", "read a native store of this format: "+storeFormats()+" (default: detected from the contents)")
	asDOT := fs.Bool("dot", false, "print the ENTRY neighbourhood as Graphviz DOT")
	svg := fs.String("svg", "", "render the ENTRY neighbourhood to this SVG file (needs graphviz's dot)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) < 1 || len(pos) > 2 {
		return exitUsage, usagef("usage: %s", lineageUsage)
	}
	native, err := storeOrSnapshot("lineage", *format, pos[0])
	if err != nil {
		return exitUsage, err
	}
	if native {
		memory := ""
		if len(pos) == 2 {
			memory = pos[1]
		}
		return runNativeLineage(ctx, stdout, pos[0], *format, memory, *asJSON)
	}
	opts, err := lf.options()
	if err != nil {
		return exitUsage, err
	}
	s, err := ef.openSmall(ctx, pos[0], opts)
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	if ef.log != "" {
		// MemLineage verifies before labelling: an entry that fails
		// verification is External, a lawfully tombstoned ancestor keeps
		// its place. Verifying before the entries are read keeps verify's
		// working set and the lineage graph from adding up.
		if _, err := s.Verify(ctx, nil); err != nil {
			return exitUsage, err
		}
	}
	// The store-wide summary needs the graph, not the entries' rows.
	if len(pos) == 1 {
		err = s.LoadLineage(ctx)
	} else {
		err = s.Load(ctx, nil)
	}
	if err != nil {
		return exitUsage, err
	}
	defer func() {
		if err == nil {
			code = warnLoadIssues(stderr, s, code)
		}
	}()
	if len(pos) == 1 {
		if *asDOT || *svg != "" {
			return exitUsage, usagef("--dot and --svg draw one ENTRY's neighbourhood; name an entry")
		}
		sum, err := s.LineageSummary(lf.tau, lf.failClosed)
		if err != nil {
			return exitUsage, err
		}
		status := exitFor(assemble.LineageFindings(sum))
		if *asJSON {
			return status, writeJSON(stdout, sum)
		}
		writeLineageSummary(stdout, sum)
		return status, nil
	}
	id, err := idform.Resolve(entryIDs(s), pos[1])
	if err != nil {
		return exitUsage, usagef("ENTRY: %v", err)
	}
	view, err := s.EntryLineage(id, lf.tau, lf.failClosed, *depth)
	if err != nil {
		return exitUsage, err
	}
	if r, err := s.Snap.EntryByID(ctx, id); err == nil && r.SessionID != "" {
		view.Session, view.SessionCoverage = r.SessionID, s.Coverage(verify.TableSessions, id)
	}
	// The entry's exit code is the summary's for the findings about it: a
	// laundered entry is exit 1 here as in the store-wide summary.
	status, err := entryStatus(s, id, lf.tau, lf.failClosed)
	if err != nil {
		return exitUsage, err
	}
	switch {
	case *asJSON:
		return status, writeJSON(stdout, view)
	case *asDOT:
		_, err := io.WriteString(stdout, view.DOT)
		return status, err
	case *svg != "":
		if err := assemble.RenderSVG(ctx, view.DOT, *svg); err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "wrote %s\n", *svg)
		return status, nil
	}
	writeEntryLineage(stdout, view)
	return status, nil
}

// entryStatus is the exit code of memscope lineage SNAPSHOT ENTRY: that of
// the store-wide summary's findings whose subject is the entry.
func entryStatus(s *assemble.Session, id string, tau float64, failClosed bool) (int, error) {
	sum, err := s.LineageSummary(tau, failClosed)
	if err != nil {
		return exitUsage, err
	}
	var about []finding.Finding
	for _, f := range assemble.LineageFindings(sum) {
		if f.Subject == id || f.Subject == "entry "+id {
			about = append(about, f)
		}
	}
	return exitFor(about), nil
}

func writeLineageSummary(w io.Writer, s *assemble.LineageSummary) {
	mode := "fail-open"
	if s.FailClosed {
		mode = "fail-closed"
	}
	fmt.Fprintf(w, "lineage at tau %g (%s), %d entries\n", s.Tau, mode, s.Entries)
	if s.Verified {
		fmt.Fprintln(w, "base labels from verification: entries that failed it are External; tombstoned ancestors keep their signed labels")
	} else {
		fmt.Fprintln(w, "base labels from writer names only: not verified (give --log and anchors to verify first)")
	}
	for t := lineage.Trusted; t <= lineage.External; t++ {
		fmt.Fprintf(w, "  %-18s %d\n", t.String(), s.Counts[t.String()])
	}
	if s.Verdicts != "checked" {
		fmt.Fprintf(w, "\nlaundering (recorded trust safer than lineage gives): %s\n", assemble.NotChecked)
		fmt.Fprintf(w, "\ngate audit: %d action(s), verdicts %s\n", len(s.Gate), s.VerdictsWhy)
		for _, g := range s.Gate {
			fmt.Fprintf(w, "    %-22s %-15s %s\n", sanitize.Line(g.Action), sanitize.Line(g.Tool), g.Verdict)
		}
		writeDAGFindings(w, s.Findings)
		return
	}
	fmt.Fprintf(w, "\nlaundering (recorded trust safer than lineage gives): %d\n", len(s.Laundering))
	for _, l := range s.Laundering {
		fmt.Fprintf(w, "  %s  recorded %s, recomputed %s\n", sanitize.Line(l.Entry), l.Recorded, l.Recomputed)
	}
	fmt.Fprintf(w, "\ngate audit: %d action(s), %d dispatched that the gate would have refused\n", len(s.Gate), len(s.RefusedActions))
	writeCoverageNote(w, "actions", s.Gate, func(g assemble.GateRow) string { return g.Coverage })
	for _, g := range s.Gate {
		mark := "  "
		if g.ShouldHaveRefused {
			mark = "! "
		}
		disp := "not dispatched"
		if g.Dispatched {
			disp = "dispatched"
		}
		fmt.Fprintf(w, "  %s%-22s %-15s %-17s %s%s: %s\n", mark, sanitize.Line(g.Action), sanitize.Line(g.Tool), g.Verdict, disp, bracket(g.Coverage), sanitize.Line(g.Reason))
	}
	for _, r := range s.RefusedActions {
		fmt.Fprintf(w, "\n  %s%s should have been refused (%s):\n", sanitize.Line(r.Action), bracket(r.Coverage), r.Verdict)
		for _, x := range r.Reasons {
			fmt.Fprintf(w, "    - %s\n", sanitize.Line(x))
		}
	}
	writeDAGFindings(w, s.Findings)
}

// writeDAGFindings lists the lineage findings other than laundering (which
// the summary lists above them).
func writeDAGFindings(w io.Writer, fs []finding.Finding) {
	other := 0
	for _, f := range fs {
		if f.Code != lineage.CodeLaundering {
			other++
		}
	}
	if other > 0 {
		fmt.Fprintf(w, "\nDAG findings:\n")
		for _, f := range fs {
			if f.Code != lineage.CodeLaundering {
				fmt.Fprintf(w, "  %-8s %-24s %s\n", f.Severity, f.Code, sanitize.Line(f.Message))
			}
		}
	}
}

func writeEntryLineage(w io.Writer, v *assemble.EntryLineageView) {
	e := v.Explanation
	fmt.Fprintf(w, "entry %s  recorded %s, recomputed %s at tau %g\n", sanitize.Line(e.Entry), e.Recorded, e.Recomputed, e.Tau)
	if v.Session != "" {
		fmt.Fprintf(w, "session %s%s\n", sanitize.Line(v.Session), bracket(v.SessionCoverage))
	}
	fmt.Fprintln(w)
	for _, row := range v.Rows {
		fmt.Fprintln(w, row)
	}
	fmt.Fprintln(w)
	if e.Unverified != "" {
		fmt.Fprintf(w, "unverified: the record failed verification (%s): External whatever its lineage\n", sanitize.Line(e.Unverified))
	}
	if e.TotalOrigins == 0 {
		fmt.Fprintln(w, "no External ancestor reaches this entry")
		return
	}
	fmt.Fprintf(w, "External ancestors: %d (strongest path from each, weakest edge first to break)\n", e.TotalOrigins)
	for _, o := range e.Origins {
		status := "propagates: every edge is strong"
		if o.Break >= 0 {
			b := o.Path[o.Break]
			status = fmt.Sprintf("breaks at %s -> %s (weight %g <= tau)", sanitize.Line(b.Parent), sanitize.Line(b.Child), b.Weight)
		}
		fmt.Fprintf(w, "  from %s, bottleneck %g: %s\n", sanitize.Line(o.Ancestor), o.Bottleneck, status)
		for _, p := range o.Path {
			kind := "strong"
			if !p.Strong {
				kind = "weak"
			}
			fmt.Fprintf(w, "    %s -> %s  w=%g  %s\n", sanitize.Line(p.Parent), sanitize.Line(p.Child), p.Weight, kind)
		}
	}
}

func runSweep(ctx context.Context, args []string, stdout, stderr io.Writer) (code int, err error) {
	fs := newFlagSet("lineage sweep", "memscope lineage sweep SNAPSHOT [--json]", stderr)
	asJSON := fs.Bool("json", false, "print JSON: a list of {schedule, tau, k, propagated}")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("usage: memscope lineage sweep SNAPSHOT [--json]")
	}
	var ef evidenceFlags
	s, err := ef.open(ctx, pos[0], assemble.Options{})
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	defer func() {
		if err == nil {
			code = warnLoadIssues(stderr, s, code)
		}
	}()
	rows, raw, err := s.Sweep()
	if err != nil {
		return exitUsage, err
	}
	if *asJSON {
		return exitOK, writeJSON(stdout, rows)
	}
	if len(rows) == 0 {
		// An answer, not a failure to run: the store holds no chain to
		// sweep (it used to exit 2).
		fmt.Fprintf(stdout, "no sleeper chains in %s (an External root followed by single-parent derivations): nothing to sweep\n", sanitize.Line(pos[0]))
		return exitOK, nil
	}
	fmt.Fprintln(stdout, "tau x K: 1 = the External label reaches the chain tip (the gate refuses), 0 = lost")
	fmt.Fprint(stdout, lineage.RenderSweep(raw))
	return exitOK, nil
}
