package tuisource

import (
	"runtime/debug"
	"testing"
)

func gogc() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// The pacing is loadGCPercent while any holder holds it, and the value
// before the first hold once the last lets go, in either order, however
// often a release is called.
func TestGCHoldRestoresAfterTheLastHolder(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	var h gcHold
	load := h.hold()
	analyses := h.hold()
	load()
	load()
	if g := gogc(); g != loadGCPercent {
		t.Fatalf("one holder left: GOGC %d, want %d", g, loadGCPercent)
	}
	analyses()
	if g := gogc(); g != 123 {
		t.Fatalf("no holder left: GOGC %d, want 123", g)
	}
	again := h.hold()
	if g := gogc(); g != loadGCPercent {
		t.Fatalf("held again: GOGC %d", g)
	}
	again()
	if g := gogc(); g != 123 {
		t.Fatalf("released again: GOGC %d", g)
	}
}
