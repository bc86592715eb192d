package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
)

type actionsState struct {
	rows []lineage.GateResult // refused by some defence first
	// verdicts holds every defence's decision per action id (package
	// defences, as memscope actions prints them); empty until
	// verification has finished.
	verdicts map[string]defences.Row
	cur      listCursor
}

// init takes the gate's rows and the defences' rows and puts the actions
// some defence refuses first (the MemLineage gate's own refusal while the
// defences have not run yet), keeping the selected action selected.
func (a *actionsState) init(rs []lineage.GateResult, vs []defences.Row) {
	selID := ""
	if r, ok := a.selected(); ok {
		selID = r.Action
	}
	a.rows = append([]lineage.GateResult(nil), rs...)
	a.verdicts = make(map[string]defences.Row, len(vs))
	for _, v := range vs {
		a.verdicts[v.Action] = v
	}
	sort.SliceStable(a.rows, func(i, j int) bool {
		return a.refused(a.rows[i]) && !a.refused(a.rows[j])
	})
	for i, r := range a.rows {
		if r.Action == selID {
			a.cur.sel = i
		}
	}
}

// refused: a dispatched action that some defence would not have let run.
func (a *actionsState) refused(r lineage.GateResult) bool {
	if v, ok := a.verdicts[r.Action]; ok {
		return r.Dispatched && len(v.RefusedBy()) > 0
	}
	return r.ShouldHaveRefused
}

func (a *actionsState) selected() (lineage.GateResult, bool) {
	if a.cur.sel < len(a.rows) {
		return a.rows[a.cur.sel], true
	}
	return lineage.GateResult{}, false
}

// reloadActions re-reads the gate's and the defences' rows (after
// verification and after every relabel).
func (m *Model) reloadActions() {
	m.act.init(m.src.Actions(), m.src.ActionVerdicts())
}

// actionsKey: enter on an action that followed a query opens that query's
// story (where the injection, the culprit writes and every defence's
// verdict are); on one that followed none, the first justifying entry the
// gate distrusts.
func (m *Model) actionsKey(msg tea.KeyPressMsg) tea.Cmd {
	if !key.Matches(msg, m.keys.Open) {
		return m.unused()
	}
	r, ok := m.act.selected()
	if !ok {
		m.setStatus("no recorded actions")
		return nil
	}
	m.push()
	if v, ok := m.act.verdicts[r.Action]; ok && v.Query != "" {
		return m.jump("query " + v.Query)
	}
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

// decisionWidth is one defence column: the longest decision, "not checked".
const decisionWidth = 12

func (m *Model) renderActions(w, h int) []string {
	s, a := m.styles, &m.act
	lines := []string{m.actionsHeadline()}
	if l := m.actionsCoverage(); l != "" {
		lines = append(lines, s.Warning.Render("action rows "+l+": claims, not verified"))
	}
	actW, toolW := 14, 0
	if w >= 110 {
		actW, toolW = 22, 15
	}
	head := fmt.Sprintf("  %-2s%-*s ", "", actW, "ACTION")
	if toolW > 0 {
		head += fmt.Sprintf("%-*s ", toolW, "TOOL")
	}
	for _, d := range defences.Names {
		head += fmt.Sprintf("%-*s", decisionWidth, strings.ToUpper(d))
	}
	lines = append(lines, s.Header.Render(fit(head, w)))
	m.listTop = headerRows + len(lines) + 1
	listH := m.actionsListHeight(h)
	a.cur.clamp(len(a.rows), listH)
	for p := a.cur.top; p < len(a.rows) && p < a.cur.top+listH; p++ {
		r := a.rows[p]
		v, known := a.verdicts[r.Action]
		mark := "  "
		if known && v.Headline {
			mark = s.Error.Render("!") + " "
		}
		line := mark + padRight(fit(sanitize.Line(r.Action), actW), actW) + " "
		if toolW > 0 {
			line += padRight(fit(sanitize.Line(r.Tool), toolW), toolW) + " "
		}
		for _, d := range defences.Names {
			dec := v.Verdicts[d].Decision
			if !known {
				dec = "..."
				if d == defences.MemLineage {
					dec = r.Verdict.String() // the gate, recomputed at tau
				}
			}
			line += padRight(m.decisionWord(dec), decisionWidth)
		}
		if !r.Dispatched {
			line += s.Dim.Render("not dispatched")
		}
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

// actionsCoverage is the coverage label of the first action row that has
// one ("" when a signature covers every row).
func (m *Model) actionsCoverage() string {
	for _, r := range m.act.rows {
		if l := m.coverage("actions", r.Action); l != "" {
			return l
		}
	}
	return ""
}

// actionsListHeight is the rows the Actions list shows in a body of h
// lines: below the counts, the coverage note when there is one, and the
// column header.
func (m *Model) actionsListHeight(h int) int {
	if m.actionsCoverage() != "" {
		return max(1, h-3)
	}
	return max(1, h-2)
}

// decisionWord draws one defence's decision: allow and accept plain, a
// refusal of any kind (refuse, substitute, escalate) as an error, not
// checked dim. The word itself carries the meaning without colour.
func (m *Model) decisionWord(d string) string {
	s := m.styles
	switch d {
	case defences.Allow, defences.Accept:
		return s.Good.Render(d)
	case defences.NotChecked, "...", "":
		return s.Dim.Render(d)
	}
	return s.Error.Render(d)
}

// actionsHeadline counts what `memscope actions` exits on: dispatched
// actions some defence refuses, and by which defence; ! marks the
// HEADLINE rows.
func (m *Model) actionsHeadline() string {
	a := &m.act
	if len(a.verdicts) == 0 && len(a.rows) > 0 {
		refused := 0
		for _, r := range a.rows {
			if r.ShouldHaveRefused {
				refused++
			}
		}
		return fmt.Sprintf("%d actions, %d dispatched that the MemLineage gate refuses; the other defences' verdicts come when verification finishes", len(a.rows), refused)
	}
	refused, headline := 0, 0
	by := map[string]int{}
	for _, r := range a.rows {
		v := a.verdicts[r.Action]
		if v.Headline {
			headline++
		}
		if !r.Dispatched {
			continue
		}
		rb := v.RefusedBy()
		if len(rb) > 0 {
			refused++
		}
		for _, d := range rb {
			by[d]++
		}
	}
	out := fmt.Sprintf("%d actions, %d dispatched that a defence refuses", len(a.rows), refused)
	var parts []string
	for _, d := range defences.Names[1:] {
		if by[d] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", d, by[d]))
		}
	}
	if len(parts) > 0 {
		out += " (" + strings.Join(parts, ", ") + ")"
	}
	if headline > 0 {
		out += fmt.Sprintf("; ! %d HEADLINE (IFC allows, AuthSelect does not)", headline)
	}
	return out
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
		out = append(out, s.Warning.Render("  this action row: "+l+"; its tool, parameters, justification and dispatch are claims"))
	}
	if len(r.Governed) > 0 {
		out = append(out, "governed parameters: "+sanitize.Line(strings.Join(r.Governed, ", ")))
	}
	out = append(out, m.wrapUntrusted("reason: ", r.Reason)...)
	openHint := " opens the first untrusted entry"
	if v, ok := m.act.verdicts[r.Action]; ok && v.Query != "" {
		out = append(out, "after query "+m.untrusted(v.Query, 1<<20)+m.coverageMark("queries", v.Query))
		openHint = " opens that query's story"
	}
	out = append(out, "", s.Title.Render("Justification")+s.Dim.Render("  ("+m.keys.Open.Help().Key+openHint+")"))
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
