package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/ocsf"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/verify"
)

const verifyUsage = "memscope verify SNAPSHOT --log DIR|URL [--log-key VKEY] [--trust KEYS] [--anchors FILE] [--hmac-key FILE] [--against [SERVER=]memory.jsonl] [--json]\n       memscope verify STORE [--format FORMAT] [--hmac-key FILE [--smsr-m 20 --smsr-k 5 --smsr-n 5]] [--json]"

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("verify", verifyUsage, stderr)
	var af anchorFlags
	af.register(fs)
	logLoc := fs.String("log", "", "the Merkle log: a tlog-tiles directory or an http(s) URL serving one")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the report")
	outFormat := fs.String("output-format", "", "ocsf: print each finding as an OCSF Detection Finding (class 2004), one JSON line each")
	format := fs.String("format", "", "read a native store of this format: "+storeFormats()+" (default: detected from the contents)")
	var cert certFlags
	cert.register(fs)
	against := fs.String("against", "", "reconcile the MCP memory server's file ([SERVER=]memory.jsonl; SERVER defaults to memory) with what memscope record recorded")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 1 {
		return exitUsage, usagef("want exactly one SNAPSHOT or STORE; usage: %s", verifyUsage)
	}
	native, err := storeOrSnapshot("verify", *format, pos[0])
	if err != nil {
		return exitUsage, err
	}
	if native {
		return runNativeVerify(ctx, stdout, pos[0], *format, evidenceFlags{anchorFlags: af, log: *logLoc}, cert, *asJSON)
	}
	if *outFormat != outputText && *outFormat != outputOCSF {
		return exitUsage, usagef("--output-format %q: want ocsf", *outFormat)
	}
	if *logLoc == "" {
		return exitUsage, usagef("--log is required; usage: %s", verifyUsage)
	}
	an, err := af.resolveFor(pos[0], *logLoc)
	if err != nil {
		return exitUsage, err
	}
	rep, err := verify.Run(ctx, verify.Options{Snapshot: pos[0], Log: *logLoc, LogKey: an.LogKey, TrustRoots: an.Roots, HMACKey: an.HMAC, LogOptions: an.Log, AnchorSources: an.Sources})
	if err != nil {
		return exitUsage, err
	}
	if *against != "" {
		return verifyAgainst(ctx, stdout, rep, *against, *asJSON)
	}
	switch {
	case *outFormat == outputOCSF:
		if err := writeOCSF(stdout, rep.Findings, ocsf.Context{Source: pos[0], Extra: map[string]any{"log": *logLoc}}); err != nil {
			return exitUsage, err
		}
	case *asJSON:
		if err := writeJSON(stdout, rep); err != nil {
			return exitUsage, err
		}
	default:
		writeVerifyReport(stdout, rep)
	}
	if !rep.OK {
		return exitFindings, nil
	}
	return exitOK, nil
}

const maxPerCode = 8

func writeVerifyReport(w io.Writer, r *verify.Report) {
	fmt.Fprintf(w, "memscope verify %s\n", sanitize.Line(r.Snapshot))
	fmt.Fprintf(w, "  log       %s (tree size %d, root %s)\n", sanitize.Line(r.Log), r.TreeSize, b64(r.RootHash))
	fmt.Fprintf(w, "  anchors   log key %s, registry %s\n", r.Anchors.LogKey, r.Anchors.Registry)
	fmt.Fprintf(w, "  records   %d (entries %d, structural writes %d, registry events %d, tombstones %d); checkpoints recorded %d\n\n",
		r.Records, r.Entries, r.Edges, r.Principals, r.Tombstones, r.Checkpoints)
	counts := map[finding.Family][2]int{}
	for _, f := range r.Findings {
		c := counts[f.Family]
		if f.Severity == finding.SevError {
			c[0]++
		} else {
			c[1]++
		}
		counts[f.Family] = c
	}
	for _, fam := range verify.Families {
		c := counts[fam]
		status := "PASS"
		switch {
		case fam == finding.FamHMAC && !r.HMACChecked:
			status = "not checked (no --hmac-key)"
		case c[0] > 0:
			status = "FAIL"
		case c[1] > 0:
			status = "WARN"
		}
		detail := ""
		if c[0]+c[1] > 0 {
			detail = fmt.Sprintf("  %d error(s), %d warning(s)", c[0], c[1])
		}
		fmt.Fprintf(w, "  %-11s %s%s\n", fam, status, detail)
	}
	fmt.Fprintln(w, "\ncoverage (rows covered by a signature or tag):")
	for _, c := range r.Coverage {
		fmt.Fprintf(w, "  %-19s %6d/%-6d %-8s by %s\n", c.Table, c.Signed, c.Rows, c.Status, c.By)
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "\nfindings:")
		// Past a few findings of one code the rest are one cause repeated
		// (a bad tile fails every proof through it); --json lists them all.
		shown := map[finding.Code]int{}
		for _, f := range r.Findings {
			shown[f.Code]++
			if shown[f.Code] > maxPerCode {
				continue
			}
			fmt.Fprintf(w, "  %-7s %-24s %s\n          %s\n", strings.ToUpper(string(f.Severity)), f.Code, sanitize.Line(f.Subject), sanitize.Line(f.Message))
		}
		for _, c := range finding.Catalogue {
			if n := shown[c.Code] - maxPerCode; n > 0 {
				fmt.Fprintf(w, "  ...     %-24s and %d more (see --json)\n", c.Code, n)
			}
		}
	}
	errs, warns := 0, 0
	for _, f := range r.Findings {
		if f.Severity == finding.SevError {
			errs++
		} else if f.Severity == finding.SevWarning {
			warns++
		}
	}
	verdict := "PASS"
	if !r.OK {
		verdict = "FAIL"
	}
	scope := ""
	if len(r.Unsigned) > 0 {
		// PASS speaks for the signed records only: the unsigned tables
		// were not checked and are named so nobody reads them as intact.
		scope = fmt.Sprintf(" for signed records; unsigned, not checked: %s", strings.Join(r.Unsigned, ", "))
		if r.OK {
			verdict = "PASS (signed records only)"
		}
	}
	fmt.Fprintf(w, "\nresult: %s%s (%d error(s), %d warning(s))\n", verdict, scope, errs, warns)
}
