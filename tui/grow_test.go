package tui_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// growing is a Source whose entries arrive while verification runs, as a
// big store's do: each progress report publishes ten more rows.
type growing struct {
	*tuitest.Fake
	n atomic.Int64
}

func (g *growing) EntryCount() int { return int(g.n.Load()) }

func (g *growing) Verify(ctx context.Context) <-chan tui.Progress {
	ch := make(chan tui.Progress)
	go func() {
		defer close(ch)
		for k := 1; k <= 3; k++ {
			g.n.Store(int64(10 * k))
			ch <- tui.Progress{Stage: "loading entries", Done: 10 * k, Total: 30}
		}
		ch <- tui.Progress{Finished: true}
	}()
	return ch
}

func TestEntriesGrowWhileLoading(t *testing.T) {
	t.Parallel()
	for _, filtered := range []bool{false, true} {
		src := &growing{Fake: tuitest.New(30)}
		var m tea.Model = tui.New(src, tui.Options{Static: true})
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 60})
		m = press(t, m, "3")
		if filtered {
			// A filter typed before any row arrived must cover the late rows.
			m = press(t, m, "/", "2", "enter")
		}
		m = drive(t, m, m.Init())
		view := m.View().Content
		if !strings.Contains(view, "…00029 ") {
			t.Errorf("filtered=%v: the last row to arrive (%s) is not listed:\n%s", filtered, tuitest.ID(29), view)
		}
		if filtered && strings.Contains(view, "…00013 ") {
			t.Errorf("the filter \"2\" lets through row 13:\n%s", view)
		}
	}
}
