package tui_test

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// coverFake is the fake store with coverage: every action row and the
// query q-1 are unsigned.
type coverFake struct{ *tuitest.Fake }

func (c coverFake) Coverage(table, id string) string {
	if table == "actions" || (table == "queries" && id == "q-1") {
		return "unsigned"
	}
	return ""
}

// The Actions view labels what the Source says is unsigned and nothing
// else; without coverage (the plain fake) it shows no label.
func TestActionsShowCoverageLabels(t *testing.T) {
	t.Parallel()
	for _, covered := range []bool{false, true} {
		f := tuitest.New(50)
		var src tui.Source = f
		if covered {
			src = coverFake{f}
		}
		m := tea.Model(tui.New(src, tui.Options{Static: true}))
		m = drive(t, m, m.Init())
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m = press(t, m, "8")
		s := screen(m)
		if got := strings.Contains(s, "[unsigned]") && strings.Contains(s, "action rows unsigned"); got != covered {
			t.Errorf("coverer %v: labels shown %v\n%s", covered, got, s)
		}
	}
}
