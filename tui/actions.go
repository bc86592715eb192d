package tui

import (
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/sanitize"
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
	}
	return nil
}

func (m *Model) renderActions(w, h int) []string {
	s, a := m.styles, &m.act
	refused := 0
	for _, r := range a.rows {
		if r.ShouldHaveRefused {
			refused++
		}
	}
	lines := []string{fmt.Sprintf("%d actions, %d dispatched that the gate would have refused", len(a.rows), refused),
		s.Header.Render(fit(fmt.Sprintf("  %-14s %-18s %-16s %-12s %s", "AUDIT", "VERDICT", "ACTION", "TOOL", "REASON"), w))}
	m.listTop = 3
	listH := max(1, h/2-1)
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
			padRight(fit(sanitize.Line(r.Tool), 12), 12), m.untrusted(r.Reason, max(0, w-66)))
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
	if r, ok := a.selected(); ok {
		lines = append(lines, "", s.Title.Render("Justification of ")+m.untrusted(r.Action, 30)+s.Dim.Render("  (enter opens the first untrusted entry)"))
		for _, e := range r.Entries {
			known := ""
			if !e.Known {
				known = s.Error.Render(" NOT IN STORE (counts as External)")
			}
			mark := "  "
			if e.Recomputed.IsUntrusted() {
				mark = s.Error.Render("! ")
			}
			lines = append(lines, fmt.Sprintf("  %s%s recorded %-17s recomputed %s%s", mark, padRight(shortID(sanitize.Line(e.ID)), colID), trustWord(e.Recorded), trustWord(e.Recomputed), known))
		}
	}
	return lines
}
