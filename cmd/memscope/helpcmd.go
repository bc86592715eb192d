package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
)

// runHelp explains a command, a word of the inspector's glossary or a
// finding code, on stdout.
func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		mainUsage(stdout)
		return exitOK, nil
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintln(stdout, "usage: memscope help [COMMAND | TERM | CODE]")
		return exitOK, nil
	}
	topic := strings.Join(args, " ")
	for _, c := range commands {
		if c.name == topic && c.name != "help" {
			fmt.Fprintf(stdout, "memscope %s: %s\n\n", c.name, c.summary)
			c.run(ctx, []string{"-h"}, stdout, stdout)
			return exitOK, nil
		}
	}
	if spec, ok := finding.Lookup(finding.Code(strings.ToUpper(topic))); ok {
		fmt.Fprintf(stdout, "%s (%s, %s): %s\n", spec.Code, spec.Severity, spec.Family, spec.Meaning)
		return exitOK, nil
	}
	terms := tui.LookUp(topic)
	if len(terms) == 0 {
		return exitUsage, usagef("no command, glossary term or finding code %q; 'memscope help' lists the commands, docs/GLOSSARY.md the terms", topic)
	}
	for _, t := range terms {
		fmt.Fprintf(stdout, "%s\n    %s\n", t.Term, t.Means)
	}
	return exitOK, nil
}

// runVersion prints the module version and the VCS revision it was built
// from.
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 {
		fmt.Fprintln(stdout, "usage: memscope version")
		return exitOK, nil
	}
	b, ok := readBuild()
	if ok {
		fmt.Fprintf(stdout, "memscope %s", b.version)
		if b.revision != "" {
			dirty := ""
			if b.modified {
				dirty = " (modified)"
			}
			fmt.Fprintf(stdout, " revision %s%s", b.revision, dirty)
		}
		fmt.Fprintf(stdout, " %s\n", b.goVersion)
		return exitOK, nil
	}
	fmt.Fprintf(stdout, "memscope %s\n", b.version)
	return exitOK, nil
}
