package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Phase lines, off unless MEMSCOPE_PHASES=1 is in the environment: a
// command says on stderr when each of its long computations starts and
// ends ("memscope replay: phase replay started" ... "ended after 1.2s"),
// so a measurement can tell where the time goes and the hostile suite can
// send Ctrl-C while a computation is under way, not before or after it.
// The lines carry no evidence.
var phasesOn = os.Getenv("MEMSCOPE_PHASES") == "1"

// phase announces the start of a computation and returns the function that
// announces its end (only when it ends on its own: an interrupted phase
// has no end line).
func phase(stderr io.Writer, cmd, name string) (ended func(err error)) {
	if !phasesOn {
		return func(error) {}
	}
	start := time.Now()
	fmt.Fprintf(stderr, "memscope %s: phase %s started\n", cmd, name)
	return func(err error) {
		if err == nil {
			fmt.Fprintf(stderr, "memscope %s: phase %s ended after %v\n", cmd, name, time.Since(start).Round(time.Millisecond))
		}
	}
}
