package tui_test

import (
	"strings"
	"testing"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// Not parallel: it reads the clipboard tuitest.Drive records, which
// parallel tests that copy would overwrite.

// c lists every cell of the selected row; each is shown in full and
// copied on its own, sanitised.
func TestCopyEachCell(t *testing.T) {
	m, _ := open(t, 20, 120, 40, tui.Options{})
	m = press(t, m, "3", "j", "j", "j", "c") // row 3: hostile content
	s := screen(m)
	mustContain(t, s, "Copy a cell of", "1 id", "2 writer", "3 content", "id in full", "0190a000-0000-7000-8000-000000000003")
	m = press(t, m, "3")
	if got, want := tuitest.Clipboard(), `clear \e[2J the screen`; got != want {
		t.Errorf("content copied as %q, want the sanitised %q", got, want)
	}
	mustContain(t, screen(m), "copied content")
	m = press(t, m, "c", "down", "enter")
	if got := tuitest.Clipboard(); got != "external:web" {
		t.Errorf("enter on the second cell copied %q", got)
	}
	// esc closes the menu without copying.
	m = press(t, m, "c", "esc")
	if strings.Contains(screen(m), "Copy a cell") {
		t.Error("esc left the menu open")
	}
}

// The Detail view and the open query have cells too: the values the
// document shows cut (hashes, culprit ids) are there in full.
func TestCopyCellsInDocuments(t *testing.T) {
	m, _ := open(t, 20, 120, 40, tui.Options{})
	m = press(t, m, "3", "j", "enter", "c")
	mustContain(t, screen(m), "Copy a cell of Detail", "leaf hash", "signed bytes (hex)")
	for strings.Contains(screen(m), "Copy a cell") && !strings.Contains(selectedRow(screen(m)), "leaf hash") {
		m = press(t, m, "down")
	}
	m = press(t, m, "enter")
	if got := tuitest.Clipboard(); len(got) != 64 {
		t.Errorf("leaf hash copied as %q: not the full 32-byte hash", got)
	}
	m = press(t, m, "6", "enter", "c")
	mustContain(t, screen(m), "culprit writes", "G_auth top-k", "injected p-9 text")
	for !strings.Contains(selectedRow(screen(m)), "culprit writes") {
		m = press(t, m, "down")
	}
	mustContain(t, screen(m), "culprit writes in full", "w-60a", "w-60b")
	press(t, m, "enter")
	if got := tuitest.Clipboard(); got != "w-60a\nw-60b" {
		t.Errorf("culprits copied as %q", got)
	}
}

func selectedRow(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "▶ ") {
			return l
		}
	}
	return ""
}

// A content cell that holds only the start of a long memory is replaced
// by the whole content, fetched in the background.
func TestCopyCellFetchesLongContent(t *testing.T) {
	m, _ := open(t, 20, 120, 40, tui.Options{})
	press(t, m, "3", "G", "k", "k", "c", "3")
	if got := tuitest.Clipboard(); !strings.HasPrefix(got, "a long memory, number 17;") || !strings.Contains(got, "second line") {
		t.Errorf("content copied as %q: not the whole memory", got)
	}
}
