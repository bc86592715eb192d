package tui

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// cell is one value of the selected row (or of the open document) that
// can be read in full and copied on its own. Values are raw: the menu
// sanitises them for the screen and for the clipboard.
type cell struct {
	name, value string
}

// copyMenu is the "copy a cell" overlay: every cell of what is selected,
// the chosen one in full below the list.
type copyMenu struct {
	open   bool
	title  string
	cells  []cell
	sel    int
	scroll int // of the in-full section
	gen    int // drops a late cellMsg for a menu closed since
}

// openCopyMenu lists the cells of the current view's selection.
func (m *Model) openCopyMenu() tea.Cmd {
	def := viewDefs[m.view]
	if def.cells == nil {
		m.setErr("nothing in the %s view to copy cell by cell", m.view)
		return nil
	}
	cs := def.cells(m)
	if len(cs) == 0 {
		m.setErr("nothing selected to copy")
		return nil
	}
	m.cm = copyMenu{open: true, title: m.crumb(), cells: cs, gen: m.cm.gen + 1}
	if m.view == ViewEntries && m.ent.len() > 0 {
		return m.fullContent(m.ent.selectedEntry())
	}
	return nil
}

// fullContent fetches an entry's whole content for the menu when the
// table row holds only its start (EntryDetail is slow: a tea.Cmd).
func (m *Model) fullContent(i int) tea.Cmd {
	for _, c := range m.cm.cells {
		if c.name != contentStart {
			continue
		}
		gen, src, ctx := m.cm.gen, m.src, m.ctx
		return func() tea.Msg {
			d, err := src.EntryDetail(ctx, i)
			if err != nil {
				return nil
			}
			for _, f := range d.Fields {
				if f.Name == "content" {
					return cellMsg{gen: gen, name: contentStart, c: cell{"content", f.Value}}
				}
			}
			return nil
		}
	}
	return nil
}

// contentStart names a content cell that holds only the start.
const contentStart = "content (start; Detail has it all)"

// cellMsg replaces the menu's cell name with c, for the menu of gen.
type cellMsg struct {
	gen  int
	name string
	c    cell
}

func (m *Model) onCellMsg(msg cellMsg) {
	if msg.gen != m.cm.gen || !m.cm.open {
		return
	}
	for i, c := range m.cm.cells {
		if c.name == msg.name {
			m.cm.cells[i] = msg.c
		}
	}
}

func (m *Model) copyMenuKey(msg tea.KeyPressMsg) tea.Cmd {
	k, c := m.keys, &m.cm
	switch {
	case key.Matches(msg, k.Back), key.Matches(msg, k.CopyCell), key.Matches(msg, k.Quit) && msg.String() != "ctrl+c":
		c.open = false
	case msg.String() == "ctrl+c":
		return m.quit()
	case key.Matches(msg, k.Up):
		c.sel, c.scroll = max(0, c.sel-1), 0
	case key.Matches(msg, k.Down):
		c.sel, c.scroll = min(len(c.cells)-1, c.sel+1), 0
	case key.Matches(msg, k.Top):
		c.sel, c.scroll = 0, 0
	case key.Matches(msg, k.Bottom):
		c.sel, c.scroll = len(c.cells)-1, 0
	case key.Matches(msg, k.PageDown), key.Matches(msg, k.PreviewDown):
		c.scroll += max(1, m.bodyHeight()/2)
	case key.Matches(msg, k.PageUp), key.Matches(msg, k.PreviewUp):
		c.scroll = max(0, c.scroll-max(1, m.bodyHeight()/2))
	case key.Matches(msg, k.Open):
		return m.copyCell(c.sel)
	default:
		if n, err := strconv.Atoi(msg.String()); err == nil && n >= 1 && n <= len(c.cells) && n <= 9 {
			return m.copyCell(n - 1)
		}
	}
	return nil
}

// copyCell puts cell i on the clipboard (OSC 52), sanitised: evidence
// must not smuggle controls into the terminal or the clipboard. Line
// breaks stay line breaks; every other control is a visible escape.
func (m *Model) copyCell(i int) tea.Cmd {
	c := m.cm.cells[i]
	v := sanitize.Block(c.value, 4)
	m.cm.open = false
	m.setStatus("copied %s (%d characters)", sanitize.Line(c.name), len([]rune(v)))
	return tea.SetClipboard(v)
}

// renderCopyMenu draws the cells, one a line cut to the width, and the
// chosen cell in full, wrapped, scrolling on its own.
func (m *Model) renderCopyMenu(w, h int) []string {
	s, c := m.styles, &m.cm
	lines := []string{s.Title.Render("Copy a cell of "+c.title) + s.Dim.Render(fmt.Sprintf("  (%s/%s choose, %s or 1-9 copies, %s/%s scroll the value, %s closes)",
		m.keys.Up.Help().Key, m.keys.Down.Help().Key, m.keys.Open.Help().Key, m.keys.PageUp.Help().Key, m.keys.PageDown.Help().Key, m.keys.Back.Help().Key))}
	nameW := 8
	for _, x := range c.cells {
		nameW = max(nameW, min(w/3, len([]rune(x.name))))
	}
	x := c.cells[c.sel]
	var full []string
	for _, l := range m.wrapUntrusted("", x.value) {
		full = append(full, wrapLine(l, w-2)...)
	}
	// The list takes what the chosen value leaves, and at least a third.
	listH := min(len(c.cells), max(3, h/3, h-4-len(full)))
	top := window(0, c.sel, listH, len(c.cells))
	for i := top; i < len(c.cells) && i < top+listH; i++ {
		x := c.cells[i]
		num := "  "
		if i < 9 {
			num = strconv.Itoa(i+1) + " "
		}
		first, _, _ := strings.Cut(x.value, "\n")
		line := num + padRight(fit(sanitize.Line(x.name), nameW), nameW) + "  " + m.untrusted(first, max(0, w-nameW-8))
		lines = append(lines, m.listLine(line, i == c.sel))
	}
	if len(c.cells) > listH {
		lines = append(lines, s.Dim.Render(fmt.Sprintf("  %d cells (%s/%s)", len(c.cells), m.keys.Up.Help().Key, m.keys.Down.Help().Key)))
	}
	rule := "──"
	if s.Plain {
		rule = "--"
	}
	lines = append(lines, "", s.Dim.Render(rule+" ")+s.Bold.Render(sanitize.Line(x.name)+" in full"))
	room := max(1, h-len(lines))
	c.scroll = min(c.scroll, max(0, len(full)-room))
	end := min(len(full), c.scroll+room)
	for i := c.scroll; i < end; i++ {
		lines = append(lines, "  "+full[i])
	}
	if end < len(full) && len(lines) > 0 {
		lines[len(lines)-1] = s.Dim.Render(moreLine(len(full)-end+1, s.Plain))
	}
	return lines
}

// Cells of each view.

func (m *Model) findingCells() []cell {
	if g, ok := m.fnd.selectedGroup(); ok {
		out := []cell{{"code", g.title}, {"findings", strconv.Itoa(len(g.members))}}
		if g.why != "" {
			out = append(out, cell{"likely cause", g.why})
		}
		var subjects []string
		for _, i := range g.members {
			subjects = append(subjects, m.findings[i].Subject)
		}
		return append(out, cell{"subjects", strings.Join(subjects, "\n")})
	}
	x, ok := m.fnd.selected(m.findings)
	if !ok {
		return nil
	}
	out := []cell{{"subject", x.Subject}, {"message", x.Message}, {"code", string(x.Code)}, {"severity", string(x.Severity)}, {"family", string(x.Family)}}
	if mean := codeMeaning(string(x.Code)); mean != "" {
		out = append(out, cell{"what it means", mean})
	}
	if len(x.Entries) > 0 {
		out = append(out, cell{"entries", strings.Join(x.Entries, "\n")})
	}
	return append(out, cell{"the whole finding", findingText(x)})
}

func findingText(x finding.Finding) string {
	return fmt.Sprintf("%s %s %s: %s", strings.ToUpper(string(x.Severity)), x.Code, x.Subject, x.Message)
}

func (m *Model) entryCells() []cell {
	if m.ent.len() == 0 {
		return nil
	}
	r := m.src.Entry(m.ent.selectedEntry())
	content := cell{"content", r.Preview}
	if d := m.det.d; d != nil && d.Row.ID == r.ID {
		for _, f := range d.Fields {
			if f.Name == "content" {
				content.value = f.Value
			}
		}
	} else if strings.HasSuffix(r.Preview, "…") {
		content.name = contentStart
	}
	return []cell{{"id", r.ID}, {"writer", r.Writer}, content, {"recorded (REC)", trustWord(r.Recorded)},
		{fmt.Sprintf("recomputed (NOW, tau %.2f, %s)", m.tau, policyName(m.failClosed)), trustWord(r.Recomputed)},
		{"time (UTC)", m.entryTime(r, time.RFC3339Nano)}, {"status", stripANSI(m.statusWord(r))}}
}

func (m *Model) detailCells() []cell {
	d := m.det.d
	if d == nil {
		return nil
	}
	out := []cell{{"id", d.Row.ID}}
	for _, f := range d.Fields {
		out = append(out, cell{f.Name, f.Value})
	}
	out = append(out, cell{"signature", d.Signature.String() + "  " + d.SigNote}, cell{"hmac", d.HMAC.String() + "  " + d.HMACNote})
	if inc := d.Inclusion; inc != nil {
		var proof []string
		for j, st := range inc.Steps {
			proof = append(proof, fmt.Sprintf("level %d sibling %s left=%v node %s", j, hex.EncodeToString(st.Sibling), st.Left, hex.EncodeToString(st.Node)))
		}
		out = append(out, cell{"leaf index", strconv.FormatUint(inc.LeafIndex, 10)}, cell{"leaf hash", hex.EncodeToString(inc.LeafHash)},
			cell{"checkpoint root", hex.EncodeToString(inc.Root)}, cell{"inclusion proof", strings.Join(proof, "\n")})
	}
	links := func(name string, ls []Link) {
		var ids []string
		for _, l := range ls {
			ids = append(ids, fmt.Sprintf("%s w=%g %s", l.ID, l.Weight, trustWord(l.Trust)))
		}
		if len(ids) > 0 {
			out = append(out, cell{name, strings.Join(ids, "\n")})
		}
	}
	links("parents", d.Parents)
	links("children", d.Children)
	if len(d.SignedBytes) > 0 {
		out = append(out, cell{"signed bytes (hex)", hex.EncodeToString(d.SignedBytes)})
	}
	return out
}

func (m *Model) lineageCells() []cell {
	lv := m.lin.lv
	if lv == nil {
		return nil
	}
	out := []cell{{"entry", m.lineageSelected()}}
	if m.lin.cur.sel < len(lv.Rows) {
		out = append(out, cell{"row", lv.Rows[m.lin.cur.sel]})
	}
	if i, ok := m.src.EntryIndex(m.lineageSelected()); ok {
		r := m.src.Entry(i)
		out = append(out, cell{"writer", r.Writer}, cell{"content", r.Preview})
	}
	return append(out, cell{"centre", lv.ID}, cell{"drawing", strings.Join(lv.Rows, "\n")})
}

func (m *Model) replayCells() []cell {
	r := &m.rep
	row, ok := r.selectedRow()
	if !ok {
		return nil
	}
	out := []cell{{"query", row.QueryID}, {"text", r.rv.Texts[row.QueryID]}, {"class", string(row.Class)}}
	if !r.open {
		return out
	}
	if e, ok := r.selectedEdge(); ok {
		out = append(out, cell{"selected write", e.ID},
			cell{"selected write in full", fmt.Sprintf("%s %s -[%.2f]-> %s by %s (%s)", e.ID, e.Src, e.Weight, e.Dst, e.Writer, e.Rule)})
	}
	sel := func(name string, items []string) {
		out = append(out, cell{name, strings.Join(items, "\n")})
	}
	var g, ga, inj []string
	for _, it := range row.G.Items {
		g = append(g, fmt.Sprintf("%d %s %.4f", it.Rank+1, it.NodeID, it.Score))
	}
	for _, it := range row.GAuth.Items {
		ga = append(ga, fmt.Sprintf("%d %s %.4f", it.Rank+1, it.NodeID, it.Score))
	}
	sel("G top-k", g)
	sel("G_auth top-k", ga)
	for _, it := range row.Changes.Items {
		if it.Change == diff.New {
			n := r.rv.Nodes[it.ID]
			inj = append(inj, it.ID)
			if n.EntryID != "" {
				out = append(out, cell{"injected " + it.ID + " entry", n.EntryID})
			}
			if n.Text != "" {
				out = append(out, cell{"injected " + it.ID + " text", n.Text})
			}
		}
	}
	if len(inj) > 0 {
		sel("injected passages", inj)
	}
	if c := row.Culprits; c != nil {
		var ids []string
		for _, cu := range c.Set {
			ids = append(ids, cu.EdgeID)
		}
		sel("culprit writes", ids)
	}
	if f := r.rv.Followed[row.QueryID]; len(f) > 0 {
		sel("the action that followed", f)
	}
	if r.wi != nil {
		sel("what-if selection", r.wi.Selection.IDs())
	}
	return out
}

func (m *Model) logCells() []cell {
	if c, ok := m.logCheckpoint(); ok {
		ts := "-"
		if c.TimeNS != 0 {
			ts = time.Unix(0, c.TimeNS).UTC().Format(time.RFC3339Nano)
		}
		out := []cell{{"checkpoint", strconv.Itoa(c.Index)}, {"root", hex.EncodeToString(c.Root)}, {"size", strconv.FormatUint(c.Size, 10)},
			{"signature", c.Signature.String()}, {"consistent", c.Consistent.String()}, {"time (UTC)", ts}}
		if c.Note != "" {
			out = append(out, cell{"note", c.Note})
		}
		return out
	}
	i, ok := m.logLeaf()
	if !ok {
		return nil
	}
	lf := m.src.Leaf(i)
	return []cell{{"subject", lf.Subject}, {"leaf", strconv.FormatUint(lf.Index, 10)}, {"kind", lf.Kind.String()}}
}

func (m *Model) actionCells() []cell {
	a, ok := m.act.selected()
	if !ok {
		return nil
	}
	var just []string
	for _, e := range a.Entries {
		just = append(just, fmt.Sprintf("%s recorded %s recomputed %s", e.ID, trustWord(e.Recorded), trustWord(e.Recomputed)))
	}
	return []cell{{"action", a.Action}, {"tool", a.Tool}, {"verdict", a.Verdict.String()}, {"reason", a.Reason},
		{"justification", strings.Join(just, "\n")}, {"governed", strings.Join(a.Governed, ", ")}}
}

func (m *Model) timelineCells() []cell {
	if m.tl.tl == nil || m.tl.cur.sel >= len(m.tl.tl.Events) {
		return nil
	}
	e := m.tl.tl.Events[m.tl.cur.sel]
	out := []cell{{"id", e.ID}, {"kind", string(e.Kind)}, {"principal", e.Principal}, {"what", e.Summary},
		{"time (UTC)", time.Unix(0, e.TS).UTC().Format(time.RFC3339Nano)}}
	if e.Leaf >= 0 {
		out = append(out, cell{"leaf", strconv.FormatInt(e.Leaf, 10)})
	}
	if len(e.Cites) > 0 {
		out = append(out, cell{"cites", strings.Join(e.Cites, "\n")})
	}
	return out
}

func (m *Model) overviewCells() []cell {
	ov := m.ov
	out := []cell{{"store", ov.Title}}
	for _, a := range ov.Anchors {
		out = append(out, cell{a.Name, a.Detail})
	}
	for i, n := range ov.Notes {
		out = append(out, cell{fmt.Sprintf("note %d", i+1), n})
	}
	return out
}
