package tui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// timelineFake is a fake store with a timeline: ten writes, the fifth
// unauthenticated; query "q" diverges once it is in.
type timelineFake struct {
	*tuitest.Fake
	asked []int
}

func (f *timelineFake) Timeline(context.Context) (*timeline.Timeline, error) {
	var ev []timeline.Event
	for i := 0; i < 10; i++ {
		a := i != 4
		ev = append(ev, timeline.Event{Kind: timeline.KindWrite, ID: fmt.Sprintf("w%d", i), Leaf: int64(i), TS: int64(i) * 1e9, Principal: "agent:x", Summary: "edge", Authenticated: &a})
	}
	return timeline.Build(ev), nil
}

func (f *timelineFake) DivergingAt(_ context.Context, cut int) ([]string, error) {
	f.asked = append(f.asked, cut)
	if cut > 4 {
		return []string{"q"}, nil
	}
	return nil, nil
}

func TestTimelineViewScrubs(t *testing.T) {
	t.Parallel()
	f := &timelineFake{Fake: tuitest.New(5)}
	m := tui.New(f, tui.Options{Static: true})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 160, Height: 30})
	m = press(t, m, "9")
	s := screen(m)
	mustContain(t, s, "Timeline: 10 events, ordered by log position", "As of #0: 0 entries, 1 write (0 unauthenticated)", "Queries diverging then (G vs G_auth as they stood): none")
	m = press(t, m, "down", "down", "down", "down")
	s = screen(m)
	mustContain(t, s, "As of #4: 0 entries, 5 writes (1 unauthenticated)", "Queries diverging then (1): q", "UNAUTH")
	if !strings.Contains(fmt.Sprint(f.asked), "5") {
		t.Fatalf("the view never asked for the moment after the unauthenticated write: %v", f.asked)
	}
}

func TestTimelineViewWithoutSource(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 5, 120, 30, tui.Options{})
	m = press(t, m, "9")
	mustContain(t, screen(m), "This source has no timeline.")
}
