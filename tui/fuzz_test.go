package tui_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// hostileSource serves one entry whose every text field is the fuzz input.
type hostileSource struct {
	*tuitest.Fake
	text string
}

func (h hostileSource) Entry(i int) tui.EntryRow {
	r := h.Fake.Entry(i)
	r.ID, r.Writer, r.Preview = h.text, h.text, h.text
	return r
}

func (h hostileSource) EntryDetail(ctx context.Context, i int) (tui.EntryDetail, error) {
	d, err := h.Fake.EntryDetail(ctx, i)
	d.Row = h.Entry(i)
	d.Fields = []tui.Field{{Name: "content", Value: h.text}, {Name: h.text, Value: h.text}}
	d.SigNote = h.text
	return d, err
}

// FuzzUntrustedText: whatever an entry contains, the entries and detail
// frames carry no terminal control except the model's own SGR styling.
func FuzzUntrustedText(f *testing.F) {
	for _, s := range tuitest.Hostile {
		f.Add(s)
	}
	f.Add("\xff\xfe invalid utf-8")
	f.Add("\x1b[")
	f.Fuzz(func(t *testing.T, s string) {
		src := hostileSource{tuitest.New(3), s}
		m := tui.New(src, tui.Options{Static: true, NoVerify: true})
		m = press(t, m, "3")
		assertNoTerminalControls(t, m.View().Content)
		m = press(t, m, "enter")
		assertNoTerminalControls(t, m.View().Content)
	})
}

// FuzzKeyMapApply: arbitrary key-map JSON either applies or fails with an
// error; it never panics, and applied keys show up in the help text.
func FuzzKeyMapApply(f *testing.F) {
	f.Add(`{"up": ["k", "ctrl+p"], "quit": ["Q"]}`)
	f.Add(`{"nope": ["x"]}`)
	f.Add(`{"down": []}`)
	f.Fuzz(func(t *testing.T, data string) {
		var over map[string][]string
		if json.Unmarshal([]byte(data), &over) != nil {
			return
		}
		km := tui.DefaultKeyMap()
		if err := km.Apply(over); err != nil {
			return
		}
		if keys, ok := over["up"]; ok && km.Up.Help().Key != strings.Join(keys, "/") {
			t.Errorf("help for up is %q, keys %q", km.Up.Help().Key, keys)
		}
	})
}
