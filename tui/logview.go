package tui

import (
	"encoding/hex"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// logState is the Log view's place: one selection over the checkpoints
// (rows 0..C-1) and then the leaves (rows C..C+L-1), so a checkpoint can
// be selected, previewed and copied like a leaf. Each section scrolls on
// its own.
type logState struct {
	sel     int
	cpTop   int // first checkpoint shown
	leafTop int // first leaf shown
	cpRows  int // checkpoint rows shown (set by render)
	rows    int // leaf rows shown (set by render)
	cpList  int // screen row of the first checkpoint row (set by render)
}

// logCheckpoint is the selected checkpoint, if a checkpoint is selected.
func (m *Model) logCheckpoint() (CheckpointRow, bool) {
	cps := m.src.Checkpoints()
	if m.logv.sel < len(cps) {
		return cps[m.logv.sel], true
	}
	return CheckpointRow{}, false
}

// logLeaf is the selected leaf index, if a leaf is selected.
func (m *Model) logLeaf() (int, bool) {
	i := m.logv.sel - len(m.src.Checkpoints())
	if i >= 0 && i < m.src.LeafCount() {
		return i, true
	}
	return 0, false
}

func (m *Model) logMove(d int) {
	n := len(m.src.Checkpoints()) + m.src.LeafCount()
	m.logv.sel = max(0, min(n-1, m.logv.sel+d))
}

// selectLeaf and selectCheckpoint put the Log view's selection on leaf n or
// on the checkpoint at position i of Checkpoints().
func (m *Model) selectLeaf(n int) {
	m.view = ViewLog
	m.logv.sel = len(m.src.Checkpoints()) + n
}

func (m *Model) selectCheckpoint(i int) {
	m.view = ViewLog
	m.logv.sel = i
}

// window keeps sel inside [top, top+rows) of n rows.
func window(top, sel, rows, n int) int {
	if sel >= 0 && sel < n {
		if sel < top {
			top = sel
		}
		if sel >= top+rows {
			top = sel - rows + 1
		}
	}
	return max(0, min(top, n-rows))
}

func (m *Model) renderLog(w, h int) []string {
	s, lv := m.styles, &m.logv
	cps := m.src.Checkpoints()
	n := m.src.LeafCount()
	lv.sel = max(0, min(lv.sel, len(cps)+n-1))
	lv.cpRows = min(len(cps), max(1, h/3))
	lv.cpTop = window(lv.cpTop, lv.sel, lv.cpRows, len(cps))
	title := fmt.Sprintf("Checkpoints (%d)", len(cps))
	if len(cps) > lv.cpRows {
		title += fmt.Sprintf("  rows %d-%d, j/k scroll", lv.cpTop+1, lv.cpTop+lv.cpRows)
	}
	lines := []string{s.Title.Render(title),
		s.Header.Render(fit(fmt.Sprintf("  %-4s %-10s %-11s %-11s %-20s %s", "#", "SIZE", "SIGNATURE", "CONSISTENT", "TIME (UTC)", "ROOT"), w))}
	lv.cpList = headerRows + len(lines)
	for i := lv.cpTop; i < len(cps) && i < lv.cpTop+lv.cpRows; i++ {
		c := cps[i]
		ts := "-"
		if c.TimeNS != 0 {
			ts = time.Unix(0, c.TimeNS).UTC().Format("2006-01-02 15:04:05")
		}
		line := fmt.Sprintf("%-4d %-10d %s %s %-20s %s", c.Index, c.Size, padRight(s.status(c.Signature), 11), padRight(s.status(c.Consistent), 11), ts, hex.EncodeToString(c.Root))
		if c.Note != "" {
			line += "  " + m.untrusted(c.Note, max(20, w-ansiWidth(line)-4))
		}
		lines = append(lines, m.listLine(line, i == lv.sel))
	}
	lines = append(lines, "", s.Title.Render(fmt.Sprintf("Leaves (%d)", n)),
		s.Header.Render(fit(fmt.Sprintf("  %-10s %-10s %s", "INDEX", "KIND", "SUBJECT"), w)))
	m.listTop = headerRows + len(lines)
	rows := max(1, h-len(lines))
	lv.rows = rows
	lv.leafTop = window(lv.leafTop, lv.sel-len(cps), rows, n)
	for p := lv.leafTop; p < n && p < lv.leafTop+rows; p++ {
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
		if t, ok := leafTable[lf.Kind]; ok {
			// A signed row whose record failed a check: verify's label.
			line += m.coverageMark(t, lf.Subject)
		}
		lines = append(lines, m.listLine(line, len(cps)+p == lv.sel))
	}
	return lines
}

// leafTable is the coverage table of the rows kind-tagged leaves claim.
var leafTable = map[LeafKind]string{LeafQuery: "queries", LeafAction: "actions", LeafGate: "gate_events", LeafNode: "nodes",
	LeafConfig: "meta", LeafSighting: "checkpoints", LeafVector: "vectors"}

// listLine marks a list row as selected (marker and reverse video) or
// indents it.
func (m *Model) listLine(line string, selected bool) string {
	if selected {
		return m.styles.Selected.Render(m.styles.SelMarker + " " + stripANSI(line))
	}
	return "  " + line
}

// logClick selects the checkpoint or leaf on screen row y.
func (m *Model) logClick(y int) tea.Cmd {
	lv := &m.logv
	if r := y - lv.cpList; r >= 0 && r < lv.cpRows {
		m.logv.sel = lv.cpTop + r
		return nil
	}
	if r := y - m.listTop; r >= 0 && r < lv.rows {
		m.logv.sel = len(m.src.Checkpoints()) + lv.leafTop + r
	}
	return nil
}

func (m *Model) logKey(msg tea.KeyPressMsg) tea.Cmd {
	if !key.Matches(msg, m.keys.Open) {
		return m.unused()
	}
	if c, ok := m.logCheckpoint(); ok {
		m.setStatus("checkpoint %d covers leaves 0 to %d: the preview has it in full", c.Index, int64(c.Size)-1)
		return nil
	}
	i, ok := m.logLeaf()
	if !ok {
		return nil
	}
	lf := m.src.Leaf(i)
	if _, ok := m.src.EntryIndex(lf.Subject); ok && lf.Kind == LeafEntry {
		m.push()
		return m.openEntryID(lf.Subject)
	}
	if kind, ok := leafEvent[lf.Kind]; ok {
		if _, isTL := m.src.(TimelineSource); isTL {
			m.push()
			return m.jumpEvent(kind, lf.Subject)
		}
	}
	m.setErr("leaf %d names %s, which is not in the store", lf.Index, sanitize.Line(lf.Subject))
	return nil
}

func (m *Model) leafSelected() string {
	if c, ok := m.logCheckpoint(); ok {
		return fmt.Sprintf("checkpoint %d", c.Index)
	}
	if i, ok := m.logLeaf(); ok {
		return m.src.Leaf(i).Subject
	}
	return ""
}

// leafPreview is the selected checkpoint or leaf in full with the findings
// about it.
func (m *Model) leafPreview() []string {
	if c, ok := m.logCheckpoint(); ok {
		return m.checkpointPreview(c)
	}
	i, ok := m.logLeaf()
	if !ok {
		return nil
	}
	lf := m.src.Leaf(i)
	out := []string{fmt.Sprintf("leaf %d  kind %s", lf.Index, lf.Kind), "subject: " + m.untrusted(lf.Subject, 1<<20)}
	if _, ok := m.src.EntryIndex(lf.Subject); !ok && lf.Kind == LeafEntry {
		out = append(out, m.styles.Error.Render("the record this leaf names is not in the store"))
	}
	out = append(out, m.relatedFindings(fmt.Sprintf("leaf %d", lf.Index), "", nil)...)
	if word := leafWord[lf.Kind]; word != "" {
		out = append(out, m.relatedFindings(word+" "+lf.Subject, "", nil)...)
	}
	return append(out, m.relatedFindings("entry "+lf.Subject, lf.Subject, nil)...)
}

func (m *Model) checkpointPreview(c CheckpointRow) []string {
	ts := "not recorded"
	if c.TimeNS != 0 {
		ts = time.Unix(0, c.TimeNS).UTC().Format(time.RFC3339Nano)
	}
	out := []string{
		fmt.Sprintf("checkpoint %d  tree size %d (leaves 0 to %d)", c.Index, c.Size, int64(c.Size)-1),
		"signature: " + c.Signature.String(),
		"consistent with the log: " + c.Consistent.String(),
		"seen at: " + ts,
		"root: " + hex.EncodeToString(c.Root),
	}
	if c.Note != "" {
		out = append(out, m.wrapUntrusted("note: ", c.Note)...)
	}
	return append(out, m.relatedFindings(fmt.Sprintf("checkpoint %d", c.Index), "", nil)...)
}

// leafWord is the finding subject word of a leaf kind ("write ID").
var leafWord = map[LeafKind]string{LeafWrite: "write", LeafRegistry: "principal", LeafTombstone: "tombstone"}
