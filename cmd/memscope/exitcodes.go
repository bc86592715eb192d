package main

// One exit-code contract for every command (README, "Exit codes"):
//
//	0  the command ran and reported no finding of severity error
//	1  it ran and reported at least one (exitFindings)
//	2  it could not run: usage, or an input missing or unreadable (exitUsage)
//
// A mistyped path is "could not run", never a finding about the evidence:
// the flags that name inputs are checked before anything is read.

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
)

// exitFor is the exit code of a command that reports findings fs.
func exitFor(fs []finding.Finding) int {
	for _, f := range fs {
		if f.Severity == finding.SevError {
			return exitFindings
		}
	}
	return exitOK
}

// checkInputFlags refuses, as usage errors, a --log that names no file or
// directory (a URL is read later, and its failure is the log's finding)
// and a --k given explicitly as less than 1 (no top-k of zero).
func checkInputFlags(set *flag.FlagSet) error {
	var problems []string
	set.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		switch f.Name {
		case "log":
			if v == "" || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
				return
			}
			if _, err := os.Stat(v); errors.Is(err, fs.ErrNotExist) {
				problems = append(problems, fmt.Sprintf("--log %s: no such file or directory", v))
			} else if err != nil {
				problems = append(problems, fmt.Sprintf("--log %s: %v", v, err))
			}
		case "k":
			if n, err := strconv.Atoi(v); err == nil && n < 1 {
				problems = append(problems, fmt.Sprintf("--k %d: want at least 1", n))
			} else if p := kBoundProblem(v); p != "" {
				problems = append(problems, p)
			}
		}
	})
	return usageProblems(set, problems)
}

// kBoundProblem refuses a --k above snapshot.MaxK: selection keeps k
// candidates, and an unbounded k ran the process out of memory.
func kBoundProblem(v string) string {
	if n, err := strconv.Atoi(v); err == nil && n > snapshot.MaxK {
		return fmt.Sprintf("--k %d: want at most %d (the largest top-k a query record holds)", n, snapshot.MaxK)
	}
	return ""
}

// checkKBound is the one check of checkInputFlags that a native store's
// commands share (their --k may be SMSR's, checked by the command).
func checkKBound(set *flag.FlagSet) error {
	var problems []string
	if f := set.Lookup("k"); f != nil {
		if p := kBoundProblem(f.Value.String()); p != "" {
			problems = append(problems, p)
		}
	}
	return usageProblems(set, problems)
}

// usageProblems prints the problems found, if any, as one usage error.
func usageProblems(set *flag.FlagSet, problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	msg := strings.Join(problems, "; ")
	fmt.Fprintf(set.Output(), "memscope %s: %s\n", set.Name(), msg)
	return usagef("%s", msg)
}
