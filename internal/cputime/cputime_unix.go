//go:build unix

// Package cputime reads the process's CPU time for benchmarks: on a
// shared machine a ratio of CPU times inside one run holds up where wall
// times do not.
package cputime

import (
	"syscall"
	"time"
)

// Process is the user plus system time this process has used (0 if the
// kernel will not say).
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
