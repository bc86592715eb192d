package tui_test

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// declaredFake's lineage is a native store's declared history.
type declaredFake struct {
	*tuitest.Fake
	calls int
}

func (f *declaredFake) Lineage(ctx context.Context, id string, tau float64) (tui.LineageView, error) {
	f.calls++
	return tui.LineageView{ID: id, Tau: tau, Declared: "memory m1: its version chain, unsigned",
		Rows:   []string{"● ADD    by alice/user  likes tea", "│", "✖ DELETE by mallory  DELETED, was: likes tea\x1b[2J"},
		RowIDs: []string{id, "", id}, Notes: []string{"MEM0_DELETED: deleted"}}, nil
}

// A declared lineage is drawn as the store's claim: caption, rows and
// notes, no trust labels, no tau, escapes neutralised; changing tau does
// not reload it.
func TestDeclaredLineageView(t *testing.T) {
	t.Parallel()
	f := &declaredFake{Fake: tuitest.New(10)}
	m := tea.Model(tui.New(f, tui.Options{Static: true}))
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = press(t, m, "3", "l")
	s := screen(m)
	mustContain(t, s, "declared by the store, unsigned", "memory m1: its version chain, unsigned", "● ADD    by alice/user", "✖ DELETE by mallory  DELETED, was: likes tea", "MEM0_DELETED: deleted")
	for _, no := range []string{"recomputed", "tau =", "External ancestors"} {
		if strings.Contains(s, no) {
			t.Errorf("declared lineage shows %q:\n%s", no, s)
		}
	}
	assertNoTerminalControls(t, m.View().Content)
	calls := f.calls
	m = press(t, m, "+")
	mustContain(t, screen(m), "declared by the store, unsigned")
	if f.calls != calls {
		t.Errorf("tau change reloaded a declared lineage (%d -> %d calls)", calls, f.calls)
	}
}
