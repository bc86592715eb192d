package tui

import (
	"encoding/hex"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/sanitize"
)

func (m *Model) renderLog(w, h int) []string {
	s := m.styles
	cps := m.src.Checkpoints()
	lines := []string{s.Title.Render(fmt.Sprintf("Checkpoints (%d)", len(cps))),
		s.Header.Render(fit(fmt.Sprintf("  %-4s %-10s %-6s %-10s %-20s %s", "#", "SIZE", "SIG", "CONSISTENT", "TIME (UTC)", "ROOT"), w))}
	maxCP := max(1, h/3)
	for i, c := range cps {
		if i == maxCP-1 && len(cps) > maxCP {
			lines = append(lines, s.Dim.Render(fmt.Sprintf("  ... %d more", len(cps)-i)))
			break
		}
		ts := "-"
		if c.TimeNS != 0 {
			ts = time.Unix(0, c.TimeNS).UTC().Format("2006-01-02 15:04:05")
		}
		root := hex.EncodeToString(c.Root)
		line := fmt.Sprintf("  %-4d %-10d %s %s %-20s %s", c.Index, c.Size, padRight(s.status(c.Signature), 6), padRight(s.status(c.Consistent), 10), ts, root)
		if c.Note != "" {
			line += "  " + m.untrusted(c.Note, 40)
		}
		lines = append(lines, line)
	}
	n := m.src.LeafCount()
	lines = append(lines, "", s.Title.Render(fmt.Sprintf("Leaves (%d)", n)),
		s.Header.Render(fit(fmt.Sprintf("  %-10s %-10s %s", "INDEX", "KIND", "SUBJECT"), w)))
	m.listTop = headerRows + len(lines)
	rows := max(1, h-len(lines))
	m.logRows = rows
	m.logv.clamp(n, rows)
	for p := m.logv.top; p < n && p < m.logv.top+rows; p++ {
		lf := m.src.Leaf(p)
		kind := lf.Kind.String()
		switch lf.Kind {
		case LeafTombstone:
			kind = s.Warning.Render(padRight(kind, 10))
		case LeafUnknown:
			kind = s.Error.Render(padRight(kind, 10))
		default:
			kind = padRight(kind, 10)
		}
		line := fmt.Sprintf("%-10d %s %s", lf.Index, kind, sanitize.Line(lf.Subject))
		if p == m.logv.sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return lines
}

func (m *Model) logKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Open) && m.logv.sel < m.src.LeafCount() {
		lf := m.src.Leaf(m.logv.sel)
		if _, ok := m.src.EntryIndex(lf.Subject); ok {
			m.push()
			return m.openEntryID(lf.Subject)
		}
		m.setErr("leaf %d names %s, which is not in the store", lf.Index, sanitize.Line(lf.Subject))
		return nil
	}
	return m.unused()
}

func (m *Model) leafSelected() string {
	if m.logv.sel < m.src.LeafCount() {
		return m.src.Leaf(m.logv.sel).Subject
	}
	return ""
}

// leafPreview is the selected leaf in full with the findings about it.
func (m *Model) leafPreview() []string {
	if m.logv.sel >= m.src.LeafCount() {
		return nil
	}
	lf := m.src.Leaf(m.logv.sel)
	out := []string{fmt.Sprintf("leaf %d  kind %s", lf.Index, lf.Kind), "subject: " + m.untrusted(lf.Subject, 1<<20)}
	if _, ok := m.src.EntryIndex(lf.Subject); !ok && lf.Kind == LeafEntry {
		out = append(out, m.styles.Error.Render("the record this leaf names is not in the store"))
	}
	out = append(out, m.relatedFindings(fmt.Sprintf("leaf %d", lf.Index), "", nil)...)
	return append(out, m.relatedFindings("entry "+lf.Subject, lf.Subject, nil)...)
}
