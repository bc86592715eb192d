package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyWorksIn says where a binding that is not global has an effect, for the
// status line of a key pressed where it does nothing. Names are KeyMap
// config names (keys.go).
var keyWorksIn = map[string]string{
	"filter":         "Findings and Entries",
	"sort":           "Entries and Exposure",
	"reverse":        "Entries and Exposure",
	"severity":       "Findings",
	"group":          "Findings",
	"toggle":         "an open query (Replay, enter on a query)",
	"what_if":        "an open query (Replay, enter on a query)",
	"story":          "an open query (Replay, enter on a query)",
	"story_back":     "an open query (Replay, enter on a query)",
	"as_ran":         "Replay",
	"right":          "Entries (lineage) and Lineage (detail)",
	"preview":        "views with a list: Findings, Entries, Lineage, Replay, Log, Actions, Timeline",
	"preview_grow":   "views with a list: Findings, Entries, Lineage, Replay, Log, Actions, Timeline",
	"preview_shrink": "views with a list: Findings, Entries, Lineage, Replay, Log, Actions, Timeline",
	"preview_up":     "the preview pane, when it has more lines than it shows",
	"preview_down":   "the preview pane, when it has more lines than it shows",
}

// noEffect puts in the status line why a key changed nothing: the list is
// already at its end, there is nothing to go back to, or the key works
// elsewhere (and where).
func (m *Model) noEffect(msg tea.KeyPressMsg) {
	name, desc := "", ""
	for _, nb := range m.keys.bindings() {
		if key.Matches(msg, *nb.b) {
			name, desc = nb.name, nb.b.Help().Desc
			break
		}
	}
	k := msg.String()
	switch name {
	case "":
		return // not a bound key: nothing to explain
	case "up", "page_up", "top":
		m.setStatus("%s: already at the top", k)
	case "down", "page_down", "bottom":
		m.setStatus("%s: already at the end", k)
	case "back", "left":
		m.setStatus("%s: nothing to go back to", k)
	case "open":
		m.setStatus("%s: nothing to open here", k)
	default:
		where := keyWorksIn[name]
		if where == "" {
			m.setStatus("%s (%s): nothing to do in the %s view", k, desc, m.view)
			return
		}
		m.setStatus("%s (%s) does nothing in the %s view; it works in %s", k, desc, m.view, where)
	}
}
