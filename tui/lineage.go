package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/sanitize"
)

type lineageState struct {
	id      string
	dagH    int // DAG rows shown (set by render)
	keepCur *listCursor
	gen     int
	loading bool
	err     error
	lv      *LineageView
	cur     listCursor
	policy  string // the Source's label policy when lv was loaded
}

// lineageStale says the drawing was made at another tau or label policy
// than the ones in force.
func (m *Model) lineageStale() bool {
	// A store's declared history does not depend on tau or the policy.
	return m.lin.lv != nil && !m.lineageDeclared() && (m.lin.lv.Tau != m.tau || m.lin.policy != m.ov.LabelPolicy)
}

// lineageDeclared says the drawing is a native store's declared history,
// which no tau or label policy changes.
func (m *Model) lineageDeclared() bool { return m.lin.lv != nil && m.lin.lv.Declared != "" }

// stepTau moves tau to the next ladder value above or below the current one.
func stepTau(tau float64, up bool) float64 {
	if up {
		for _, t := range tauLadder {
			if t > tau+1e-9 {
				return t
			}
		}
		return tauLadder[len(tauLadder)-1]
	}
	for i := len(tauLadder) - 1; i >= 0; i-- {
		if tauLadder[i] < tau-1e-9 {
			return tauLadder[i]
		}
	}
	return tauLadder[0]
}

func (m *Model) lineageKey(msg tea.KeyPressMsg) tea.Cmd {
	k, l := m.keys, &m.lin
	switch {
	case key.Matches(msg, k.Open):
		// Re-centre the lineage on the selected row's entry.
		if id := m.lineageSelected(); id != "" && id != l.id {
			m.push()
			return m.loadLineage(id)
		}
	case key.Matches(msg, k.Right):
		if lv := l.lv; lv != nil && l.cur.sel < len(lv.RowIDs) && lv.RowIDs[l.cur.sel] != "" {
			m.push()
			return m.openEntryID(lv.RowIDs[l.cur.sel])
		}
	default:
		return m.unused()
	}
	return nil
}

func (m *Model) lineageSelected() string {
	if lv := m.lin.lv; lv != nil && m.lin.cur.sel < len(lv.RowIDs) && lv.RowIDs[m.lin.cur.sel] != "" {
		return lv.RowIDs[m.lin.cur.sel]
	}
	return m.lin.id
}

// lineagePreview is the selected DAG row's entry in full.
func (m *Model) lineagePreview() []string {
	id := m.lineageSelected()
	if id == "" {
		return nil
	}
	i, ok := m.src.EntryIndex(id)
	if !ok {
		return []string{"id: " + m.untrusted(id, 1<<20), m.styles.Error.Render("not in the store (counts as External)")}
	}
	r := m.src.Entry(i)
	out := []string{
		"id: " + m.untrusted(r.ID, 1<<20),
		"writer: " + m.untrusted(r.Writer, 1<<20),
	}
	if m.lineageDeclared() {
		out = append(out, "trust: none recorded (the store's rows carry no trust label)")
	} else {
		out = append(out, fmt.Sprintf("trust: recorded %s, recomputed at tau %.2f %s", trustWord(r.Recorded), m.tau, trustWord(r.Recomputed)))
	}
	out = append(out, m.wrapUntrusted("content: ", r.Preview)...)
	return append(out, m.styles.Dim.Render(m.keys.Open.Help().Key+" re-centres here, "+m.keys.Right.Help().Key+" opens the detail"))
}

// weightArrow draws an edge with its weight so it cannot read as a
// negative number: " -[0.80]-> " (ASCII, so plain mode keeps it).
func weightArrow(w float64, mark string) string {
	return fmt.Sprintf(" -[%.2f]%s-> ", w, mark)
}

func (m *Model) renderLineage(w, h int) []string {
	s, l := m.styles, &m.lin
	head := fmt.Sprintf("Lineage of %s   tau = %.2f  (%s/%s to change)", m.untrusted(l.id, 40), m.tau,
		m.keys.TauDown.Help().Key, m.keys.TauUp.Help().Key)
	if l.loading {
		head += "  " + s.Spinner[m.spin%len(s.Spinner)] + " recomputing"
	}
	lines := []string{s.Title.Render("") + head}
	switch {
	case l.err != nil:
		return append(lines, s.Error.Render("lineage failed: ")+m.untrusted(l.err.Error(), w-20))
	case l.lv == nil:
		if l.id == "" {
			return append(lines, s.Dim.Render("select an entry (Entries, 3) and press → to open its lineage"))
		}
		return append(lines, s.Dim.Render("loading..."))
	}
	lv := l.lv
	if lv.Declared != "" {
		return m.renderDeclaredLineage(w, h)
	}
	ex := lv.Explanation
	verdict := fmt.Sprintf("recorded %s, recomputed %s", trustWord(ex.Recorded), trustWord(ex.Recomputed))
	if ex.Recomputed > ex.Recorded {
		verdict += "  " + s.Error.Render("LAUNDERED")
	}
	lines = append(lines, "  "+verdict, "")
	// Explanation below the DAG; the DAG takes what is left.
	var exl []string
	exl = append(exl, s.Title.Render(fmt.Sprintf("External ancestors (%d)", len(ex.Origins))))
	if len(ex.Origins) == 0 {
		exl = append(exl, s.Dim.Render("  none: no External ancestor reaches this entry"))
	}
	for _, o := range ex.Origins {
		var p strings.Builder
		p.WriteString(shortID(sanitize.Line(o.Ancestor), m.styles.Plain))
		for j, e := range o.Path {
			mark := ""
			if j == o.Break {
				mark = s.Error.Render(" BREAK<=tau")
			}
			p.WriteString(weightArrow(e.Weight, mark) + shortID(sanitize.Line(e.Child), m.styles.Plain))
		}
		state := s.Error.Render("PROPAGATES (all edges > tau)")
		if o.Break >= 0 {
			state = s.Good.Render("stopped") + fmt.Sprintf(" at edge %d", o.Break+1)
		}
		exl = append(exl, fmt.Sprintf("  bottleneck %.2f  %s", o.Bottleneck, state))
		for _, pl := range wrapLine(p.String(), w-6) {
			exl = append(exl, "    "+pl)
		}
	}
	exl = append(exl, s.Dim.Render(lineageLegend(s.Plain)))
	return m.lineageWindow(lines, exl, w, h, true)
}

// lineageWindow lays out a lineage screen: the header lines, the drawing's
// rows in the height left, and the footer lines at the bottom.
func (m *Model) lineageWindow(lines, footer []string, w, h int, markCentre bool) []string {
	l := &m.lin
	dagH := max(3, h-len(lines)-len(footer)-1)
	l.dagH = dagH
	m.listTop = headerRows + len(lines)
	l.cur.clamp(len(l.lv.Rows), dagH)
	lines = append(lines, m.lineageRows(dagH, w, markCentre)...)
	for len(lines) < h-len(footer) {
		lines = append(lines, "")
	}
	return append(lines, footer...)
}

// lineageLegend explains the drawing: marks, labels and the weight arrows.
func lineageLegend(plain bool) string {
	return "legend: * this entry  T/DT/DU/EXT trust labels (? glossary)  -[0.80]-> edge of weight 0.80  bottleneck = weakest edge on the path"
}

// renderDeclaredLineage draws a native store's declared history (Mem0
// version chains, a graph node's edges and their declared sources): no
// trust labels and no tau, the caption saying whose claim it is.
func (m *Model) renderDeclaredLineage(w, h int) []string {
	s, l := m.styles, &m.lin
	lv := l.lv
	lines := []string{s.Title.Render("") + "Lineage of " + m.untrusted(l.id, 40) + "  " + s.Error.Render("declared by the store, unsigned"),
		"  " + m.untrusted(lv.Declared, w-4), ""}
	var notes []string
	for _, n := range lv.Notes {
		for _, nl := range wrapLine(m.untrusted(n, 1<<16), w-4) {
			notes = append(notes, s.Dim.Render("  "+nl))
		}
	}
	if len(lv.Rows) == 0 {
		return append(lines, notes...)
	}
	return m.lineageWindow(lines, notes, w, h, false)
}

// lineageRows draws the visible window of the drawing's rows, the
// selection highlighted and, with markCentre, the centre entry starred.
func (m *Model) lineageRows(dagH, w int, markCentre bool) []string {
	s, l := m.styles, &m.lin
	var out []string
	for r := l.cur.top; r < len(l.lv.Rows) && r < l.cur.top+dagH; r++ {
		row := m.untrusted(l.lv.Rows[r], w-4)
		mark := "  "
		if markCentre && r == l.lv.Center {
			mark = s.Bold.Render("* ")
		}
		if r == l.cur.sel {
			row = s.Selected.Render(s.SelMarker + " " + stripANSI(row))
		} else {
			row = mark + row
		}
		out = append(out, row)
	}
	return out
}
