package tui_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// slowPreviews is a store whose previews sit on a slow disk: Entry has none
// until ReadPreviews, which waits for release, has run.
type slowPreviews struct {
	*tuitest.Fake
	release chan struct{}
	mu      sync.Mutex
	read    bool
}

func (s *slowPreviews) Entry(i int) tui.EntryRow {
	r := s.Fake.Entry(i)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.read {
		r.Preview, r.PreviewPending = "", true
	}
	return r
}

func (s *slowPreviews) ReadPreviews(ctx context.Context, from, to int) error {
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	s.read = true
	s.mu.Unlock()
	return nil
}

// Update and View never wait for a content read: the Entries rows show a
// placeholder while the command the model returned reads them, and the
// contents once it has (issue 24, item 9).
func TestPreviewsAreReadOffTheInterfaceGoroutine(t *testing.T) {
	src := &slowPreviews{Fake: tuitest.New(30), release: make(chan struct{})}
	m := tea.Model(tui.New(src, tui.Options{Static: true, NoVerify: true}))
	m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m, cmd := m.Update(tuitest.KeyMsg("3")) // returns at once: nothing was read
	if s := tuitest.Screen(m); !strings.Contains(s, "reading...") || strings.Contains(s, "memory number 1 ") {
		t.Fatalf("rows without a preview show no placeholder:\n%s", s)
	}
	if cmd == nil {
		t.Fatal("no command reads the previews")
	}
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- cmd() }()
	m, _ = m.Update(tuitest.KeyMsg("j")) // keys still work while the read waits
	close(src.release)
	m = tuitest.Drive(t, m, func() tea.Msg { return <-msgs })
	if s := tuitest.Screen(m); strings.Contains(s, "reading...") || !strings.Contains(s, "memory number 1 ") {
		t.Fatalf("the previews read never reached the rows:\n%s", s)
	}
}
