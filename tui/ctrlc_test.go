package tui_test

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
)

// Ctrl-C quits the inspector from every view and from every mode that
// takes text (the command bar, a filter, help), as q does outside them.
func TestCtrlCQuitsEverywhere(t *testing.T) {
	t.Parallel()
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	if ctrlC.String() != "ctrl+c" {
		t.Fatalf("test key is %q", ctrlC.String())
	}
	for _, keys := range [][]string{
		{}, {"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6"}, {"7"}, {"8"}, {"9"},
		{":"}, {":", "x", "y"}, {"/"}, {"/", "a"}, {"2", "/", "a"}, {"?"}, {"2", "enter"}, {"6", "enter"},
	} {
		m, _ := open(t, 10, 100, 30, tui.Options{})
		m = press(t, m, keys...)
		_, cmd := m.Update(ctrlC)
		if cmd == nil {
			t.Errorf("after %q: ctrl+c returned no command", keys)
			continue
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("after %q: ctrl+c did not quit", keys)
		}
	}
}
