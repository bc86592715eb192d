package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/ocsf"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/assemble/answers"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/replay"
)

const timelineUsage = "memscope timeline SNAPSHOT [--log DIR|URL [anchors]] [--from T] [--to T] [--principal P] [--json]\n       memscope timeline STORE [--json]"

// parseWhen reads a moment given as RFC 3339 text or as nanoseconds since
// the Unix epoch (the unit records carry).
func parseWhen(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, usagef("%q is neither RFC 3339 time nor nanoseconds since the epoch", s)
	}
	return t.UnixNano(), nil
}

func formatWhen(ns int64) string { return jsonout.FormatTime(ns) }

func runTimeline(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("timeline", timelineUsage, stderr)
	var ef evidenceFlags
	ef.register(fs)
	from := fs.String("from", "", "first moment shown (RFC 3339 or ns since the epoch)")
	to := fs.String("to", "", "last moment shown (RFC 3339 or ns since the epoch)")
	principal := fs.String("principal", "", "only events by this principal")
	asJSON := fs.Bool("json", false, "print JSON")
	outFormat := fs.String("output-format", "", "timesketch: Timesketch's JSONL import (message, datetime, timestamp_desc and memscope's fields); ocsf: the timeline's findings as OCSF Detection Findings")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT or STORE; usage: %s", timelineUsage)
	}
	if *outFormat != outputText && *outFormat != outputTimesketch && *outFormat != outputOCSF {
		return exitUsage, usagef("--output-format %q: want timesketch or ocsf", *outFormat)
	}
	native, err := nativeOrSnapshot("timeline", pos[0])
	if err != nil {
		return exitUsage, err
	}
	if native {
		return runNativeTimeline(ctx, stdout, pos[0], ef, *asJSON)
	}
	var f timeline.Filter
	if *from != "" {
		if f.From, err = parseWhen(*from); err != nil {
			return exitUsage, err
		}
	}
	if *to != "" {
		if f.To, err = parseWhen(*to); err != nil {
			return exitUsage, err
		}
	}
	f.Principal = *principal
	s, err := ef.open(ctx, pos[0], assemble.Options{})
	if err != nil {
		return exitUsage, err
	}
	defer s.Close()
	var rp *replay.Replayer
	// The timeline's findings are the verification's it labels the writes
	// with: the exit code follows them (0 without --log: nothing checked).
	code := exitOK
	var verified []finding.Finding
	if ef.log != "" {
		if rp, err = s.Replayer(ctx); err != nil {
			return exitUsage, err
		}
		rep, err := s.Verify(ctx, nil)
		if err != nil {
			return exitUsage, err
		}
		verified = rep.Findings
		code = exitFor(verified)
	}
	tl, err := s.Timeline(rp)
	if err != nil {
		return exitUsage, err
	}
	out := answers.Timeline(s, pos[0], tl, f)
	switch *outFormat {
	case outputTimesketch:
		return code, writeTimesketch(stdout, pos[0], out.Events)
	case outputOCSF:
		return code, writeOCSF(stdout, verified, ocsf.Context{Source: pos[0], Extra: map[string]any{"log": ef.log}})
	}
	if *asJSON {
		return code, writeJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "%s: %d events, ordered by %s\n", sanitize.Line(pos[0]), len(tl.Events), orderWords(out.Order))
	fmt.Fprintf(stdout, "write labels: %s\n", out.Labels)
	labelled := false
	for _, e := range out.Events {
		labelled = labelled || e.Coverage != ""
	}
	if labelled {
		fmt.Fprintf(stdout, "[unsigned]: the event's row is covered by no signature or tag, a claim; [not checked]: verification did not run (no --log)\n")
	}
	writeTimelineTable(stdout, out.Events)
	if out.Order != "log" {
		fmt.Fprintln(stdout, "\n* placed by recorded time (not in the log): the time is the snapshot's claim")
	}
	if ef.log != "" {
		errs, warns := 0, 0
		for _, f := range verified {
			switch f.Severity {
			case finding.SevError:
				errs++
			case finding.SevWarning:
				warns++
			}
		}
		fmt.Fprintf(stdout, "\nverification: %d error(s), %d warning(s) (memscope verify lists them; the exit code follows them)\n", errs, warns)
	}
	return code, nil
}

// writeTimelineTable prints the events, one line each: a time placed by
// the recorded time (not the log) is starred, an unauthenticated write and
// an event's coverage label lead its summary.
func writeTimelineTable(stdout io.Writer, events []jsonout.TimelineEvent) {
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "%-5s %-6s %-24s %-10s %-36s %-16s %s\n", "#", "LEAF", "TIME", "KIND", "ID", "PRINCIPAL", "WHAT")
	for _, e := range events {
		leaf := "-"
		if e.Leaf != nil {
			leaf = strconv.FormatInt(*e.Leaf, 10)
		}
		when := e.Time
		if e.Placed == string(timeline.ByTime) {
			when += "*"
		}
		what := e.Summary
		if e.Authenticated != nil && !*e.Authenticated {
			what = "UNAUTH " + what
		}
		if e.Coverage != "" {
			what = "[" + e.Coverage + "] " + what
		}
		fmt.Fprintf(stdout, "%-5d %-6s %-24s %-10s %-36s %-16s %s\n", e.Index, leaf, when, e.Kind, clip(e.ID, 36), clip(e.Principal, 16), sanitize.Line(what))
	}
}

func orderWords(o string) string {
	switch o {
	case "log":
		return "log position"
	case "time":
		return "recorded time (nothing is in the log)"
	}
	return "log position; events not in the log (" + strings.Join([]string{"queries", "actions", "gate events"}, ", ") + ") placed by recorded time"
}
