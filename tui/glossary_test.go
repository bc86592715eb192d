package tui_test

import (
	"testing"

	"github.com/memscope/memscope/tui"
)

// ? then a word looks it up; the help screen scrolls.
func TestHelpGlossaryLookupAndScroll(t *testing.T) {
	m, _ := open(t, 20, 80, 24, tui.Options{})
	m = press(t, m, "?")
	first := screen(m)
	mustContain(t, first, "Keys", "more lines")
	m = press(t, m, "pgdown", "pgdown")
	if screen(m) == first {
		t.Error("help does not scroll")
	}
	m = press(t, m, "esc", "?")
	m = typeText(t, m, "bottle")
	mustContain(t, screen(m), "looking up: bottle", "The weakest edge on the strongest path")
	m = press(t, m, "esc", "esc")
	mustContain(t, screen(m), "[1 Overview]")
}
