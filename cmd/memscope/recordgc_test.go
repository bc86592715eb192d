package main

import (
	"math"
	"runtime/debug"
	"testing"
)

// The gateway collects at GOGC 400 under a 256 MiB soft limit, unless the
// user set GOGC or GOMEMLIMIT, whose values are then left as they are.
func TestGatewayGC(t *testing.T) {
	restore := func(percent int, limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
	defer restore(debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gatewayGC()
	if got := debug.SetGCPercent(100); got != gatewayGCPercent {
		t.Errorf("GC percent %d, want %d", got, gatewayGCPercent)
	}
	if got := debug.SetMemoryLimit(math.MaxInt64); got != gatewayMemoryLimit {
		t.Errorf("memory limit %d, want %d", got, gatewayMemoryLimit)
	}

	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(150)
	gatewayGC()
	if got := debug.SetGCPercent(100); got != 150 {
		t.Errorf("with GOGC set, GC percent %d, want the user's 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set, the limit was changed to %d", got)
	}
}
