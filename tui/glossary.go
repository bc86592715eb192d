package tui

import (
	"strings"

	shared "github.com/memscope/memscope/internal/present/glossary"

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

// helpKey: in the help screen j/k/pgup/pgdn/g/G scroll, typing looks a
// term up in the glossary, backspace edits it, esc or ? closes.
func (m *Model) helpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch s := msg.String(); s {
	case "ctrl+c":
		return m.quit()
	case "esc", "?", "q":
		if s == "esc" && m.glossary != "" && m.glossary != "*" {
			m.glossary, m.helpScroll = "", 0
			return nil
		}
		m.showHelp = false
	case "down", "ctrl+d", "ctrl+n":
		m.helpScroll++
	case "up", "ctrl+u", "ctrl+p":
		m.helpScroll = max(0, m.helpScroll-1)
	case "j", "k":
		if m.glossary != "" {
			m.glossary += s
			m.helpScroll = 0
		} else if s == "j" {
			m.helpScroll++
		} else {
			m.helpScroll = max(0, m.helpScroll-1)
		}
	case "pgdown", "space":
		m.helpScroll += max(1, m.bodyHeight()-2)
	case "pgup":
		m.helpScroll = max(0, m.helpScroll-max(1, m.bodyHeight()-2))
	case "home":
		m.helpScroll = 0
	case "end":
		m.helpScroll = 1 << 30
	case "backspace":
		if r := []rune(m.glossary); len(r) > 0 {
			m.glossary = string(r[:len(r)-1])
		}
		m.helpScroll = 0
	default:
		if msg.Text != "" {
			m.glossary += msg.Text
			m.helpScroll = 0
		}
	}
	return nil
}

func (m *Model) renderHelp(w, h int) []string {
	s := m.styles
	var lines []string
	if m.glossary != "" {
		q := m.glossary
		lines = append(lines, s.Title.Render("Glossary")+s.Dim.Render("  looking up: ")+s.Bold.Render(q)+s.Dim.Render("  (type to look up, backspace edits, esc all keys)"), "")
		ts := glossaryMatches(q)
		if len(ts) == 0 {
			lines = append(lines, s.Dim.Render("  no term matches"))
		}
		for _, t := range ts {
			lines = append(lines, s.Bold.Render("  "+t.Term))
			lines = append(lines, wrapLine("    "+t.Means, w-2)...)
		}
	} else {
		lines = append(lines, s.Title.Render("Keys")+s.Dim.Render("  (effective bindings; remap in "+keyMapPathHint()+"; j/k scroll, esc closes; type a word to look it up)"), "")
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
		lines = append(lines, s.Title.Render("Glossary")+s.Dim.Render("  (type a term to look it up; also docs/GLOSSARY.md)"))
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
