package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// cmdState is the : command bar: jump to a view, an id or short id, a
// query or action, set tau, go back to the picker. Tab completes.
type cmdState struct {
	editing bool
	text    string
	comps   []string // completions of text: words, then entry ids
	entries []string // entry ids matching text, from a background scan
	pick    int      // the completion tab last chose (-1: none)
	gen     int
	latest  atomic.Int64
}

func (c *cmdState) start() {
	c.editing, c.text, c.comps, c.entries, c.pick = true, "", nil, nil, -1
}

// cmdWords are the commands besides view names.
var cmdWords = []string{"picker", "quit", "help", "tau ", "labels fail-open", "labels fail-closed", "glossary "}

type cmdEntriesMsg struct {
	gen int
	ids []string
}

type cmdResolvedMsg struct {
	form    string
	id      string
	subject string // the jump that opens id (resolve.go)
	note    string
	err     error
}

func (m *Model) cmdKey(msg tea.KeyPressMsg) tea.Cmd {
	c := &m.cmd
	switch msg.String() {
	case "esc":
		c.editing = false
		return nil
	case "ctrl+c":
		return m.quit()
	case "enter":
		c.editing = false
		return m.runCommand(strings.TrimSpace(c.text))
	case "tab", "down":
		all := append(append([]string(nil), c.comps...), c.entries...)
		if len(all) > 0 {
			c.pick = (c.pick + 1) % len(all)
			c.text = all[c.pick]
		}
		return nil
	case "shift+tab", "up":
		all := append(append([]string(nil), c.comps...), c.entries...)
		if len(all) > 0 {
			c.pick = (c.pick + len(all) - 1) % len(all)
			c.text = all[c.pick]
		}
		return nil
	case "backspace":
		if r := []rune(c.text); len(r) > 0 {
			c.text = string(r[:len(r)-1])
		}
	default:
		if msg.Text == "" {
			return nil
		}
		c.text += msg.Text
	}
	c.pick = -1
	return m.complete()
}

// complete lists the words, views, queries and actions that text starts
// (or, for ids, ends) with, and starts a background scan of entry ids.
func (m *Model) complete() tea.Cmd {
	c := &m.cmd
	t := strings.ToLower(c.text)
	c.comps, c.entries = c.comps[:0], nil
	if t == "" {
		return nil
	}
	add := func(s string) {
		if !slices.Contains(c.comps, s) {
			c.comps = append(c.comps, s)
		}
	}
	for v := View(0); v < viewCount; v++ {
		if n := strings.ToLower(v.String()); strings.HasPrefix(n, t) {
			add(n)
		}
	}
	for _, w := range cmdWords {
		if strings.HasPrefix(w, t) {
			add(w)
		}
	}
	for _, q := range m.queryIDs() {
		if strings.HasPrefix(strings.ToLower(q), t) || idform.Matches(q, c.text) {
			add(q)
		}
	}
	for _, a := range m.act.rows {
		if strings.HasPrefix(strings.ToLower(a.Action), t) || idform.Matches(a.Action, c.text) {
			add(a.Action)
		}
	}
	if strings.HasPrefix("glossary ", t) || strings.HasPrefix(t, "glossary ") {
		for _, g := range glossary {
			if cand := "glossary " + g.Term; strings.HasPrefix(strings.ToLower(cand), t) {
				add(cand)
			}
		}
	}
	if len(c.text) < idform.MinLen && !strings.ContainsAny(c.text, "…~") {
		return nil
	}
	// Entry ids: scanned in the background (a million rows must not stall
	// a keypress); a newer keypress makes the scan stop.
	c.gen++
	c.latest.Store(int64(c.gen))
	gen, src, form, latest := c.gen, m.src, c.text, &c.latest
	return func() tea.Msg {
		var ids []string
		n := src.EntryCount()
		for i := 0; i < n && len(ids) < 8; i++ {
			if i&4095 == 0 && latest.Load() != int64(gen) {
				return nil
			}
			if id := src.Entry(i).ID; idform.Matches(id, form) {
				ids = append(ids, id)
			}
		}
		return cmdEntriesMsg{gen: gen, ids: ids}
	}
}

func (m *Model) queryIDs() []string {
	if m.rep.rv == nil {
		return nil
	}
	out := make([]string, 0, len(m.rep.rv.Rows))
	for _, r := range m.rep.rv.Rows {
		out = append(out, r.QueryID)
	}
	return out
}

// runCommand does what the command bar says.
func (m *Model) runCommand(text string) tea.Cmd {
	if text == "" {
		return nil
	}
	low := strings.ToLower(text)
	word, rest, _ := strings.Cut(low, " ")
	rest = strings.TrimSpace(rest)
	for v := View(0); v < viewCount; v++ {
		if strings.ToLower(v.String()) == low {
			m.push()
			return m.switchTo(v)
		}
	}
	switch word {
	case "quit", "q":
		return m.quit()
	case "picker":
		if m.onPicker == nil {
			m.setErr("no scenario picker: this is not memscope demo")
			return nil
		}
		m.cancel()
		return m.onPicker()
	case "help":
		m.showHelp, m.helpScroll, m.glossary = true, 0, ""
		return nil
	case "glossary", "what", "define":
		m.showHelp, m.helpScroll, m.glossary = true, 0, rest
		if rest == "" {
			m.glossary = "*"
		}
		return nil
	case "tau":
		t, err := strconv.ParseFloat(rest, 64)
		if err != nil || t < 0 || t > 1 {
			m.setErr("tau wants a number from 0 to 1, got \"%s\"", sanitize.Line(rest))
			return nil
		}
		return m.setTau(t)
	case "labels", "policy":
		switch rest {
		case "fail-open", "open":
			return m.setPolicy(false)
		case "fail-closed", "closed":
			return m.setPolicy(true)
		}
		m.setErr("labels wants fail-open or fail-closed, got \"%s\"", sanitize.Line(rest))
		return nil
	case "leaf", "checkpoint", "query", "action":
		m.push()
		return m.jump(word + " " + text[len(word)+1:])
	}
	for _, q := range m.queryIDs() {
		if q == text || idform.Matches(q, text) {
			m.push()
			return m.jump("query " + q)
		}
	}
	for _, a := range m.act.rows {
		if a.Action == text || idform.Matches(a.Action, text) {
			m.push()
			return m.jump("action " + a.Action)
		}
	}
	if _, ok := m.src.EntryIndex(text); ok {
		m.push()
		return m.openEntryID(text)
	}
	m.setStatus("looking for %s...", sanitize.Line(text))
	return m.resolveID(text)
}

func (m *Model) cmdResolved(msg cmdResolvedMsg) tea.Cmd {
	if msg.err != nil {
		m.setErr("%s: not a view, command or the id of anything this store holds", sanitize.Line(msg.err.Error()))
		return nil
	}
	m.push()
	cmd := m.jump(msg.subject)
	if msg.note != "" && !m.statusIsErr {
		m.setStatus("%s", msg.note)
	}
	return cmd
}

func (m *Model) renderCmdLine(w int) string {
	s := m.styles
	return s.FilterPrompt.Render(":") + sanitize.Line(m.cmd.text) + s.Bold.Render("_") +
		s.Dim.Render("   view, id or short id, query, action, tau N, labels fail-closed, glossary TERM, picker  (tab completes, esc cancels)")
}

func (m *Model) renderCompletions(w int) string {
	s, c := m.styles, &m.cmd
	all := append(append([]string(nil), c.comps...), c.entries...)
	if len(all) == 0 {
		if c.text == "" {
			return s.Dim.Render("  " + strings.Join(viewNamesLower(), " "))
		}
		return s.Dim.Render("  no completions")
	}
	var b strings.Builder
	b.WriteString(s.Dim.Render(fmt.Sprintf("  %d: ", len(all))))
	for i, x := range all {
		x = sanitize.Line(x)
		if i == c.pick {
			x = s.Selected.Render(x)
		}
		b.WriteString(x + "  ")
	}
	return b.String()
}

func viewNamesLower() []string {
	out := make([]string, 0, viewCount)
	for v := View(0); v < viewCount; v++ {
		out = append(out, strings.ToLower(v.String()))
	}
	return out
}
