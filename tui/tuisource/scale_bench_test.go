package tuisource

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/evidencetest"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// benchOptions are the options of the scenario directory MEMSCOPE_BENCH_STORE
// names (e.g. one made by `memscope demo --scenario clean --entries 1000000`).
func benchOptions(b *testing.B) assemble.Options {
	dir := os.Getenv("MEMSCOPE_BENCH_STORE")
	if dir == "" {
		b.Skip("set MEMSCOPE_BENCH_STORE to a generated scenario directory")
	}
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	roots := evidencetest.Roots(b, m)
	return assemble.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey, TrustRoots: roots}
}

// BenchmarkFirstFrameStore is what the inspector does before its first
// frame on a real store: New, the overview and a screenful of Entries rows
// (whatever has arrived by then). Whole program: scripts/inspect-timing.sh.
func BenchmarkFirstFrameStore(b *testing.B) {
	opts := benchOptions(b)
	b.ResetTimer()
	for range b.N {
		src, err := New(context.Background(), opts, false)
		if err != nil {
			b.Fatal(err)
		}
		_ = src.Overview()
		for i := range min(40, src.EntryCount()) {
			_ = src.Entry(i)
		}
		// Closing stops the background load: not part of the first frame.
		b.StopTimer()
		src.Close()
		b.StartTimer()
	}
}

// BenchmarkScrollStore is j in the Entries view (Update + View, 120x40)
// on a real store while its entries load in the background, as a user
// scrolls right after opening it: the frame competes with the load and
// reads its rows' previews back from the snapshot. Whole program:
// scripts/inspect-timing.sh.
func BenchmarkScrollStore(b *testing.B) {
	opts := benchOptions(b)
	src, err := New(context.Background(), opts, false)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	// MEMSCOPE_BENCH_ROWS: start scrolling once this many rows are in
	// (default 4096), to see the frame against a bigger heap.
	wait := 4096
	if v, err := strconv.Atoi(os.Getenv("MEMSCOPE_BENCH_ROWS")); err == nil {
		wait = v
	}
	for src.EntryCount() < wait {
		time.Sleep(time.Millisecond)
	}
	var m tea.Model = tui.New(src, tui.Options{Static: true})
	m, _ = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = tuitest.Press(b, m, "3")
	down := tuitest.KeyMsg("j")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m, _ = m.Update(down)
		_ = m.View()
	}
	b.StopTimer()
	b.ReportMetric(float64(src.EntryCount()), "rows-loaded")
}
