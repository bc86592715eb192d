package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuisource"
	"github.com/memscope/memscope/verify"
)

const demoUsage = "memscope demo [--out DIR] [--seed N] [--scenario NAME[,NAME...]] [--entries N] [--plain] [--present]"

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("demo", demoUsage, stderr)
	out := fs.String("out", "", "write the scenarios here and exit (default: a temporary directory, then inspect)")
	seed := fs.Uint64("seed", 1, "generator seed: the same seed gives the same bytes")
	names := fs.String("scenario", "", "only these scenarios (comma-separated): "+scenarioNames())
	entries := fs.Int("entries", 0, "scale the clean store to about N entries (for benchmarks)")
	plain := fs.Bool("plain", false, "accessible mode for the inspector")
	present := fs.Bool("present", false, "presenter mode: open "+tui.PresentScenario+" and step through the AuthSelect story with space (implies --scenario "+tui.PresentScenario+" unless given)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) > 0 {
		return exitUsage, usagef("unexpected argument %q; usage: %s", pos[0], demoUsage)
	}
	var list []string
	if *present && *names == "" {
		*names = tui.PresentScenario
	}
	if *names != "" {
		list = strings.Split(*names, ",")
	}
	dir := *out
	inspectAfter := dir == ""
	if inspectAfter {
		if dir, err = os.MkdirTemp("", "memscope-demo-"); err != nil {
			return exitUsage, err
		}
	}
	if *entries < 0 {
		return exitUsage, usagef("--entries %d: want a count of entries (0: each scenario's own size)", *entries)
	}
	gen := scenario.Options{Seed: *seed, Entries: *entries}
	if inspectAfter {
		// A few seconds of work before the picker: say so, scenario by
		// scenario, rather than show a blank screen.
		gen.Progress = func(done, total int, name string) {
			fmt.Fprintf(stderr, "generating scenarios in %s: %d/%d %s\n", dir, done+1, total, name)
		}
	}
	mans, err := scenario.GenerateAll(ctx, dir, list, gen)
	if err != nil {
		return exitUsage, err
	}
	if !inspectAfter {
		for _, m := range mans {
			fmt.Fprintf(stdout, "%-17s %s\n", m.Name, filepath.Join(dir, m.Name))
		}
		return exitOK, nil
	}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if err := runDemoPicker(ctx, dir, mans, *plain, *present); err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "scenarios are in %s\n", dir)
		return exitOK, nil
	}
	// Not a terminal: the headless counterpart, every scenario's report.
	fmt.Fprintf(stdout, "scenarios written to %s\n\n", dir)
	return demoReport(ctx, dir, mans, stdout)
}

// demoReport prints the verify report of every scenario (the headless
// counterpart of the inspector's scenario picker).
func demoReport(ctx context.Context, dir string, mans []*evidence.Manifest, stdout io.Writer) (int, error) {
	for _, m := range mans {
		sdir := filepath.Join(dir, m.Name)
		opts, err := verifyOptionsFor(sdir, m)
		if err != nil {
			return exitUsage, err
		}
		rep, err := verify.Run(ctx, opts)
		if err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "=== %s: %s\n    expect: %s\n", m.Name, m.Description, m.Expect)
		writeVerifyReport(stdout, rep)
		if err := writeHeadline(ctx, stdout, vo(opts, m.Name)); err != nil {
			return exitUsage, err
		}
		fmt.Fprintln(stdout)
	}
	return exitOK, nil
}

// vo turns verify options into the inspector's.
func vo(o verify.Options, title string) assemble.Options {
	return assemble.Options{Snapshot: o.Snapshot, Log: o.Log, LogKey: o.LogKey, TrustRoots: o.TrustRoots, HMACKey: o.HMACKey, Title: title}
}

// writeHeadline prints what the inspector would lead with: every analysis's
// findings counted (verify's PASS says nothing of a replay divergence or an
// MWP bypass) and the most severe one in full.
func writeHeadline(ctx context.Context, w io.Writer, opts assemble.Options) error {
	src, err := tuisource.New(ctx, opts, true)
	if err != nil {
		return err
	}
	defer src.Close()
	var last tui.Progress
	for p := range src.Verify(ctx) {
		last = p
	}
	if last.Err != nil {
		return last.Err
	}
	count := map[finding.Severity]int{}
	var head *finding.Finding
	for i, f := range last.Findings {
		count[f.Severity]++
		if head == nil || f.Severity.Rank() < head.Severity.Rank() {
			head = &last.Findings[i]
		}
	}
	fmt.Fprintf(w, "all analyses (verify, lineage, replay, MWP): %d error(s), %d warning(s), %d info\n",
		count[finding.SevError], count[finding.SevWarning], count[finding.SevInfo])
	if head != nil {
		fmt.Fprintf(w, "headline: %s %s %s: %s\n", strings.ToUpper(string(head.Severity)), head.Code,
			sanitize.Line(head.Subject), sanitize.Line(head.Message))
	}
	return nil
}

// verifyOptionsFor builds verify options from a scenario manifest's anchors.
func verifyOptionsFor(sdir string, m *evidence.Manifest) (verify.Options, error) {
	af := anchorFlags{anchors: filepath.Join(sdir, evidence.ManifestFile)}
	if m.HMACKeyFile != "" {
		af.hmacKey = filepath.Join(sdir, m.HMACKeyFile)
	}
	an, err := af.resolve()
	if err != nil {
		return verify.Options{}, err
	}
	return verify.Options{Snapshot: filepath.Join(sdir, m.Snapshot), Log: filepath.Join(sdir, m.Log), LogKey: an.LogKey, TrustRoots: an.Roots, HMACKey: an.HMAC}, nil
}

func scenarioNames() string {
	var n []string
	for _, s := range scenario.Specs {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
