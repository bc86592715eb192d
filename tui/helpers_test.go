package tui_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// drive, send, press and keyMsg are tuitest's, under the names these
// tests have always used.
func drive(t testing.TB, m tea.Model, cmd tea.Cmd) tea.Model {
	t.Helper()
	return tuitest.Drive(t, m, cmd)
}

func send(t testing.TB, m tea.Model, msg tea.Msg) tea.Model {
	t.Helper()
	return tuitest.Send(t, m, msg)
}

func press(t testing.TB, m tea.Model, keys ...string) tea.Model {
	t.Helper()
	return tuitest.Press(t, m, keys...)
}

func keyMsg(k string) tea.KeyPressMsg { return tuitest.KeyMsg(k) }

// typeText sends each rune of s as a key.
func typeText(t testing.TB, m tea.Model, s string) tea.Model {
	for _, r := range s {
		m = press(t, m, string(r))
	}
	return m
}

// open builds a model over a fake store of n entries at w x h, with the
// verification run to completion.
func open(t testing.TB, n, w, h int, opts tui.Options) (tea.Model, *tuitest.Fake) {
	t.Helper()
	f := tuitest.New(n)
	opts.Static = true
	m := tui.New(f, opts)
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: w, Height: h})
	return m, f
}

// screen is the visible text without styles.
func screen(m tea.Model) string { return ansi.Strip(m.View().Content) }

// ascii downsamples a frame to the Ascii profile: colours go, bold and
// reverse stay, so goldens are stable and still show the selection.
func ascii(t testing.TB, s string) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.Ascii}
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s", path, ansi.Strip(got))
	}
}

func mustContain(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("screen lacks %q:\n%s", sub, s)
		}
	}
}

// firstVerifyMsg runs m's Init and returns verification's first report,
// without the rest: the test delivers it and drives what follows.
func firstVerifyMsg(t testing.TB, m tea.Model) tea.Msg {
	t.Helper()
	for _, c := range m.Init()().(tea.BatchMsg) {
		if c == nil {
			continue
		}
		if msg := c(); fmt.Sprintf("%T", msg) == "tui.verifyMsg" {
			return msg
		}
	}
	t.Fatal("Init started no verification")
	return nil
}
