//go:build unix

package exposure

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system time: on a shared machine the
// CPU seconds a run needs, beside its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
