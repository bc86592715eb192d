package tui_test

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
)

// TestGoldenViews renders every view at 100x30 with the Ascii profile.
func TestGoldenViews(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
		opts tui.Options
	}{
		{"overview", []string{"1"}, tui.Options{}},
		{"findings", []string{"2"}, tui.Options{}},
		{"entries", []string{"3", "j", "j", "j"}, tui.Options{}},
		{"entries-filter", []string{"3", "/", "t", "o", "p", "i", "c", " ", "1"}, tui.Options{}},
		{"detail", []string{"3", "j", "j", "j", "j", "enter"}, tui.Options{}},
		{"lineage", []string{"3", "j", "j", "j", "j", "j", "j", "l"}, tui.Options{}},
		{"replay", []string{"6"}, tui.Options{}},
		{"replay-query", []string{"6", "enter", "x"}, tui.Options{}},
		{"log", []string{"7"}, tui.Options{}},
		{"actions", []string{"8"}, tui.Options{}},
		{"help", []string{"?"}, tui.Options{}},
		{"entries-plain", []string{"3"}, tui.Options{Plain: true, NoColor: true}},
		{"replay-light", []string{"6", "enter"}, tui.Options{Light: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := open(t, 40, 100, 30, tc.opts)
			m = press(t, m, tc.keys...)
			golden(t, tc.name, ascii(t, m.View().Content))
		})
	}
}

func TestGoldenPicker(t *testing.T) {
	sc := []tui.Scenario{
		{Name: "clean", Description: "an intact store"},
		{Name: "structural-write", Description: "unauthenticated edges of weight 60 hijack a selection"},
	}
	var m tea.Model = tui.NewPicker(sc, nil, tui.Options{})
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 12})
	m = press(t, m, "j")
	golden(t, "picker", ascii(t, m.View().Content))
}
