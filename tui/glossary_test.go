package tui_test

import (
	"os"
	"strings"
	"testing"

	"github.com/memscope/memscope/tui"
)

// docs/GLOSSARY.md holds the inspector's glossary word for word.
func TestGlossaryDocMatches(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/GLOSSARY.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range tui.Glossary() {
		if row := "| `" + g.Term + "` | " + g.Means + " |"; !strings.Contains(string(doc), row) {
			t.Errorf("docs/GLOSSARY.md lacks (or words differently) %q", g.Term)
		}
	}
}

// ? then / and a word looks it up; the help screen scrolls with the keys
// that scroll everywhere else (G goes to the bottom, not into a lookup).
func TestHelpGlossaryLookupAndScroll(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 20, 80, 24, tui.Options{})
	m = press(t, m, "?")
	first := screen(m)
	mustContain(t, first, "Keys", "more lines")
	m = press(t, m, "pgdown", "pgdown")
	if screen(m) == first {
		t.Error("help does not scroll")
	}
	m = press(t, m, "G")
	if s := screen(m); strings.Contains(s, "looking up") || strings.Contains(s, "more lines") {
		t.Errorf("G in help is not bottom:\n%s", s)
	}
	m = press(t, m, "g")
	if screen(m) != first {
		t.Errorf("g in help is not top:\n%s", screen(m))
	}
	m = press(t, m, "/")
	m = typeText(t, m, "bottle")
	mustContain(t, screen(m), "looking up: bottle", "The weakest edge on the strongest path")
	m = press(t, m, "esc", "esc")
	mustContain(t, screen(m), "[1 Overview]")
}
