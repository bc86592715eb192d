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
			}
		}
	})
	if len(problems) == 0 {
		return nil
	}
	msg := strings.Join(problems, "; ")
	fmt.Fprintf(set.Output(), "memscope %s: %s\n", set.Name(), msg)
	return usagef("%s", msg)
}
