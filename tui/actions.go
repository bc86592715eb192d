package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
)

type actionsState struct {
	rows []lineage.GateResult // should-have-refused first
	cur  listCursor
}

func (a *actionsState) init(rs []lineage.GateResult) {
	a.rows = append([]lineage.GateResult(nil), rs...)
	sort.SliceStable(a.rows, func(i, j int) bool {
		return a.rows[i].ShouldHaveRefused && !a.rows[j].ShouldHaveRefused
	})
}

func (a *actionsState) selected() (lineage.GateResult, bool) {
	if a.cur.sel < len(a.rows) {
		return a.rows[a.cur.sel], true
	}
	return lineage.GateResult{}, false
}

func (m *Model) actionsKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.Open) {
		r, ok := m.act.selected()
		if !ok {
			return nil
		}
		m.push()
		// Open the first justifying entry the gate distrusts.
		for _, e := range r.Entries {
			if e.Known && e.Recomputed.IsUntrusted() {
				return m.openEntryID(e.ID)
			}
		}
		for _, e := range r.Entries {
			if e.Known {
				return m.openEntryID(e.ID)
			}
		}
		m.stack = m.stack[:len(m.stack)-1]
		m.setErr("no justifying entry of %s is in the store", sanitize.Line(r.Action))
		return nil
	}
	return m.unused()
}

func (m *Model) renderActions(w, h int) []string {
	s, a := m.styles, &m.act
	refused := 0
	for _, r := range a.rows {
		if r.ShouldHaveRefused {
			refused++
		}
	}
	head := fmt.Sprintf("%d actions, %d dispatched that the gate would have refused", len(a.rows), refused)
	for _, r := range a.rows {
		if l := m.coverage("actions", r.Action); l != "" {
			head += "; " + s.Warning.Render("action rows "+l+": claims, not verified")
			break
		}
	}
	lines := []string{head,
		s.Header.Render(fit(fmt.Sprintf("  %-14s %-18s %-16s %-12s %s", "AUDIT", "VERDICT", "ACTION", "TOOL", "REASON"), w))}
	m.listTop = headerRows + 3
	listH := max(1, h-2)
	a.cur.clamp(len(a.rows), listH)
	for p := a.cur.top; p < len(a.rows) && p < a.cur.top+listH; p++ {
		r := a.rows[p]
		audit := "ok"
		switch {
		case r.ShouldHaveRefused:
			audit = s.Error.Render("SHOULD REFUSE")
		case !r.Dispatched:
			audit = s.Dim.Render("not dispatched")
		}
		line := fmt.Sprintf("%s %-18s %s %s %s", padRight(audit, 14), r.Verdict.String(), padRight(fit(sanitize.Line(r.Action), 16), 16),
			padRight(fit(sanitize.Line(r.Tool), 14), 14), m.untrusted(r.Reason, max(0, w-68)))
		if p == a.cur.sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if len(a.rows) == 0 {
		lines = append(lines, s.Dim.Render("  no recorded actions"))
	}
	return lines
}

func (m *Model) actionSelected() string {
	if r, ok := m.act.selected(); ok {
		return r.Action
	}
	return ""
}

// actionPreview is the selected action in full: tool, reason, verdicts,
// the justification with labels, and the findings about it.
func (m *Model) actionPreview() []string {
	s := m.styles
	r, ok := m.act.selected()
	if !ok {
		return nil
	}
	disp := "dispatched"
	if !r.Dispatched {
		disp = "not dispatched"
	}
	out := []string{"action: " + m.untrusted(r.Action, 1<<20) + "  tool " + m.untrusted(r.Tool, 1<<20) + "  " + disp + m.coverageMark("actions", r.Action)}
	if l := m.coverage("actions", r.Action); l != "" {
		out = append(out, s.Warning.Render("  this action row is "+l+": its tool, parameters, justification and dispatch are claims"))
	}
	if len(r.Governed) > 0 {
		out = append(out, "governed parameters: "+sanitize.Line(strings.Join(r.Governed, ", ")))
	}
	out = append(out, m.wrapUntrusted("reason: ", r.Reason)...)
	out = append(out, "", s.Title.Render("Justification")+s.Dim.Render("  ("+m.keys.Open.Help().Key+" opens the first untrusted entry)"))
	for _, e := range r.Entries {
		known := ""
		if !e.Known {
			known = s.Error.Render(" NOT IN STORE (counts as External)")
		}
		mark := "  "
		if e.Recomputed.IsUntrusted() {
			mark = s.Error.Render("! ")
		}
		out = append(out, fmt.Sprintf("%s%s recorded %s, recomputed %s%s", mark, m.untrusted(e.ID, 1<<20), trustWord(e.Recorded), trustWord(e.Recomputed), known))
	}
	out = append(out, "", s.Title.Render("Verdicts"))
	out = append(out, m.defenceVerdicts(r)...)
	return append(out, m.relatedFindings("action "+r.Action, "", nil)...)
}
