package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/memscope/memscope/internal/analyses/mcpagainst"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// verifyAgainst is verify --against: the verify report, then the MCP
// memory server's file reconciled with the recorded evidence
// (docs/RECORD.md). Exit 1 when either has an error.
func verifyAgainst(ctx context.Context, stdout io.Writer, rep *verify.Report, spec string, asJSON bool) (int, error) {
	server, file := "memory", spec
	if s, f, ok := strings.Cut(spec, "="); ok && !strings.ContainsAny(s, "/.") {
		server, file = s, f
	}
	b, _, err := storefile.ReadAll(ctx, file, "MCP memory server store (JSONL)", storefile.MaxJSON)
	if err != nil {
		return exitUsage, err
	}
	snap, err := loader.OpenContext(ctx, rep.Snapshot)
	if err != nil {
		return exitUsage, err
	}
	defer snap.Close()
	rec, err := mcpagainst.Reconcile(ctx, snap, server, file, b)
	if err != nil {
		return exitUsage, err
	}
	bad := !rep.OK
	for _, f := range rec.Findings {
		bad = bad || f.Severity == finding.SevError
	}
	if asJSON {
		if err := writeJSON(stdout, struct {
			Verify  *verify.Report     `json:"verify"`
			Against *mcpagainst.Report `json:"against"`
		}{rep, rec}); err != nil {
			return exitUsage, err
		}
	} else {
		writeVerifyReport(stdout, rep)
		fmt.Fprintf(stdout, "\nagainst %s (server %s): %d item(s) in the file, %d recorded and live, %d deleted by a signed tombstone, %d explained\n",
			sanitize.Line(rec.File), sanitize.Line(rec.Server), rec.InFile, rec.Recorded, rec.Deleted, rec.Matched)
		for _, f := range rec.Findings {
			msg := f.Message
			if f.Subject != rec.File {
				msg = f.Subject + ": " + msg // a line of the file
			}
			fmt.Fprintf(stdout, "  %-7s %-24s %s\n", strings.ToUpper(string(f.Severity)), f.Code, sanitize.Line(msg))
		}
		if len(rec.Findings) == 0 {
			fmt.Fprintln(stdout, "  every item in the file is explained by a recorded write, and every live recorded item is in the file")
		}
	}
	if bad {
		return exitFindings, nil
	}
	return exitOK, nil
}
