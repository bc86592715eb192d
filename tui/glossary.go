package tui

import (
	"strings"

	shared "github.com/memscope/memscope/internal/present/glossary"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Term is one glossary entry: a word the inspector shows, in plain words.
type Term struct {
	Term, Means string
}

// glossary explains every label and word the views use: package
// glossary's list, shared with the HTML report. docs/GLOSSARY.md holds the
// same list (a test keeps them in step).
var glossary = func() []Term {
	var out []Term
	for _, t := range shared.Terms {
		if !t.ReportOnly {
			out = append(out, Term{Term: t.Term, Means: t.Meaning})
		}
	}
	return out
}()

// LookUp returns the glossary terms that start with q (or mention it), for
// memscope help TERM.
func LookUp(q string) []Term { return glossaryMatches(q) }

// Glossary returns every term, in display order.
func Glossary() []Term { return append([]Term(nil), glossary...) }

// glossaryMatches are the terms whose name starts with q (or all for "*").
func glossaryMatches(q string) []Term {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || q == "*" {
		return glossary
	}
	var out []Term
	for _, t := range glossary {
		if strings.HasPrefix(strings.ToLower(t.Term), q) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		for _, t := range glossary {
			if strings.Contains(strings.ToLower(t.Term+" "+t.Means), q) {
				out = append(out, t)
			}
		}
	}
	return out
}

// helpKey: in the help screen the movement keys scroll as everywhere else
// (j/k, pgup/pgdn/space, g/G), / starts a glossary lookup, and while one is
// being typed every printable key is part of the word (backspace edits, esc
// ends the lookup). esc, ? or q close the help.
func (m *Model) helpKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if msg.String() == "ctrl+c" {
		return m.quit()
	}
	if m.lookingUp {
		switch msg.String() {
		case "esc", "enter":
			m.lookingUp = false
			if msg.String() == "esc" {
				m.glossary, m.helpScroll = "", 0
			}
		case "backspace":
			if r := []rune(m.glossary); len(r) > 0 {
				m.glossary = string(r[:len(r)-1])
			}
			m.helpScroll = 0
		case "down", "up", "pgdown", "pgup":
			m.helpScrollBy(msg)
		default:
			if msg.Text != "" {
				m.glossary += msg.Text
				m.helpScroll = 0
			}
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Filter):
		m.lookingUp, m.glossary, m.helpScroll = true, "", 0
	case key.Matches(msg, k.Back) && m.glossary != "" && m.glossary != "*":
		m.glossary, m.helpScroll = "", 0
	case key.Matches(msg, k.Back), key.Matches(msg, k.Help), key.Matches(msg, k.Quit):
		m.showHelp, m.glossary = false, ""
	case key.Matches(msg, k.Command):
		m.showHelp, m.glossary = false, ""
		m.cmd.start()
	case !m.helpScrollBy(msg):
		m.setStatus("%s: in help, / looks a word up; esc, ? or q close", msg.String())
	}
	return nil
}

// helpScrollBy scrolls the help screen for a movement key (false: msg is
// not one).
func (m *Model) helpScrollBy(msg tea.KeyPressMsg) bool {
	k, page := m.keys, max(1, m.bodyHeight()-2)
	switch {
	case key.Matches(msg, k.Down):
		m.helpScroll++
	case key.Matches(msg, k.Up):
		m.helpScroll = max(0, m.helpScroll-1)
	case key.Matches(msg, k.PageDown):
		m.helpScroll += page
	case key.Matches(msg, k.PageUp):
		m.helpScroll = max(0, m.helpScroll-page)
	case key.Matches(msg, k.Top):
		m.helpScroll = 0
	case key.Matches(msg, k.Bottom):
		m.helpScroll = 1 << 30
	default:
		return false
	}
	return true
}

func (m *Model) renderHelp(w, h int) []string {
	s := m.styles
	var lines []string
	if m.glossary != "" {
		q := m.glossary
		lines = append(lines, s.Title.Render("Glossary")+s.Dim.Render("  looking up: ")+s.Bold.Render(q)+s.Dim.Render(lookupHint(m.lookingUp)), "")
		ts := glossaryMatches(q)
		if len(ts) == 0 {
			lines = append(lines, s.Dim.Render("  no term matches"))
		}
		for _, t := range ts {
			lines = append(lines, s.Bold.Render("  "+t.Term))
			lines = append(lines, wrapLine("    "+t.Means, w-2)...)
		}
	} else {
		lines = append(lines, s.Title.Render("Keys")+s.Dim.Render("  (effective bindings; remap in "+keyMapPathHint()+"; j/k scroll, g/G top/bottom, / looks a word up, esc closes)"), "")
		for _, group := range m.keys.FullHelp() {
			for _, b := range group {
				if !b.Enabled() {
					continue
				}
				hp := b.Help()
				lines = append(lines, "  "+s.Bold.Render(padRight(strings.Join(b.Keys(), " / "), 22))+" "+hp.Desc)
			}
			lines = append(lines, "")
		}
		lines = append(lines, s.Title.Render("Glossary")+s.Dim.Render("  (/ then a term looks it up; also docs/GLOSSARY.md and memscope help TERM)"))
		for _, t := range glossary {
			lines = append(lines, wrapLine("  "+s.Bold.Render(t.Term)+"  "+t.Means, w-2)...)
		}
	}
	top := min(m.helpScroll, max(0, len(lines)-h))
	m.helpScroll = top
	end := min(len(lines), top+h)
	out := append([]string(nil), lines[top:end]...)
	if end < len(lines) && h > 1 {
		out[len(out)-1] = s.Dim.Render(moreLine(len(lines)-end+1, s.Plain))
	}
	return out
}

func lookupHint(typing bool) string {
	if typing {
		return "_  (type to look up, backspace edits, enter keeps, esc all keys)"
	}
	return "  (/ looks up another word, esc all keys)"
}
