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

// nodeFake labels one selected node unsigned.
type nodeFake struct{ *tuitest.Fake }

func (c nodeFake) Coverage(table, id string) string {
	if table == "nodes" && id == "p-5" {
		return "unsigned"
	}
	return ""
}

// The replay query view names the selected nodes whose declaration no
// verified signature covers, and says nothing when every node is covered.
func TestQueryViewLabelsNodes(t *testing.T) {
	t.Parallel()
	for _, labelled := range []bool{false, true} {
		f := tuitest.New(50)
		var src tui.Source = f
		if labelled {
			src = nodeFake{f}
		}
		m := tea.Model(tui.New(src, tui.Options{Static: true}))
		m = drive(t, m, m.Init())
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 60})
		m = press(t, m, "6", "enter")
		s := screen(m)
		if !strings.Contains(s, "Query q-attack") {
			t.Fatalf("query view not open\n%s", s)
		}
		if got := strings.Contains(s, "nodes whose declaration is a claim: p-5 [unsigned]"); got != labelled {
			t.Errorf("labelled %v: line shown %v\n%s", labelled, got, s)
		}
	}
}
