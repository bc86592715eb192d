package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/sanitize"
)

// Severity filter steps of the findings view.
var sevCycle = []finding.Severity{"", finding.SevError, finding.SevWarning, finding.SevInfo}

type findingsState struct {
	sev     int    // index in sevCycle
	text    string // code/subject/message filter
	editing bool
	idx     []int // positions in Model.findings that pass the filters
	cur     listCursor
}

func (f *findingsState) rebuild(all []finding.Finding) {
	f.idx = f.idx[:0]
	needle := strings.ToLower(f.text)
	for i, x := range all {
		if sev := sevCycle[f.sev]; sev != "" && x.Severity != sev {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(string(x.Code)+" "+x.Subject+" "+x.Message+" "+string(x.Family)), needle) {
			continue
		}
		f.idx = append(f.idx, i)
	}
	f.cur.clamp(len(f.idx), 1<<30)
}

func (f *findingsState) selected(all []finding.Finding) (finding.Finding, bool) {
	if f.cur.sel < len(f.idx) {
		return all[f.idx[f.cur.sel]], true
	}
	return finding.Finding{}, false
}

func (f *findingsState) edit(msg tea.KeyPressMsg, all []finding.Finding) {
	switch msg.String() {
	case "enter":
		f.editing = false
	case "esc":
		f.editing, f.text = false, ""
	case "backspace":
		if r := []rune(f.text); len(r) > 0 {
			f.text = string(r[:len(r)-1])
		}
	default:
		f.text += msg.Text
	}
	f.rebuild(all)
}

func (m *Model) findingsKey(msg tea.KeyPressMsg) tea.Cmd {
	k, f := m.keys, &m.fnd
	switch {
	case key.Matches(msg, k.Severity):
		f.sev = (f.sev + 1) % len(sevCycle)
		f.rebuild(m.findings)
	case key.Matches(msg, k.Filter):
		f.editing = true
	case key.Matches(msg, k.Back):
		f.text, f.sev = "", 0
		f.rebuild(m.findings)
	case key.Matches(msg, k.Open):
		if x, ok := f.selected(m.findings); ok {
			return m.jump(x.Subject)
		}
	}
	return nil
}

// jump opens the subject of a finding: an entry, a leaf or checkpoint, a
// query or an action.
func (m *Model) jump(subject string) tea.Cmd {
	word, rest, _ := strings.Cut(subject, " ")
	switch word {
	case "leaf":
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < m.src.LeafCount() {
			m.view = ViewLog
			m.logv.sel = n
			m.moveSel(0)
			return nil
		}
	case "checkpoint":
		m.view = ViewLog
		return nil
	case "query":
		cmd := m.switchTo(ViewReplay)
		m.rep.want = rest
		m.rep.sortRows()
		return cmd
	case "action":
		m.view = ViewActions
		for i, r := range m.act.rows {
			if r.Action == rest {
				m.act.cur.sel = i
			}
		}
		m.moveSel(0)
		return nil
	}
	if _, ok := m.src.EntryIndex(subject); ok {
		return m.openEntryID(subject)
	}
	m.setErr("cannot open %q: not an entry, leaf, checkpoint, query or action", sanitize.Line(subject))
	return nil
}

func (m *Model) renderFindings(w, h int) []string {
	s, f := m.styles, &m.fnd
	sev := "all"
	if sevCycle[f.sev] != "" {
		sev = string(sevCycle[f.sev])
	}
	head := fmt.Sprintf("%d of %d findings   severity: %s", len(f.idx), len(m.findings), sev)
	if f.editing {
		head += "   " + s.FilterPrompt.Render("/") + sanitize.Line(f.text) + "_"
	} else if f.text != "" {
		head += "   filter: " + sanitize.Line(f.text)
	}
	if m.verifying {
		head += "   " + s.Dim.Render("(verification running: more will come)")
	}
	lines := []string{head, s.Header.Render(fit(fmt.Sprintf("  %-8s %-24s %-20s %s", "SEVERITY", "CODE", "SUBJECT", "MESSAGE"), w))}
	m.listTop = 3
	rows := h - 2
	f.cur.clamp(len(f.idx), rows)
	for p := f.cur.top; p < len(f.idx) && p < f.cur.top+rows; p++ {
		x := m.findings[f.idx[p]]
		word := strings.ToUpper(string(x.Severity))
		line := fmt.Sprintf("%s %s %s ", padRight(s.severity(string(x.Severity)).Render(word), 8),
			padRight(sanitize.Line(string(x.Code)), 24), padRight(fit(sanitize.Line(x.Subject), 20), 20))
		line += m.untrusted(x.Message, max(0, w-58))
		if p == f.cur.sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if len(f.idx) == 0 {
		if len(m.findings) == 0 && !m.verifyDone {
			lines = append(lines, s.Dim.Render("  no findings yet: verification is running"))
		} else {
			lines = append(lines, s.Dim.Render("  no findings match"))
		}
	}
	return lines
}
