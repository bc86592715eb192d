//go:build unix

package verify

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) this process has used: a
// ratio of two CPU times stays meaningful on a loaded machine, where wall
// times inside one run are not.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
