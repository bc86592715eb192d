package tuitest

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Drive runs cmd and every command it leads to, feeding messages back into
// the model, the way the Bubble Tea runtime would (minus the renderer).
// Clipboard writes are kept in Clipboard.
func Drive(t testing.TB, m tea.Model, cmd tea.Cmd) tea.Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("command loop did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			return m
		default:
			if s, ok := clipboardText(msg); ok {
				clip.Lock()
				clip.text = s
				clip.Unlock()
				continue
			}
			var next tea.Cmd
			m, next = m.Update(msg)
			queue = append(queue, next)
		}
	}
	return m
}

// clip is the last clipboard write Drive saw (shared by every test of a
// package: tests that read it must not run in parallel with others that
// copy).
var clip struct {
	sync.Mutex
	text string
}

// Clipboard is the text of the last clipboard write Drive saw.
func Clipboard() string {
	clip.Lock()
	defer clip.Unlock()
	return clip.text
}

// clipboardText reads a tea.SetClipboard message (its type is unexported;
// it is a string underneath).
func clipboardText(msg tea.Msg) (string, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.String && v.Type().Name() == "setClipboardMsg" {
		return v.String(), true
	}
	return "", false
}

// Send delivers one message and runs the commands it produces.
func Send(t testing.TB, m tea.Model, msg tea.Msg) tea.Model {
	t.Helper()
	m, cmd := m.Update(msg)
	return Drive(t, m, cmd)
}

// Press sends keys by name: "enter", "esc", "tab", "up", "down",
// "backspace", "pgdown", "pgup", "space", or single characters.
func Press(t testing.TB, m tea.Model, keys ...string) tea.Model {
	t.Helper()
	for _, k := range keys {
		m = Send(t, m, KeyMsg(k))
	}
	return m
}

// KeyMsg is the key press named k.
func KeyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok && len(c) == 1 {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// Screen is the visible text without styles.
func Screen(m tea.Model) string { return ansi.Strip(m.View().Content) }
