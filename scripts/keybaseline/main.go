// Command keybaseline is the floor for scripts/keylatency.py: a Bubble Tea
// v2 program as small as it can be that draws a screenful of list rows in
// the alternate screen with the default renderer (60 frames a second), as
// the inspector does, and moves a selection with j. Its keypress-to-frame
// time is what the runtime and the terminal cost before any work of
// memscope's.
//
//	go build -o /tmp/keybaseline ./scripts/keybaseline
//	scripts/keylatency.py --ready '^Entries ' --row 1 -- /tmp/keybaseline
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	tea "charm.land/bubbletea/v2"
)

type model struct {
	sel, w, h int
}

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch msg.String() {
		case "j":
			m.sel++
		case "k":
			m.sel = max(m.sel-1, 0)
		case "q", "ctrl+c":
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m model) View() tea.View {
	var b strings.Builder
	fmt.Fprintf(&b, "keybaseline\nEntries %08d\n", m.sel)
	top := max(m.sel-(m.h-4), 0)
	for i := top; i < top+m.h-3; i++ {
		mark := "  "
		if i == m.sel {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%08d  row %d of a list as wide as the screen%s\n", mark, i, i, strings.Repeat(".", max(m.w-60, 0)))
	}
	v := tea.NewView(b.String())
	v.AltScreen = true
	return v
}

func main() {
	fps := flag.Int("fps", 0, "frames a second (0: Bubble Tea's default, 60)")
	busy := flag.Int("busy", 0, "goroutines that keep a core busy hashing, as the inspector's load and verification do")
	yield := flag.Int("yield", 0, "each busy goroutine calls runtime.Gosched after this many hashes of 4 KiB (0: never)")
	flag.Parse()
	for range *busy {
		go func() {
			var b [4096]byte
			for i := 1; ; i++ {
				h := sha256.Sum256(b[:])
				copy(b[:], h[:])
				if *yield > 0 && i%*yield == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	var opts []tea.ProgramOption
	if *fps > 0 {
		opts = append(opts, tea.WithFPS(*fps))
	}
	if _, err := tea.NewProgram(model{}, opts...).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
