package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/assemble/answers"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

const actionsUsage = "memscope actions SNAPSHOT --log DIR|URL [anchors] [--hmac-key FILE] [--tau T] [--fail-closed] [--policy FILE] [--json]"

func runActions(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("actions", actionsUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	var lf lineageFlags
	lf.register(fs, "policy")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT; usage: %s", actionsUsage)
	}
	if refused, err := refuseNative(pos[0], storemodel.CmdActions); refused {
		return exitUsage, err
	}
	if err := notSnapshot("actions", pos[0]); err != nil {
		return exitUsage, err
	}
	if ef.log == "" {
		return exitUsage, usagef("--log is required: the verdicts start from verification; usage: %s", actionsUsage)
	}
	opts, err := lf.options()
	if err != nil {
		return exitUsage, err
	}
	s, err := ef.open(ctx, pos[0], opts)
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	rows, err := s.ActionVerdicts(ctx)
	if err != nil {
		return exitUsage, err
	}
	out := answers.Actions(s, rows)
	status := exitOK
	for _, r := range rows {
		// A dispatched action that a defence refuses is an error-severity
		// result, as a refused dispatched action is for lineage.
		if r.Dispatched && len(r.RefusedBy()) > 0 {
			status = exitFindings
		}
	}
	// Rows that could not be read (a query an action followed, say) are
	// warned about and give 1, as in every command.
	status = warnLoadIssues(stderr, s, status)
	if *asJSON {
		return status, writeJSON(stdout, out)
	}
	writeActions(stdout, out)
	return status, nil
}

// writeActionDetail prints one action with every defence's verdict.
func writeActionDetail(w io.Writer, r jsonout.ActionRow) {
	disp := "not dispatched"
	if r.Dispatched {
		disp = "dispatched"
	}
	fmt.Fprintf(w, "\n%s (%s, %s)%s", r.Action, r.Tool, disp, bracket(r.Coverage))
	if r.Query != "" {
		fmt.Fprintf(w, " after query %s%s", r.Query, bracket(r.QueryCoverage))
	}
	if r.Headline {
		fmt.Fprint(w, "  HEADLINE: IFC passes it, yet only unauthenticated structure brought its justification in")
	}
	fmt.Fprintln(w)
	for _, d := range defences.Names {
		v := r.Verdicts[d]
		fmt.Fprintf(w, "  %-11s %-16s %s\n", d, v.Decision, v.Reason)
	}
}

func writeActions(w io.Writer, rows []jsonout.ActionRow) {
	fmt.Fprintf(w, "%-2s %-22s %-15s %-14s", "", "ACTION", "TOOL", "QUERY")
	for _, d := range defences.Names {
		fmt.Fprintf(w, " %-16s", d)
	}
	fmt.Fprintln(w)
	writeCoverageNote(w, "actions", rows, func(r jsonout.ActionRow) string { return r.Coverage })
	writeCoverageNote(w, "queries", rows, func(r jsonout.ActionRow) string { return r.QueryCoverage })
	for _, r := range rows {
		mark := "  "
		if r.Headline {
			mark = "! "
		}
		q := r.Query
		if q == "" {
			q = "-"
		}
		fmt.Fprintf(w, "%-2s %-22s %-15s %-14s", mark, clipShown(r.Action, 22), clipShown(r.Tool, 15), clipShown(q, 14))
		for _, d := range defences.Names {
			fmt.Fprintf(w, " %-16s", r.Verdicts[d].Decision)
		}
		fmt.Fprintln(w)
	}
	for _, r := range rows {
		writeActionDetail(w, r)
	}
}
