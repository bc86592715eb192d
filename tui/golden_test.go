package tui_test

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
)

// goldenSizes are the smallest supported terminal, a wide one and the
// widest the layouts are made for.
var goldenSizes = [][2]int{{80, 24}, {200, 50}, {250, 60}}

// TestGoldenViews renders every view at each golden size with the Ascii
// profile.
func TestGoldenViews(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		keys []string
		opts tui.Options
	}{
		{"overview", nil, tui.Options{}},
		{"findings", []string{"2"}, tui.Options{}},
		{"findings-by-code", []string{"2", "o"}, tui.Options{}},
		{"entries", []string{"3", "j", "j", "j"}, tui.Options{}},
		{"entries-filter", []string{"3", "/", "t", "o", "p", "i", "c", " ", "1"}, tui.Options{}},
		{"detail", []string{"3", "j", "j", "j", "j", "enter"}, tui.Options{}},
		{"lineage", []string{"3", "j", "j", "j", "j", "j", "j", "l"}, tui.Options{}},
		{"replay", []string{"6"}, tui.Options{}},
		{"replay-query", []string{"6", "enter"}, tui.Options{}},
		{"replay-whatif", []string{"6", "enter", "w"}, tui.Options{}},
		{"log", []string{"7"}, tui.Options{}},
		{"log-leaf", []string{"7", "j", "j", "j", "j"}, tui.Options{}},
		{"actions", []string{"8"}, tui.Options{}},
		{"help", []string{"?"}, tui.Options{}},
		{"glossary", []string{"?", "/", "t", "a", "u"}, tui.Options{}},
		{"command", []string{":", "q", "-"}, tui.Options{}},
		{"entries-plain", []string{"3"}, tui.Options{Plain: true, NoColor: true}},
		{"replay-plain", []string{"6", "enter"}, tui.Options{Plain: true, NoColor: true}},
		{"replay-light", []string{"6", "enter"}, tui.Options{Light: true}},
	} {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				m, _ := open(t, 40, sz[0], sz[1], tc.opts)
				m = press(t, m, tc.keys...)
				golden(t, fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1]), ascii(t, m.View().Content))
			})
		}
	}
}

func TestGoldenPicker(t *testing.T) {
	t.Parallel()
	sc := []tui.Scenario{
		{Name: "clean", Description: "an intact store", Expect: "nothing"},
		{Name: "structural-write", Description: "unauthenticated edges of weight 60 hijack a selection", Expect: "replay shows q-born-first DIVERGE and IFC-blind"},
	}
	for _, sz := range goldenSizes {
		for _, keys := range [][]string{{"j"}, {"?"}} {
			var m tea.Model = tui.NewPicker(sc, nil, tui.Options{})
			m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m = press(t, m, keys...)
			name := "picker"
			if keys[0] == "?" {
				name = "picker-help"
			}
			golden(t, fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]), ascii(t, m.View().Content))
		}
	}
}
