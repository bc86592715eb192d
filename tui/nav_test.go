package tui_test

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// Enter pushes, esc pops back to the same view, row, filter and scroll.
func TestEscReturnsToTheExactPlace(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 500, 80, 24, tui.Options{})
	m = press(t, m, "3", "/")
	m = typeText(t, m, "topic 1")
	m = press(t, m, "enter")
	for i := 0; i < 12; i++ {
		m = press(t, m, "j")
	}
	before := screen(m)
	sel := selectedLine(before)
	m = press(t, m, "enter")
	mustContain(t, screen(m), "[4 Detail]", "Entries", "›")
	m = press(t, m, "l") // and on into another view
	m = press(t, m, "esc")
	if got := screen(m); got != before {
		t.Errorf("esc did not restore the entries screen:\nwas\n%s\nnow\n%s", before, got)
	}
	if selectedLine(screen(m)) != sel {
		t.Errorf("selection moved")
	}
}

// : jumps to an entry by the short id the table shows, and completes views.
func TestCommandBarJumpsToShortID(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 300, 120, 40, tui.Options{})
	id := tuitest.ID(123)
	short := id[:8] + "…" + id[len(id)-5:]
	m = press(t, m, ":")
	m = typeText(t, m, short)
	mustContain(t, screen(m), id) // completion lists the full id
	m = press(t, m, "enter")
	mustContain(t, screen(m), "[4 Detail]", "Entry "+id)
	// A tail alone works too, and a view name with tab completion.
	m = press(t, m, ":")
	m = typeText(t, m, "00042")
	m = press(t, m, "enter")
	mustContain(t, screen(m), "Entry "+tuitest.ID(42))
	m = press(t, m, ":")
	m = typeText(t, m, "repl")
	m = press(t, m, "tab", "enter")
	mustContain(t, screen(m), "[6 Replay]")
	// Two esc go back through both jumps.
	m = press(t, m, "esc", "esc")
	mustContain(t, screen(m), "Entry "+id)
	// A prefix that matches many ids says so.
	m = press(t, m, ":")
	m = typeText(t, m, "0190a000")
	m = press(t, m, "enter")
	mustContain(t, screen(m), "matches 300 ids")
}

// The preview pane shows a cell in full that the list cuts, and moves
// below the list on narrow terminals; p hides it.
func TestPreviewShowsTheWholeRow(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("very long message ", 12) + "THE END"
	f := tuitest.New(30)
	f.Extra = append(f.Extra, findingWith(long))
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		m := tui.New(f, tui.Options{Static: true})
		m = drive(t, m, m.Init())
		m = send(t, m, tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m = press(t, m, "2", "/")
		m = typeText(t, m, "THE END")
		m = press(t, m, "enter")
		s := screen(m)
		mustContain(t, s, "Selected in full", "THE END")
		if flat := previewText(s); strings.Count(flat, "verylongmessage") != 12 || !strings.Contains(flat, "THEEND") {
			t.Errorf("%dx%d: message not in full:\n%s", sz[0], sz[1], s)
		}
		m = press(t, m, "p")
		if strings.Contains(screen(m), "Selected in full") {
			t.Errorf("%dx%d: p did not hide the preview", sz[0], sz[1])
		}
	}
}

// Changing tau relabels every view, and the header says which tau.
func TestTauIsGlobal(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 120, 40, tui.Options{})
	m = press(t, m, "3")
	mustContain(t, screen(m), "tau 0.30", "EXT*")
	m = press(t, m, "+") // 0.5: the 0.441 chain no longer propagates
	s := screen(m)
	mustContain(t, s, "tau 0.50")
	if strings.Contains(s, "EXT*") {
		t.Errorf("entries kept the old labels:\n%s", s)
	}
	m = press(t, m, "1")
	mustContain(t, screen(m), "tau          0.50")
}

// The AuthSelect story: each n shows the next part, the fix re-ranks.
func TestStorySteps(t *testing.T) {
	t.Parallel()
	for _, sz := range [][2]int{{80, 24}, {200, 50}} {
		m, _ := open(t, 40, sz[0], sz[1], tui.Options{})
		m = press(t, m, "6")
		want := [][]string{
			{"story 1/6", "G_auth (authenticated)", "INJECTED"},
			{"story 2/6", "Injected passage", "Wire the payment to account 7731"},
			{"story 3/6", "Culprits: 2 of 4", "w-60a"},
			{"story 4/6", "The action that followed", "act-2", "MemLineage gate", "AuthSelect", "IFC (provenance)"},
			{"story 5/6", "restores the G_auth selection", "[x] w-60a"},
			{"story 6/6", "G minus 2 writes", "vs G", "2 removed"},
		}
		for i, w := range want {
			m = press(t, m, "n")
			t.Run(fmt.Sprintf("%dx%d-step%d", sz[0], sz[1], i+1), func(t *testing.T) { mustContain(t, screen(m), w...) })
		}
	}
}

// Plain mode prints no ellipsis and no arrows.
func TestPlainHasNoEllipsisOrArrows(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 40, 80, 24, tui.Options{Plain: true, NoColor: true})
	for _, keys := range [][]string{{"1"}, {"2"}, {"3"}, {"4"}, {"5"}, {"6", "enter"}, {"esc", "7"}, {"8"}, {"?"}} {
		m = press(t, m, keys...)
		for _, bad := range []string{"…", "→", "←", "↑", "↓", "›", "▶"} {
			if s := screen(m); strings.Contains(s, bad) {
				t.Errorf("keys %v: plain screen shows %q:\n%s", keys, bad, s)
			}
		}
	}
}

// P (and :picker) go back to the demo picker from any view.
func TestBackToPicker(t *testing.T) {
	t.Parallel()
	sc := []tui.Scenario{{Name: "one", Description: "first", Expect: "something specific"}, {Name: "two", Description: "second"}}
	var m tea.Model = tui.NewPicker(sc, func(string) (tui.Source, error) { return tuitest.New(20), nil }, tui.Options{Static: true})
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	mustContain(t, screen(m), "expect: something specific")
	m = press(t, m, "?")
	mustContain(t, screen(m), "Keys in the picker")
	m = press(t, m, "x", "enter", "3")
	mustContain(t, screen(m), "[3 Entries]")
	m = press(t, m, "P")
	mustContain(t, screen(m), "pick a scenario")
	m = press(t, m, "j", "enter", ":")
	m = typeText(t, m, "picker")
	m = press(t, m, "enter")
	mustContain(t, screen(m), "pick a scenario")
}

func findingWith(msg string) finding.Finding {
	return finding.Finding{Severity: finding.SevWarning, Code: "HMAC_WRONG", Family: "hmac", Subject: tuitest.ID(4), Message: msg}
}

// previewText is the preview pane's text without whitespace: right of the
// separator when beside the list, below its title otherwise.
func previewText(s string) string {
	var b strings.Builder
	below := false
	for _, l := range strings.Split(s, "\n") {
		if _, right, ok := strings.Cut(l, "│"); ok {
			b.WriteString(right)
			continue
		}
		if strings.Contains(l, "Selected in full") {
			below = true
		}
		if below {
			b.WriteString(l)
		}
	}
	return strings.Join(strings.Fields(b.String()), "")
}

// The label policy is global like tau: L (or :labels) switches it, every
// view relabels and the header says which is in force.
func TestLabelPolicyIsGlobal(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 200, 50, tui.Options{})
	m = press(t, m, "3")
	row := func() string {
		for _, l := range strings.Split(screen(m), "\n") {
			if strings.Contains(l, "…00013 ") {
				return strings.TrimSuffix(strings.Fields(l)[3], "*") // NOW (* marks a change)
			}
		}
		t.Fatalf("no row 13:\n%s", screen(m))
		return ""
	}
	mustContain(t, screen(m), "labels: fail-open")
	if row() != "DT" {
		t.Fatalf("row 13 under fail-open: %q", row())
	}
	m = press(t, m, "L")
	mustContain(t, screen(m), "labels: fail-closed", "labels fail-closed: every view")
	if row() != "DU" {
		t.Errorf("row 13 kept its fail-open label: %q", row())
	}
	m = press(t, m, "1")
	mustContain(t, screen(m), "labels       fail-closed")
	m = press(t, m, ":")
	m = typeText(t, m, "labels fail-open")
	m = press(t, m, "enter", "3")
	mustContain(t, screen(m), "labels: fail-open")
	if row() != "DT" {
		t.Errorf("row 13 under fail-open again: %q", row())
	}
}
