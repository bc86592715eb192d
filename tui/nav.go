package tui

import (
	"fmt"
	"maps"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// navFrame is one place on the navigation stack: the view and where the
// user was in every view (selection, filter, scroll, open query).
type navFrame struct {
	view  View
	label string // breadcrumb: the view and the selected item
	st    viewStates
}

// maxStack bounds the navigation stack; the oldest places fall off.
const maxStack = 64

// push remembers where the user is before Enter or : takes them elsewhere.
func (m *Model) push() {
	f := navFrame{view: m.view, label: m.crumb(), st: m.viewStates}
	// The copy must not share what later edits mutate in place.
	f.st.rep.removed = maps.Clone(m.rep.removed)
	if len(m.stack) == maxStack {
		m.stack = append(m.stack[:0], m.stack[1:]...)
	}
	m.stack = append(m.stack, f)
}

// pop returns to the last place pushed: the same view, row, filter and
// scroll. Data that arrived since (verification, replay) is kept.
func (m *Model) pop() tea.Cmd {
	f := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	cur := m.viewStates
	m.viewStates = f.st
	m.view = f.view
	m.pv.scroll = 0
	var cmds []tea.Cmd

	// Replay data is global; only the position comes from the frame.
	m.rep.rv, m.rep.loading, m.rep.err, m.rep.order = cur.rep.rv, cur.rep.loading, cur.rep.err, cur.rep.order
	m.rep.wiGen = cur.rep.wiGen + 1
	if m.rep.wiLoading {
		cmds = append(cmds, m.runWhatIf())
	}
	m.act.rows = cur.act.rows

	// Entries: the frame's order and filter are complete results; any scan
	// still running belongs to the place we left.
	m.ent.n, m.ent.cache = cur.ent.n, nil
	m.ent.gen = cur.ent.gen + 1
	m.ent.latest.Store(int64(m.ent.gen))
	if m.ent.pending || m.ent.stale {
		m.ent.stale = false
		cmds = append(cmds, m.ent.refilter(m.src))
	}

	// Findings may have grown since: rebuild with the frame's filters and
	// keep its row.
	sel, top := m.fnd.cur.sel, m.fnd.cur.top
	m.fnd.causes = cur.fnd.causes
	m.fnd.rebuild(m.findings)
	m.fnd.cur.sel, m.fnd.cur.top = sel, top
	m.fnd.cur.clamp(m.fnd.len(), 1<<30)

	m.det.gen = cur.det.gen + 1
	if m.det.loading {
		v := m.view
		cmds = append(cmds, m.openEntry(m.det.index))
		m.view = v
	}
	m.lin.gen = cur.lin.gen + 1
	if m.lin.id != "" && (m.lin.loading || m.lineageStale()) {
		v, sel := m.view, m.lin.cur
		cmds = append(cmds, m.loadLineage(m.lin.id))
		m.view, m.lin.keepCur = v, &sel
	}
	return tea.Batch(cmds...)
}

// back is esc: pop the navigation stack, or with nothing to pop undo the
// view's own state (a filter, an open query).
func (m *Model) back() tea.Cmd {
	if len(m.stack) > 0 {
		return m.pop()
	}
	switch m.view {
	case ViewEntries:
		if m.ent.filter != "" {
			m.ent.filter = ""
			return m.ent.refilter(m.src)
		}
	case ViewFindings:
		m.fnd.text, m.fnd.sev = "", 0
		m.fnd.rebuild(m.findings)
	case ViewReplay:
		m.rep.open = false
	case ViewDetail, ViewLineage:
		return m.switchTo(ViewEntries)
	}
	return nil
}

// crumb names the current place: the view and its selected item, the id
// in its short form (remembered frames, titles).
func (m *Model) crumb() string { return m.crumbID(true) }

// crumbID is crumb with the id in full when short is false.
func (m *Model) crumbID(short bool) string {
	id := func(s string) string {
		s = sanitize.Line(s)
		if short {
			return shortID(s, m.styles.Plain)
		}
		return s
	}
	name := m.view.String()
	if m.view == ViewReplay && m.rep.open {
		if r, ok := m.rep.selectedRow(); ok {
			return "Query " + id(r.QueryID)
		}
	}
	if sel := viewDefs[m.view].selected; sel != nil {
		if s := sel(m); s != "" {
			return name + " " + id(s)
		}
	}
	return name
}

// renderCrumbs is the second header line: where you came from (esc goes
// back one step) and the state every view uses.
func (m *Model) renderCrumbs(w int) string {
	s := m.styles
	sep := " › "
	if s.Plain {
		sep = " > "
	}
	var parts []string
	for _, f := range m.stack {
		parts = append(parts, f.label)
	}
	state := m.stateLine()
	if w < 120 {
		state = strings.ReplaceAll(strings.ReplaceAll(state, "labels: ", ""), "what-if: ", "what-if ")
	}
	room := w - ansiWidth(state) - 2
	// The current place's id in full when it fits, else its short form.
	cur := m.crumbID(false)
	if ansiWidth(strings.Join(append(parts, cur), sep)) > room {
		cur = m.crumb()
	}
	parts = append(parts, s.Bold.Render(cur))
	// Too narrow: older crumbs keep only their view name, then the oldest
	// go.
	for i := 0; i < len(parts)-1 && ansiWidth(strings.Join(parts, sep)) > room; i++ {
		parts[i] = m.stack[i].view.String()
	}
	for len(parts) > 1 && ansiWidth(strings.Join(parts, sep)) > room {
		parts = parts[1:]
		parts[0] = "..." + sep + parts[0]
	}
	left := strings.Join(parts, sep)
	gap := w - ansiWidth(left) - ansiWidth(state)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + s.Dim.Render(state)
}

// stateLine is the global state in force: tau and the what-if set.
func (m *Model) stateLine() string {
	wi := "what-if: none"
	if n := m.rep.removedCount(); n > 0 {
		wi = fmt.Sprintf("what-if: %d removed", n)
	}
	pol := ""
	if m.ov.LabelPolicy != "" {
		pol = "  labels: " + policyName(m.failClosed)
	}
	return fmt.Sprintf("tau %.2f%s  %s", m.tau, pol, wi)
}
