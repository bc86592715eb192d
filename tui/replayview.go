package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/sanitize"
)

type replayState struct {
	loading bool
	err     error
	rv      *ReplayView
	order   []int // rows: DIVERGE first, then REORDER, then same
	want    string
	list    listCursor
	open    bool
	ecur    listCursor
	removed map[string]bool

	wi        *replay.WhatIf
	wiGen     int
	wiLoading bool
	wiErr     error
}

func classRank(c diff.Class) int {
	switch c {
	case diff.Diverge:
		return 0
	case diff.Reorder:
		return 1
	}
	return 2
}

func (r *replayState) sortRows() {
	if r.rv == nil {
		return
	}
	r.order = r.order[:0]
	for i := range r.rv.Rows {
		r.order = append(r.order, i)
	}
	rows := r.rv.Rows
	sort.SliceStable(r.order, func(a, b int) bool {
		ra, rb := rows[r.order[a]], rows[r.order[b]]
		if classRank(ra.Class) != classRank(rb.Class) {
			return classRank(ra.Class) < classRank(rb.Class)
		}
		return ra.IFCBlind && !rb.IFCBlind
	})
	if r.want != "" {
		for p, i := range r.order {
			if rows[i].QueryID == r.want {
				r.list.sel = p
				r.open = true
				r.resetWhatIf()
			}
		}
		r.want = ""
	}
}

func (r *replayState) selectedRow() (replay.Row, bool) {
	if r.rv == nil || r.list.sel >= len(r.order) {
		return replay.Row{}, false
	}
	return r.rv.Rows[r.order[r.list.sel]], true
}

func (r *replayState) edges() []UnauthEdge {
	row, ok := r.selectedRow()
	if !ok {
		return nil
	}
	return r.rv.Unauthenticated[row.QueryID]
}

func (r *replayState) selectedEdge() (UnauthEdge, bool) {
	es := r.edges()
	if r.ecur.sel < len(es) {
		return es[r.ecur.sel], true
	}
	return UnauthEdge{}, false
}

func (r *replayState) resetWhatIf() {
	r.removed = map[string]bool{}
	r.wi, r.wiErr, r.wiLoading = nil, nil, false
	r.ecur = listCursor{}
	r.wiGen++
}

func (r *replayState) move(d, h int) {
	if r.open {
		r.ecur.move(d, len(r.edges()), 1<<30)
		return
	}
	r.list.move(d, len(r.order), h-2)
}

func isCulprit(row replay.Row, id string) bool {
	if row.Culprits == nil {
		return false
	}
	for _, c := range row.Culprits.Set {
		if c.EdgeID == id {
			return true
		}
	}
	return false
}

func (m *Model) replayKey(msg tea.KeyPressMsg) tea.Cmd {
	k, r := m.keys, &m.rep
	if r.rv == nil {
		return nil
	}
	switch {
	case key.Matches(msg, k.Open) && !r.open:
		if _, ok := r.selectedRow(); ok {
			r.open = true
			r.resetWhatIf()
		}
	case key.Matches(msg, k.Back) && r.open:
		r.open = false
	case key.Matches(msg, k.Toggle) && r.open:
		if e, ok := r.selectedEdge(); ok {
			r.removed[e.ID] = !r.removed[e.ID]
			return m.runWhatIf()
		}
	case key.Matches(msg, k.WhatIf) && r.open:
		// Remove every culprit at once (or put them all back).
		row, _ := r.selectedRow()
		if row.Culprits == nil || len(row.Culprits.Set) == 0 {
			m.setErr("no culprits for this query")
			return nil
		}
		all := true
		for _, c := range row.Culprits.Set {
			all = all && r.removed[c.EdgeID]
		}
		for _, c := range row.Culprits.Set {
			r.removed[c.EdgeID] = !all
		}
		return m.runWhatIf()
	}
	return nil
}

func (m *Model) runWhatIf() tea.Cmd {
	r := &m.rep
	row, ok := r.selectedRow()
	if !ok {
		return nil
	}
	var remove []string
	for _, e := range r.edges() {
		if r.removed[e.ID] {
			remove = append(remove, e.ID)
		}
	}
	r.wiGen++
	if len(remove) == 0 {
		r.wi, r.wiLoading, r.wiErr = nil, false, nil
		return nil
	}
	r.wiLoading = true
	gen, src, ctx, q := r.wiGen, m.src, m.ctx, row.QueryID
	return tea.Batch(func() tea.Msg {
		w, err := src.WhatIf(ctx, q, remove)
		return whatIfMsg{gen: gen, w: w, err: err}
	}, m.startTick())
}

func (m *Model) classWord(c diff.Class) string {
	s := m.styles
	switch c {
	case diff.Diverge:
		return s.Diverge.Render("DIVERGE")
	case diff.Reorder:
		return s.Reorder.Render("REORDER")
	}
	return s.Same.Render("same   ")
}

func (m *Model) renderReplay(w, h int) []string {
	s, r := m.styles, &m.rep
	switch {
	case r.loading:
		return []string{s.Spinner[m.spin%len(s.Spinner)] + " replaying every query on G and G_auth..."}
	case r.err != nil:
		return []string{s.Error.Render("replay failed: ") + m.untrusted(r.err.Error(), w-16)}
	case r.rv == nil:
		return []string{s.Dim.Render("replay not started")}
	}
	if r.open {
		return m.renderQuery(w, h)
	}
	var nd, nr, nb int
	for _, row := range r.rv.Rows {
		switch row.Class {
		case diff.Diverge:
			nd++
		case diff.Reorder:
			nr++
		}
		if row.IFCBlind {
			nb++
		}
	}
	lines := []string{fmt.Sprintf("%d queries: %d DIVERGE, %d REORDER, %d IFC-blind   (enter opens a query)", len(r.rv.Rows), nd, nr, nb),
		s.Header.Render(fit(fmt.Sprintf("  %-8s %-9s %-16s %-9s %s", "CLASS", "IFC", "QUERY", "CULPRITS", "TEXT"), w))}
	m.listTop = 3
	rows := h - 2
	r.list.clamp(len(r.order), rows)
	for p := r.list.top; p < len(r.order) && p < r.list.top+rows; p++ {
		row := r.rv.Rows[r.order[p]]
		blind := "         "
		if row.IFCBlind {
			blind = s.Error.Render("IFC-BLIND")
		}
		cul := "-"
		if row.Culprits != nil {
			cul = fmt.Sprintf("%d", len(row.Culprits.Set))
		}
		line := fmt.Sprintf("%s %s %s %-9s %s", m.classWord(row.Class), blind, padRight(fit(sanitize.Line(row.QueryID), 16), 16), cul,
			m.untrusted(r.rv.Texts[row.QueryID], max(0, w-48)))
		if p == r.list.sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return lines
}

func (m *Model) renderQuery(w, h int) []string {
	s, r := m.styles, &m.rep
	row, _ := r.selectedRow()
	blind := ""
	if row.IFCBlind {
		blind = "  " + s.Error.Render("IFC-BLIND") + s.Dim.Render(" (every item selected on G is authenticated: provenance checks pass)")
	}
	lines := []string{
		s.Title.Render("Query ") + m.untrusted(row.QueryID, 24) + "  " + m.classWord(row.Class) + blind,
		"  " + m.untrusted(r.rv.Texts[row.QueryID], w-4),
		"",
	}
	col := max(30, (w-4)/2)
	lines = append(lines, s.Header.Render(padRight(fmt.Sprintf("  %-3s %-22s %-8s", "#", "G_auth (authenticated)", "score"), col)+"  "+
		fmt.Sprintf("%-3s %-22s %-8s %s", "#", "G (full graph)", "score", "change")))
	changes := map[string]diff.RowItem{}
	for _, it := range row.Changes.Items {
		changes[it.ID] = it
	}
	n := max(len(row.G.Items), len(row.GAuth.Items))
	for i := 0; i < n; i++ {
		var left, right string
		var lid, rid string
		if i < len(row.GAuth.Items) {
			it := row.GAuth.Items[i]
			lid = it.NodeID
			left = fmt.Sprintf("%-3d %s %.4f", i+1, padRight(fit(sanitize.Line(it.NodeID), 22), 22), it.Score)
		}
		if i < len(row.G.Items) {
			it := row.G.Items[i]
			rid = it.NodeID
			ch := changes[it.NodeID]
			word := string(ch.Change)
			if ch.Change == diff.Up || ch.Change == diff.Down {
				word = fmt.Sprintf("%s %+d", ch.Change, ch.Shift)
			}
			auth := ""
			if !it.Authenticated {
				auth = " unauth"
			}
			right = fmt.Sprintf("%-3d %s %.4f %s %s%s", i+1, padRight(fit(sanitize.Line(it.NodeID), 22), 22), it.Score, ch.Change.Arrow(), word, auth)
		}
		line := "  " + padRight(left, col-2) + "  " + right
		if lid != rid {
			line = s.Diverge.Render(m.diffMark()+" "+padRight(left, col-2)) + "  " + s.Diverge.Render(right)
		}
		lines = append(lines, line)
	}
	for _, it := range row.Changes.Items {
		if it.Change == diff.Dropped {
			lines = append(lines, "  "+s.Warning.Render(fmt.Sprintf("- dropped from G: %s (rank %d on G_auth)", sanitize.Line(it.ID), it.BeforeRank+1)))
		}
	}
	lines = append(lines, "")
	if c := row.Culprits; c != nil {
		min := "1-minimal"
		if !c.Minimal {
			min = "budget ran out: may shrink"
		}
		lines = append(lines, s.Title.Render(fmt.Sprintf("Culprits: %d of %d candidate unauthenticated writes (%s)", len(c.Set), c.Candidates, min)))
		for _, cu := range c.Set {
			restore := ""
			if cu.Restores {
				restore = "  alone restores G_auth"
			}
			lines = append(lines, fmt.Sprintf("  %s %s -> %s  w=%g  %s%s", padRight(sanitize.Line(cu.EdgeID), 10), sanitize.Line(cu.Src), sanitize.Line(cu.Dst), cu.Weight, sanitize.Line(cu.Label.Rule), restore))
		}
	}
	if len(row.Targets) > 0 {
		lines = append(lines, s.Title.Render(fmt.Sprintf("Lemma 1: capture bound %.3f", row.Targets[0].CaptureBound)))
		for _, t := range row.Targets {
			ev := s.Good.Render("safe     ")
			if t.Evictable {
				ev = s.Warning.Render("EVICTABLE")
			}
			lines = append(lines, fmt.Sprintf("  %s r=%.3f floor=%.3f %s  score G %.4f  G_auth %.4f", padRight(fit(sanitize.Line(t.NodeID), 18), 18), t.ResetMass, t.Floor, ev, t.ScoreG, t.ScoreGAuth))
		}
	}
	lines = append(lines, "", s.Title.Render("What-if")+s.Dim.Render(fmt.Sprintf("  %s toggles an edge, %s removes all culprits, %s back",
		m.keys.Toggle.Help().Key, m.keys.WhatIf.Help().Key, m.keys.Back.Help().Key)))
	switch {
	case r.wiLoading:
		lines = append(lines, "  "+s.Spinner[m.spin%len(s.Spinner)]+" replaying...")
	case r.wiErr != nil:
		lines = append(lines, "  "+s.Error.Render("what-if failed: ")+m.untrusted(r.wiErr.Error(), w-20))
	case r.wi != nil:
		verdict := fmt.Sprintf("  removed %d: vs G %s, vs G_auth %s", len(r.wi.Removed), m.classWord(r.wi.VsG.Class), m.classWord(r.wi.VsGAuth.Class))
		if r.wi.VsGAuth.Class == diff.Same {
			verdict += "  " + s.Good.Render("=> restores the G_auth selection")
		}
		lines = append(lines, verdict, "  selection: "+sanitize.Line(strings.Join(r.wi.Selection.IDs(), " ")))
	default:
		lines = append(lines, s.Dim.Render("  nothing removed: the selection is G's"))
	}
	es := r.edges()
	if len(es) == 0 {
		lines = append(lines, s.Dim.Render("  no unauthenticated writes reach this query"))
	}
	avail := max(3, h-len(lines))
	r.ecur.clamp(len(es), avail)
	for i := r.ecur.top; i < len(es) && i < r.ecur.top+avail; i++ {
		e := es[i]
		box := "[ ]"
		if r.removed[e.ID] {
			box = "[x]"
		}
		extra := ""
		if e.NoSource {
			extra += " no-source"
		}
		if isCulprit(row, e.ID) {
			extra += " " + s.Error.Render("CULPRIT")
		}
		line := fmt.Sprintf("%s %s %s -> %s  w=%g  by %s%s", box, padRight(sanitize.Line(e.ID), 10), sanitize.Line(e.Src), sanitize.Line(e.Dst), e.Weight, m.untrusted(e.Writer, 24), extra)
		if i == r.ecur.sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return lines
}

// diffMark marks a row whose two sides differ, in text as well as colour.
func (m *Model) diffMark() string {
	if m.styles.Plain {
		return "!"
	}
	return "≠"
}
