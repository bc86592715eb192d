package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"

	"github.com/memscope/memscope/evidence"
)

// KeyMap is the one key map. Help and the footer are built from it, so a
// remapped key shows up everywhere.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Left, Right                             key.Binding
	NextView, PrevView                      key.Binding
	Overview, Findings, Entries, Detail     key.Binding
	Lineage, Replay, Log, Actions, Timeline key.Binding
	Exposure                                key.Binding
	Open, Back, Filter, Sort, Reverse       key.Binding
	Severity, Group                         key.Binding
	TauUp, TauDown, Policy                  key.Binding
	Toggle, WhatIf, Story, StoryBack        key.Binding
	AsRan                                   key.Binding
	Copy, CopyAll, CopyCell                 key.Binding
	ExportJSON, ExportDOT                   key.Binding
	Preview, PreviewGrow, PreviewShrink     key.Binding
	PreviewUp, PreviewDown                  key.Binding
	Command, Picker, Help, Quit             key.Binding
}

// viewKey is the binding that switches to view v.
func (k KeyMap) viewKey(v View) key.Binding {
	switch v {
	case ViewOverview:
		return k.Overview
	case ViewFindings:
		return k.Findings
	case ViewEntries:
		return k.Entries
	case ViewDetail:
		return k.Detail
	case ViewLineage:
		return k.Lineage
	case ViewReplay:
		return k.Replay
	case ViewLog:
		return k.Log
	case ViewActions:
		return k.Actions
	case ViewTimeline:
		return k.Timeline
	case ViewExposure:
		return k.Exposure
	}
	return key.NewBinding(key.WithDisabled())
}

// DefaultKeyMap has vim and arrow keys.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:            b([]string{"k", "up"}, "↑/k", "up"),
		Down:          b([]string{"j", "down"}, "↓/j", "down"),
		PageUp:        b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown:      b([]string{"pgdown", "ctrl+d", "space"}, "pgdn", "page down"),
		Top:           b([]string{"g", "home"}, "g", "top"),
		Bottom:        b([]string{"G", "end"}, "G", "bottom"),
		Left:          b([]string{"h", "left"}, "←/h", "left"),
		Right:         b([]string{"l", "right"}, "→/l", "right"),
		NextView:      b([]string{"tab"}, "tab", "next view"),
		PrevView:      b([]string{"shift+tab"}, "S-tab", "prev view"),
		Overview:      b([]string{"1"}, "1", "overview"),
		Findings:      b([]string{"2"}, "2", "findings"),
		Entries:       b([]string{"3"}, "3", "entries"),
		Detail:        b([]string{"4"}, "4", "detail"),
		Lineage:       b([]string{"5"}, "5", "lineage"),
		Replay:        b([]string{"6"}, "6", "replay"),
		Log:           b([]string{"7"}, "7", "log"),
		Actions:       b([]string{"8"}, "8", "actions"),
		Timeline:      b([]string{"9"}, "9", "timeline"),
		Exposure:      b([]string{"0"}, "0", "exposure"),
		Open:          b([]string{"enter"}, "enter", "open"),
		Back:          b([]string{"esc", "backspace"}, "esc", "back"),
		Filter:        b([]string{"/"}, "/", "filter"),
		Sort:          b([]string{"s"}, "s", "sort"),
		Reverse:       b([]string{"S"}, "S", "reverse sort"),
		Severity:      b([]string{"f"}, "f", "severity filter"),
		Group:         b([]string{"o"}, "o", "group findings by"),
		TauUp:         b([]string{"+", "="}, "+", "tau up"),
		TauDown:       b([]string{"-", "_"}, "-", "tau down"),
		Policy:        b([]string{"L"}, "L", "label policy fail-open/closed"),
		Toggle:        b([]string{"x"}, "x", "toggle edge"),
		WhatIf:        b([]string{"w"}, "w", "what-if"),
		AsRan:         b([]string{"t"}, "t", "replay as each query ran / now"),
		Story:         b([]string{"n"}, "n", "next story step"),
		StoryBack:     b([]string{"N"}, "N", "previous story step"),
		Copy:          b([]string{"y"}, "y", "copy id"),
		CopyAll:       b([]string{"Y"}, "Y", "copy the row in full"),
		CopyCell:      b([]string{"c"}, "c", "copy a cell"),
		Preview:       b([]string{"p"}, "p", "preview pane"),
		PreviewGrow:   b([]string{">"}, ">", "wider preview"),
		PreviewShrink: b([]string{"<"}, "<", "narrower preview"),
		PreviewUp:     b([]string{"["}, "[", "preview up"),
		PreviewDown:   b([]string{"]"}, "]", "preview down"),
		Command:       b([]string{":"}, ":", "command / jump"),
		Picker:        b([]string{"P"}, "P", "scenario picker"),
		ExportJSON:    b([]string{"e"}, "e", "export json"),
		ExportDOT:     b([]string{"E"}, "E", "export dot"),
		Help:          b([]string{"?"}, "?", "help"),
		Quit:          b([]string{"q", "ctrl+c"}, "q", "quit"),
	}
}

// bindings lists every binding by its config name, in help order.
func (k *KeyMap) bindings() []namedBinding {
	return []namedBinding{
		{"up", &k.Up}, {"down", &k.Down}, {"page_up", &k.PageUp}, {"page_down", &k.PageDown},
		{"top", &k.Top}, {"bottom", &k.Bottom}, {"left", &k.Left}, {"right", &k.Right},
		{"next_view", &k.NextView}, {"prev_view", &k.PrevView},
		{"overview", &k.Overview}, {"findings", &k.Findings}, {"entries", &k.Entries},
		{"detail", &k.Detail}, {"lineage", &k.Lineage}, {"replay", &k.Replay},
		{"log", &k.Log}, {"actions", &k.Actions}, {"timeline", &k.Timeline}, {"exposure", &k.Exposure},
		{"open", &k.Open}, {"back", &k.Back}, {"filter", &k.Filter}, {"sort", &k.Sort},
		{"reverse", &k.Reverse}, {"severity", &k.Severity}, {"group", &k.Group},
		{"tau_up", &k.TauUp}, {"tau_down", &k.TauDown}, {"label_policy", &k.Policy}, {"toggle", &k.Toggle}, {"what_if", &k.WhatIf}, {"as_ran", &k.AsRan}, {"story", &k.Story}, {"story_back", &k.StoryBack},
		{"copy", &k.Copy}, {"copy_all", &k.CopyAll}, {"copy_cell", &k.CopyCell}, {"export_json", &k.ExportJSON}, {"export_dot", &k.ExportDOT},
		{"preview", &k.Preview}, {"preview_grow", &k.PreviewGrow}, {"preview_shrink", &k.PreviewShrink},
		{"preview_up", &k.PreviewUp}, {"preview_down", &k.PreviewDown},
		{"command", &k.Command}, {"picker", &k.Picker}, {"help", &k.Help}, {"quit", &k.Quit},
	}
}

type namedBinding struct {
	name string
	b    *key.Binding
}

// DefaultKeyMapPath is where LoadKeyMap looks when given no path:
// $XDG_CONFIG_HOME/memscope/keys.json (os.UserConfigDir).
func DefaultKeyMapPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "memscope", "keys.json")
}

// LoadKeyMap returns the default key map with the overrides of the JSON file
// at path applied. The file maps binding names to key lists, for example
// {"up": ["k", "up", "ctrl+p"], "quit": ["Q"]}. A missing file is not an
// error; an unknown name or an empty key list is.
func LoadKeyMap(path string) (KeyMap, error) {
	km := DefaultKeyMap()
	if path == "" {
		return km, nil
	}
	data, err := evidence.ReadFile(path, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return km, nil
	}
	if err != nil {
		return km, fmt.Errorf("key map %s: %w", path, err)
	}
	var over map[string][]string
	if err := json.Unmarshal(data, &over); err != nil {
		return km, fmt.Errorf("key map %s: not a JSON object of name -> [keys]: %w", path, err)
	}
	if err := km.Apply(over); err != nil {
		return km, fmt.Errorf("key map %s: %w", path, err)
	}
	return km, nil
}

// Apply replaces the keys of the named bindings; the help text shows the
// new keys.
func (k *KeyMap) Apply(over map[string][]string) error {
	byName := map[string]*key.Binding{}
	var names []string
	for _, nb := range k.bindings() {
		byName[nb.name] = nb.b
		names = append(names, nb.name)
	}
	keys := make([]string, 0, len(over))
	for name := range over {
		keys = append(keys, name)
	}
	sort.Strings(keys)
	for _, name := range keys {
		b, ok := byName[name]
		if !ok {
			return fmt.Errorf("unknown binding %q (known: %s)", name, strings.Join(names, ", "))
		}
		ks := over[name]
		if len(ks) == 0 {
			return fmt.Errorf("binding %q: empty key list", name)
		}
		for _, kk := range ks {
			if kk == "" {
				return fmt.Errorf("binding %q: empty key name", name)
			}
		}
		desc := b.Help().Desc
		b.SetKeys(ks...)
		b.SetHelp(strings.Join(ks, "/"), desc)
	}
	return nil
}

// FullHelp groups every binding for the ? screen.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Left, k.Right},
		{k.NextView, k.PrevView, k.Overview, k.Findings, k.Entries, k.Detail, k.Lineage, k.Replay, k.Log, k.Actions, k.Timeline, k.Exposure},
		{k.Open, k.Back, k.Filter, k.Sort, k.Reverse, k.Severity, k.Group, k.TauUp, k.TauDown, k.Policy},
		{k.Toggle, k.WhatIf, k.AsRan, k.Story, k.StoryBack, k.Copy, k.CopyAll, k.CopyCell, k.ExportJSON, k.ExportDOT},
		{k.Preview, k.PreviewShrink, k.PreviewGrow, k.PreviewUp, k.PreviewDown, k.Command, k.Picker, k.Help, k.Quit},
	}
}
