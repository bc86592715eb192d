package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// Severity filter steps of the findings view.
var sevCycle = []finding.Severity{"", finding.SevError, finding.SevWarning, finding.SevInfo}

// Grouping of the findings view (o cycles).
const (
	groupCause = iota // root causes with what they explain folded under them
	groupCode
	groupSeverity
	groupSubject
	groupNone
	groupModes
)

var groupNames = [groupModes]string{"root cause", "code", "severity", "subject", "none"}

type findingsState struct {
	sev     int    // index in sevCycle
	text    string // code/subject/message filter
	editing bool
	group   int
	causes  []RootCause     // from the Source's Grouper; nil: by code
	open    map[string]bool // expanded groups, by key
	rows    []fRow          // what the list shows
	groups  []fGroup
	cur     listCursor
}

// fRow is a list row: a group headline or one finding.
type fRow struct {
	group int // index in groups, -1 in flat mode
	fi    int // finding index; -1 for a headline
}

type fGroup struct {
	key     string
	title   string
	why     string // likely cause, for root-cause groups
	members []int
	errs    int
}

func (f *findingsState) len() int { return len(f.rows) }

func (f *findingsState) rebuild(all []finding.Finding) {
	var idx []int
	needle := strings.ToLower(f.text)
	for i, x := range all {
		if sev := sevCycle[f.sev]; sev != "" && x.Severity != sev {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(string(x.Code)+" "+x.Subject+" "+x.Message+" "+string(x.Family)), needle) {
			continue
		}
		idx = append(idx, i)
	}
	f.rows, f.groups = nil, nil
	if f.group == groupNone {
		for _, i := range idx {
			f.rows = append(f.rows, fRow{group: -1, fi: i})
		}
		f.cur.clamp(len(f.rows), 1<<30)
		return
	}
	byKey := map[string]int{}
	addTo := func(k, title, why string, i int) {
		g, ok := byKey[k]
		if !ok {
			g = len(f.groups)
			byKey[k] = g
			f.groups = append(f.groups, fGroup{key: k, title: title, why: why})
		}
		f.groups[g].members = append(f.groups[g].members, i)
		if all[i].Severity == finding.SevError {
			f.groups[g].errs++
		}
	}
	keep := make(map[int]bool, len(idx))
	for _, i := range idx {
		keep[i] = true
	}
	if f.group == groupCause && f.causes != nil {
		// The analysis' groups, narrowed to what the filters keep.
		for ci, rc := range f.causes {
			for _, i := range rc.Members {
				if !keep[i] {
					continue
				}
				why := ""
				if rc.HasCause && len(rc.Members) > 1 {
					why = rc.Headline
				}
				title := string(all[rc.Members[0]].Code)
				addTo(fmt.Sprintf("cause:%d", ci), title, why, i)
			}
		}
		idx = nil
	}
	for _, i := range idx {
		x := all[i]
		switch f.group {
		case groupCause, groupCode:
			addTo("code:"+string(x.Code), string(x.Code), "", i)
		case groupSeverity:
			addTo("sev:"+string(x.Severity), strings.ToUpper(string(x.Severity)), "", i)
		case groupSubject:
			addTo("subj:"+x.Subject, x.Subject, "", i)
		}
	}
	// Root-cause groups first, then by size (errors first).
	sort.SliceStable(f.groups, func(a, b int) bool {
		ga, gb := f.groups[a], f.groups[b]
		if (ga.why != "") != (gb.why != "") {
			return ga.why != ""
		}
		return ga.errs > gb.errs
	})
	for g, grp := range f.groups {
		if len(grp.members) == 1 {
			f.rows = append(f.rows, fRow{group: g, fi: grp.members[0]})
			continue
		}
		f.rows = append(f.rows, fRow{group: g, fi: -1})
		if f.open[grp.key] {
			for _, i := range grp.members {
				f.rows = append(f.rows, fRow{group: g, fi: i})
			}
		}
	}
	f.cur.clamp(len(f.rows), 1<<30)
}

// rebuildKeeping is rebuild for a new list of findings (all), keeping the
// cursor on what it was on in the previous list (prev): the same finding,
// or the same group headline, at the same height on screen (a cursor on
// the first row stays there). Findings that
// arrive later (the MWP audit's, after "verified") must not move the
// selection to another finding under the responder's eyes.
func (f *findingsState) rebuildKeeping(prev, all []finding.Finding) {
	var want *finding.Finding
	var key string
	// A cursor on the first row stays on the first row: nothing was
	// chosen yet, and the list's head is what to read first.
	if f.cur.sel > 0 && f.cur.sel < len(f.rows) {
		if r := f.rows[f.cur.sel]; r.fi >= 0 && r.fi < len(prev) {
			want = &prev[r.fi]
		} else if r.fi < 0 {
			key = f.groups[r.group].key
		}
	}
	offset := f.cur.sel - f.cur.top
	f.rebuild(all)
	for i, r := range f.rows {
		same := false
		if want != nil {
			same = r.fi >= 0 && sameFinding(all[r.fi], *want)
		} else if key != "" {
			same = r.fi < 0 && f.groups[r.group].key == key
		}
		if same {
			f.cur.sel, f.cur.top = i, max(0, i-offset)
			return
		}
	}
}

// sameFinding says whether two findings report the same thing.
func sameFinding(a, b finding.Finding) bool {
	return a.Code == b.Code && a.Subject == b.Subject && a.Message == b.Message && a.Severity == b.Severity
}

// selected is the finding under the cursor; on a headline, the group's
// first finding (the root cause, when there is one).
func (f *findingsState) selected(all []finding.Finding) (finding.Finding, bool) {
	if f.cur.sel >= len(f.rows) {
		return finding.Finding{}, false
	}
	r := f.rows[f.cur.sel]
	if r.fi >= 0 {
		return all[r.fi], true
	}
	g := f.groups[r.group]
	for _, i := range g.members {
		if string(all[i].Code) == g.title {
			return all[i], true
		}
	}
	return all[g.members[0]], true
}

// selectedGroup is the headline under the cursor, if any.
func (f *findingsState) selectedGroup() (fGroup, bool) {
	if f.cur.sel < len(f.rows) && f.rows[f.cur.sel].fi < 0 {
		return f.groups[f.rows[f.cur.sel].group], true
	}
	return fGroup{}, false
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
	case key.Matches(msg, k.Group):
		f.group = (f.group + 1) % groupModes
		f.rebuild(m.findings)
		m.setStatus("findings grouped by %s", groupNames[f.group])
	case key.Matches(msg, k.Open):
		if g, ok := f.selectedGroup(); ok {
			// A headline folds and unfolds its group.
			if f.open == nil {
				f.open = map[string]bool{}
			}
			f.open[g.key] = !f.open[g.key]
			f.rebuild(m.findings)
			return nil
		}
		if x, ok := f.selected(m.findings); ok {
			m.push()
			return m.jumpFinding(x)
		}
	default:
		return m.unused()
	}
	return nil
}

// findingsRows is how many list rows the findings view shows in h lines.
func (m *Model) findingsRows(h int) int { return max(1, h-2) }

func (m *Model) renderFindings(w, h int) []string {
	s, f := m.styles, &m.fnd
	sev := "all"
	if sevCycle[f.sev] != "" {
		sev = string(sevCycle[f.sev])
	}
	n := 0
	for _, g := range f.groups {
		n += len(g.members)
	}
	if f.group == groupNone {
		n = len(f.rows)
	}
	head := fmt.Sprintf("%d of %d findings  severity: %s  grouped by: %s (%s)", n, len(m.findings), sev, groupNames[f.group], m.keys.Group.Help().Key)
	if f.editing {
		head += "   " + s.FilterPrompt.Render("/") + sanitize.Line(f.text) + "_"
	} else if f.text != "" {
		head += "   filter: " + sanitize.Line(f.text)
	}
	if m.verifying {
		head += "   " + s.Dim.Render("(verification running: more will come)")
	} else if m.auditing {
		head += "   " + s.Dim.Render("(MWP audit running: its findings will come)")
	}
	codeW := 26
	if w < 110 {
		codeW = 24
	}
	// Wide enough for "principal " and a whole UUID when there is room.
	subjW := max(12, min(38, (w-codeW-12)/3))
	if w >= 140 {
		subjW = 46
	}
	lines := []string{head, s.Header.Render(fit(fmt.Sprintf("  %-8s %-*s %-*s %s", "SEVERITY", codeW, "CODE", subjW, "SUBJECT", "MESSAGE (full text in the preview)"), w))}
	m.listTop = headerRows + 3
	rows := m.findingsRows(h)
	f.cur.clamp(len(f.rows), rows)
	for p := f.cur.top; p < len(f.rows) && p < f.cur.top+rows; p++ {
		r := f.rows[p]
		var line string
		if r.fi < 0 {
			g := f.groups[r.group]
			fold := "+"
			if f.open[g.key] {
				fold = "-"
			}
			title := fmt.Sprintf("%s %s  %d findings", fold, sanitize.Line(g.title), len(g.members))
			if g.errs > 0 {
				title += " (" + plural(g.errs, "error", "errors") + ")"
			}
			if g.why != "" {
				title += "  " + g.why
			}
			line = s.Bold.Render(title)
		} else {
			x := m.findings[r.fi]
			word := strings.ToUpper(string(x.Severity))
			indent := ""
			if r.group >= 0 && len(f.groups[r.group].members) > 1 {
				indent = "  "
			}
			line = fmt.Sprintf("%s %s %s ", padRight(s.severity(string(x.Severity)).Render(word), 8),
				padRight(fit(indent+sanitize.Line(string(x.Code)), codeW), codeW), padRight(fit(sanitize.Line(x.Subject), subjW), subjW))
			line += m.untrusted(x.Message, max(0, w-codeW-subjW-14))
		}
		if p == f.cur.sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	if len(f.rows) == 0 {
		if len(m.findings) == 0 && !m.verifyDone {
			lines = append(lines, s.Dim.Render("  no findings yet: verification is running"))
		} else {
			lines = append(lines, s.Dim.Render("  no findings match"))
		}
	}
	return lines
}

func (m *Model) findingSelected() string {
	if x, ok := m.fnd.selected(m.findings); ok {
		return x.Subject
	}
	return ""
}

// findingPreview shows the selected finding (or group) in full, with the
// other findings about the same subject.
func (m *Model) findingPreview() []string {
	s := m.styles
	if g, ok := m.fnd.selectedGroup(); ok {
		out := []string{s.Bold.Render(sanitize.Line(g.title)) + "  " + plural(len(g.members), "finding", "findings") + ", " + plural(g.errs, "error", "errors")}
		if g.why != "" {
			out = append(out, "likely cause: "+sanitize.Line(g.why))
		}
		counts := map[string]int{}
		var codes []string
		for _, i := range g.members {
			c := string(m.findings[i].Code)
			if counts[c] == 0 {
				codes = append(codes, c)
			}
			counts[c]++
		}
		for _, c := range codes {
			out = append(out, fmt.Sprintf("  %4d %s", counts[c], sanitize.Line(c)))
		}
		return append(out, s.Dim.Render(m.keys.Open.Help().Key+" unfolds the group"))
	}
	x, ok := m.fnd.selected(m.findings)
	if !ok {
		return nil
	}
	out := []string{
		s.severity(string(x.Severity)).Render(strings.ToUpper(string(x.Severity))) + "  " + s.Bold.Render(sanitize.Line(string(x.Code))) + s.Dim.Render("  family "+sanitize.Line(string(x.Family))),
		"subject: " + m.untrusted(x.Subject, 1<<20),
	}
	out = append(out, m.wrapUntrusted("message: ", x.Message)...)
	if mean := codeMeaning(string(x.Code)); mean != "" {
		out = append(out, s.Dim.Render("what it means: "+mean))
	}
	out = append(out, m.relatedFindings(x.Subject, "", &x)...)
	return out
}

// relatedFindings lists the findings about subject (or naming entry
// id among their entries), except the one shown already.
func (m *Model) relatedFindings(subject, id string, except *finding.Finding) []string {
	var out []string
	for _, y := range m.findings {
		if except != nil && y.Code == except.Code && y.Subject == except.Subject && y.Message == except.Message {
			continue
		}
		about := y.Subject == subject || (id != "" && (y.Subject == id || y.Subject == "entry "+id || slices.Contains(y.Entries, id)))
		if !about {
			continue
		}
		if len(out) == 0 {
			out = append(out, "", m.styles.Title.Render("Findings about this"))
		}
		if len(out) > 12 {
			out = append(out, m.styles.Dim.Render("  ... more in Findings (2): filter by the id"))
			break
		}
		out = append(out, "  "+m.styles.severity(string(y.Severity)).Render(strings.ToUpper(string(y.Severity)))+" "+sanitize.Line(string(y.Code))+": "+m.untrusted(y.Message, 1<<20))
	}
	return out
}

// codeMeaning is the catalogue's sentence for a finding code.
func codeMeaning(code string) string {
	if spec, ok := finding.Lookup(finding.Code(code)); ok {
		return spec.Meaning
	}
	return ""
}
