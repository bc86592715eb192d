package tui_test

import (
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// A keypress-to-frame is Update plus View: what the runtime does per key.
func frame(m tea.Model, msg tea.Msg) (tea.Model, tea.Cmd, string) {
	m, cmd := m.Update(msg)
	return m, cmd, m.View().Content
}

// BenchmarkScroll1M: one j on a 1M-row entries table, 120x40.
func BenchmarkScroll1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 120, 40, tui.Options{})
	m = press(b, m, "3")
	down := keyMsg("j")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, down)
	}
}

// BenchmarkPageDown1M: page down renders a screenful of uncached rows.
func BenchmarkPageDown1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 120, 40, tui.Options{})
	m = press(b, m, "3")
	pg := tea.KeyPressMsg{Code: tea.KeyPgDown}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, pg)
	}
}

// BenchmarkFilter1M: one typed character in the / filter of a 1M-row
// table: the synchronous part (Update starts the scan, View draws the
// prompt). The scan itself runs in a tea.Cmd: BenchmarkFilterScan1M.
func BenchmarkFilter1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 120, 40, tui.Options{})
	m = press(b, m, "3", "/")
	keys := []tea.KeyPressMsg{keyMsg("x"), keyMsg("backspace")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, keys[i%2])
	}
}

// BenchmarkFilterScan1M: the background filter over 1M fake rows (the
// fake builds each row on the fly, so this includes row construction).
func BenchmarkFilterScan1M(b *testing.B) {
	f := tuitest.New(1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := tui.FilterEntries(f, "topic 42"); len(got) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkFirstFrame1M: New + Init's synchronous part + first View.
func BenchmarkFirstFrame1M(b *testing.B) {
	f := tuitest.New(1_000_000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		m := tui.New(f, tui.Options{Static: true, NoVerify: true})
		m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		_ = m.View().Content
	}
}

// TestMemory1MFiltered reports the heap the model itself holds for a 1M-row
// table sorted and filtered (the Source's own memory is the lead's).
func TestMemory1MFiltered(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds 1M-row index slices")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ := open(t, 1_000_000, 120, 40, tui.Options{})
	m = press(t, m, "3", "s", "s", "s", "s", "s", "/", "1")
	runtime.GC()
	runtime.ReadMemStats(&after)
	used := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("model heap with 1M rows sorted by time and filtered: %.1f MB", float64(used)/1e6)
	// Two int32 index slices of 1M plus the row cache: far below 1 GB.
	if used > 64<<20 {
		t.Errorf("model holds %d bytes for 1M rows", used)
	}
	runtime.KeepAlive(m)
}

// BenchmarkCommandKey1M: one typed character in the : bar over 1M entries
// (the entry-id scan runs in a tea.Cmd; this is the synchronous part).
func BenchmarkCommandKey1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 200, 50, tui.Options{})
	m = press(b, m, "3", ":")
	keys := []tea.KeyPressMsg{keyMsg("0"), keyMsg("backspace")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, keys[i%2])
	}
}

// BenchmarkEnterEsc1M: Enter on an entry (push, detail) and esc back (pop)
// on a 1M-row table with the preview pane, two frames per iteration.
func BenchmarkEnterEsc1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 200, 50, tui.Options{})
	m = press(b, m, "3", "pgdown")
	enter, esc := keyMsg("enter"), keyMsg("esc")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, enter)
		m, _, _ = frame(m, esc)
	}
}

// BenchmarkLogPageDown1M: page down through the Log view's 1M leaves
// (one selection over checkpoints and leaves), 120x40.
func BenchmarkLogPageDown1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 120, 40, tui.Options{})
	m = press(b, m, "7")
	pg := tea.KeyPressMsg{Code: tea.KeyPgDown}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, pg)
	}
}

// BenchmarkCopyMenu1M: c on a 1M-row entries table (the menu lists the
// selected row's cells), then esc.
func BenchmarkCopyMenu1M(b *testing.B) {
	m, _ := open(b, 1_000_000, 120, 40, tui.Options{})
	m = press(b, m, "3")
	c, esc := keyMsg("c"), keyMsg("esc")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, _, _ = frame(m, c)
		m, _, _ = frame(m, esc)
	}
}
