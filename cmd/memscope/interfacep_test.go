package main

import (
	"runtime"
	"testing"
)

func TestInterfacePKeepsOnePForTheInterfaceOnABigStore(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	before := runtime.GOMAXPROCS(0)
	workers := backgroundWorkers()
	restore := interfaceP(spareInterfacePEntries + 1)
	if workers != before {
		t.Errorf("background workers %d, want the %d Ps there were", workers, before)
	}
	if got := runtime.GOMAXPROCS(0); got != before+1 {
		t.Errorf("GOMAXPROCS %d while inspecting a big store, want %d", got, before+1)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after, want %d restored", got, before)
	}
}

func TestInterfacePAddsNoPOnASmallerStore(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	before := runtime.GOMAXPROCS(0)
	restore := interfaceP(spareInterfacePEntries)
	defer restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d while inspecting %d entries, want %d unchanged", got, spareInterfacePEntries, before)
	}
}

func TestInterfacePLeavesAUsersGOMAXPROCS(t *testing.T) {
	t.Setenv("GOMAXPROCS", "1")
	before := runtime.GOMAXPROCS(0)
	workers := backgroundWorkers()
	restore := interfaceP(spareInterfacePEntries + 1)
	defer restore()
	if workers != 0 || runtime.GOMAXPROCS(0) != before {
		t.Errorf("with GOMAXPROCS set: workers %d, GOMAXPROCS %d; want 0 and %d unchanged", workers, runtime.GOMAXPROCS(0), before)
	}
}
