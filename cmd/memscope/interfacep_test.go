package main

import (
	"runtime"
	"testing"
)

func TestInterfacePKeepsOnePForTheInterface(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	before := runtime.GOMAXPROCS(0)
	workers, restore := interfaceP()
	if workers != before {
		t.Errorf("background workers %d, want the %d Ps there were", workers, before)
	}
	if got := runtime.GOMAXPROCS(0); got != before+1 {
		t.Errorf("GOMAXPROCS %d while inspecting, want %d", got, before+1)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after, want %d restored", got, before)
	}
}

func TestInterfacePLeavesAUsersGOMAXPROCS(t *testing.T) {
	t.Setenv("GOMAXPROCS", "1")
	before := runtime.GOMAXPROCS(0)
	workers, restore := interfaceP()
	defer restore()
	if workers != 0 || runtime.GOMAXPROCS(0) != before {
		t.Errorf("with GOMAXPROCS set: workers %d, GOMAXPROCS %d; want 0 and %d unchanged", workers, runtime.GOMAXPROCS(0), before)
	}
}
