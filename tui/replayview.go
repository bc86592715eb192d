package tui

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
)

type replayState struct {
	loading bool
	err     error
	rv      *ReplayView
	order   []int // rows: DIVERGE first, then REORDER, then same
	want    string
	// openPending: a query was opened by a jump before its what-if result
	// could be computed; the model runs it.
	openPending bool
	list        listCursor
	open        bool
	ecur        listCursor
	// removed is the global what-if set (edge ids): it stays when another
	// query is opened and the header shows it.
	removed map[string]bool
	doc     int  // scroll of the open query's document
	follow  bool // scroll to keep the selected write visible
	anchors [secCount]int
	story   int // presenter step (0: not presenting)

	// asRan: Rows show each query replayed on the graph as it stood when
	// it ran (the rows are swapped with ReplayView.AsRan), not on the
	// graph as it is now.
	asRan bool

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
				r.openPending = true
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

// resetWhatIf starts a newly opened query: the global what-if set stays,
// its result is recomputed for this query.
func (r *replayState) resetWhatIf() {
	if r.removed == nil {
		r.removed = map[string]bool{}
	}
	r.wi, r.wiErr, r.wiLoading = nil, nil, false
	r.ecur = listCursor{}
	r.doc = 0
	r.wiGen++
}

func (r *replayState) move(m *Model, d, h int) {
	if r.open {
		if d == 1 || d == -1 {
			r.ecur.move(d, len(r.edges()), 1<<30)
			r.follow = true
			return
		}
		// Page and top/bottom keys scroll the document.
		r.doc = max(0, min(r.doc+d, 1<<30))
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
		return m.unused()
	}
	switch {
	case key.Matches(msg, k.Open) && !r.open:
		if _, ok := r.selectedRow(); ok {
			m.push()
			r.open = true
			r.resetWhatIf()
			return m.runWhatIf()
		}
	case (key.Matches(msg, k.Toggle) || key.Matches(msg, k.WhatIf)) && r.open && r.asRan:
		// Refused before the global what-if set changes.
		m.setErr("what-ifs run on the graph as it is now: press %s to return to it", m.keys.AsRan.Help().Key)
	case key.Matches(msg, k.Toggle) && r.open:
		if e, ok := r.selectedEdge(); ok {
			r.removed[e.ID] = !r.removed[e.ID]
			r.follow = true // keep the toggled write on screen
			return m.runWhatIf()
		}
	case key.Matches(msg, k.WhatIf) && r.open:
		return m.toggleCulprits()
	case key.Matches(msg, k.AsRan):
		return m.toggleAsRan()
	case key.Matches(msg, k.Story):
		return m.storyStep(1)
	case key.Matches(msg, k.StoryBack):
		return m.storyStep(-1)
	default:
		return m.unused()
	}
	return nil
}

// toggleAsRan switches every row between the replay on the graph as it
// is now and the replay on the graph as it stood when the query ran. The
// what-if set is kept, but what-ifs run on the graph as it is now, so they
// are refused while the rows show the past.
func (m *Model) toggleAsRan() tea.Cmd {
	r := &m.rep
	n := 0
	for i := range r.rv.AsRan {
		if i < len(r.rv.Rows) && r.rv.AsRan[i].QueryID != "" {
			r.rv.Rows[i], r.rv.AsRan[i] = r.rv.AsRan[i], r.rv.Rows[i]
			n++
		}
	}
	if n == 0 {
		m.setErr("no query has a place in the timeline: there is only the graph as it is now")
		return nil
	}
	r.asRan = !r.asRan
	sel := ""
	if row, ok := r.selectedRow(); ok {
		sel = row.QueryID
	}
	r.sortRows()
	for p, i := range r.order {
		if r.rv.Rows[i].QueryID == sel {
			r.list.sel = p
		}
	}
	r.wi, r.wiErr, r.wiLoading = nil, nil, false
	r.wiGen++
	if r.open && !r.asRan {
		return m.runWhatIf()
	}
	return nil
}

// graphLine says which graph the rows were replayed on.
func (r *replayState) graphLine(m *Model) string {
	if r.asRan {
		return fmt.Sprintf("graph: as each query ran (only writes logged before it)   %s: now", m.keys.AsRan.Help().Key)
	}
	if len(r.rv.AsRan) == 0 {
		return "graph: now (every write)"
	}
	return fmt.Sprintf("graph: now (every write)   %s: as each query ran", m.keys.AsRan.Help().Key)
}

// toggleCulprits removes every culprit of the open query at once (or puts
// them all back).
func (m *Model) toggleCulprits() tea.Cmd {
	r := &m.rep
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

// storyStep is the presenter: each step scrolls the query to the next
// part of the AuthSelect story (the fix step removes the culprits).
func (m *Model) storyStep(d int) tea.Cmd {
	r := &m.rep
	if r.rv == nil {
		return nil
	}
	if !r.open {
		if _, ok := r.selectedRow(); !ok {
			return nil
		}
		m.push()
		r.open = true
		r.resetWhatIf()
	}
	next := r.story + d
	if next < 1 {
		next = 1
	}
	if next > len(storySteps) {
		next = 1
	}
	var cmd tea.Cmd
	fixStep := len(storySteps) - 1 // "the fix" (1-based)
	row, _ := r.selectedRow()
	removedAll := row.Culprits != nil && len(row.Culprits.Set) > 0
	if row.Culprits != nil {
		for _, c := range row.Culprits.Set {
			removedAll = removedAll && r.removed[c.EdgeID]
		}
	}
	if (next >= fixStep) != removedAll && row.Culprits != nil && len(row.Culprits.Set) > 0 {
		cmd = m.toggleCulprits()
	}
	r.story = next
	r.doc = r.anchors[storySteps[next-1].sec]
	r.follow = false
	m.setStatus("story %d/%d: %s", next, len(storySteps), m.authWords(storySteps[next-1].what))
	return cmd
}

func (m *Model) runWhatIf() tea.Cmd {
	r := &m.rep
	row, ok := r.selectedRow()
	if !ok {
		return nil
	}
	if r.asRan {
		m.setErr("what-ifs run on the graph as it is now: press %s to return to it", m.keys.AsRan.Help().Key)
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
	lines := []string{fmt.Sprintf("%d queries: %d DIVERGE, %d REORDER, %d IFC-blind   (enter opens a query, %s tells its story)", len(r.rv.Rows), nd, nr, nb, m.keys.Story.Help().Key),
		s.Header.Render(fit(fmt.Sprintf("  %-8s %-9s %-16s %-9s %s", "CLASS", "IFC", "QUERY", "CULPRITS", "TEXT"), w))}
	if len(r.rv.AsRan) > 0 {
		// The store has a timeline: say which graph the rows were
		// replayed on, and how to switch.
		lines = append([]string{lines[0], fit(r.graphLine(m), w)}, lines[1:]...)
	}
	m.listTop = headerRows + 1 + len(lines)
	rows := h - len(lines)
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

// Sections of the query document, in story order; the presenter scrolls
// to them.
const (
	secTables = iota
	secInjected
	secCulprits
	secAction
	secWhatIf
	secLemma
	secCount
)

// authWords words the replay for the store in front of the reader: in a
// native store nothing is signed, and G_auth keeps the edges the store's
// own fields explain, which is a declaration, not authentication.
func (m *Model) authWords(text string) string {
	if !m.ov.Unsigned {
		return text
	}
	return nativeWords.Replace(text)
}

var nativeWords = strings.NewReplacer("unauthenticated", "unexplained", "authenticated", "store-explained")

// storySteps are the presenter's steps through the AuthSelect story.
var storySteps = []struct {
	sec  int
	what string
}{
	{secTables, "the attack: G (every edge) selects a passage G_auth (authenticated edges only) does not"},
	{secInjected, "the injected passage: what the agent read because of unauthenticated writes"},
	{secCulprits, "the culprits: the unauthenticated writes that did it"},
	{secAction, "the effect: the action that followed, and what each defence says about it"},
	{secWhatIf, "the fix: remove the culprits (w) and the selection is G_auth's again"},
	{secTables, "the tables re-ranked without the culprits, changes marked"},
}

func (m *Model) renderQuery(w, h int) []string {
	s, r := m.styles, &m.rep
	row, _ := r.selectedRow()
	plain := s.Plain
	var lines []string
	anchor := func(sec int) { r.anchors[sec] = len(lines) }
	r.anchors = [secCount]int{}
	title := s.Title.Render("Query ") + m.untrusted(row.QueryID, 40) + "  " + m.classWord(row.Class)
	if row.IFCBlind {
		title += "  " + s.Error.Render("IFC-BLIND")
	}
	lines = append(lines, title)
	if len(r.rv.AsRan) > 0 {
		lines = append(lines, fit("  "+r.graphLine(m), w))
		if r.asRan {
			if r.list.sel >= len(r.order) {
				// nothing selected
			} else if i := r.order[r.list.sel]; i < len(r.rv.AsRanAt) && r.rv.AsRanAt[i] != "" {
				lines = append(lines, wrapLine(s.Dim.Render("  replayed as of "+sanitize.Line(r.rv.AsRanAt[i])), w-2)...)
			}
		}
	}
	lines = append(lines, wrapLine("  "+m.untrusted(r.rv.Texts[row.QueryID], 1<<20)+m.coverageMark("queries", row.QueryID), w-2)...)
	if row.IFCBlind {
		lines = append(lines, wrapLine(s.Dim.Render(m.authWords("  every item selected on G is authenticated, so a provenance check of what was retrieved passes; only replay shows the attack")), w-2)...)
	}
	anchor(secTables)
	lines = append(lines, "")
	lines = append(lines, m.topkTables(row, w)...)
	lines = append(lines, m.nodeCoverage(row)...)
	lines = append(lines, wrapLine(s.Dim.Render(m.authWords("  legend: G_auth = authenticated edges only, G = every edge; "+changeLegend(plain)+"; INJECTED = on G only, pulled in by unauthenticated writes")), w-2)...)

	anchor(secInjected)
	lines = append(lines, m.injectedLines(row, w)...)

	anchor(secCulprits)
	lines = append(lines, m.culpritLines(row, w)...)

	anchor(secAction)
	lines = append(lines, "")
	lines = append(lines, m.followingActions(row.QueryID, w)...)

	anchor(secWhatIf)
	lines = append(lines, "", s.Title.Render("What-if")+s.Dim.Render(fmt.Sprintf("  %s toggles a write, %s removes all culprits (again: puts them back)",
		m.keys.Toggle.Help().Key, m.keys.WhatIf.Help().Key)))
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
		lines = append(lines, verdict)
		lines = append(lines, wrapLine("  selection: "+sanitize.Line(strings.Join(r.wi.Selection.IDs(), " ")), w-2)...)
	default:
		lines = append(lines, s.Dim.Render("  nothing removed: the selection is G's"))
	}
	es := r.edges()
	if len(es) == 0 {
		lines = append(lines, s.Dim.Render(m.authWords("  no unauthenticated writes reach this query")))
	}
	r.ecur.clamp(len(es), 1<<30)
	selLine := -1
	for i, e := range es {
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
		line := fmt.Sprintf("%s %s %s%s%s  by %s%s", box, shortID(sanitize.Line(e.ID), plain), sanitize.Line(e.Src), weightArrow(e.Weight, ""), sanitize.Line(e.Dst), m.untrusted(e.Writer, 24), extra)
		if i == r.ecur.sel {
			selLine = len(lines)
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}

	anchor(secLemma)
	if len(row.Targets) > 0 {
		lines = append(lines, "", s.Title.Render(fmt.Sprintf("Lemma 1: capture bound %.3f", row.Targets[0].CaptureBound))+
			s.Dim.Render("  (a passage whose floor is above the capture bound cannot be evicted)"))
		for _, t := range row.Targets {
			ev := s.Good.Render("safe     ")
			if t.Evictable {
				ev = s.Warning.Render("EVICTABLE")
			}
			lines = append(lines, fmt.Sprintf("  %s reset %.3f floor %.3f %s  score G %.4f  G_auth %.4f", padRight(fit(sanitize.Line(t.NodeID), 22), 22), t.ResetMass, t.Floor, ev, t.ScoreG, t.ScoreGAuth))
		}
	}
	// Keep the selected write on screen; otherwise the document scrolls.
	if r.follow && selLine >= 0 {
		if selLine < r.doc {
			r.doc = selLine
		} else if selLine >= r.doc+h-1 {
			// h-1: the last line may become the "more lines" mark.
			r.doc = selLine - h + 2
		}
		r.follow = false
	}
	return m.scrollRep(lines, h)
}

// injectedLines is the query detail's "Injected passage" section: the
// passages G selects and G_auth does not.
func (m *Model) injectedLines(row replay.Row, w int) []string {
	s, r := m.styles, &m.rep
	var lines []string
	lines = append(lines, "", s.Title.Render("Injected passage"))
	injected := 0
	for _, it := range row.Changes.Items {
		if it.Change != diff.New {
			continue
		}
		injected++
		n := r.rv.Nodes[it.ID]
		lines = append(lines, "  "+s.Error.Render("INJECTED ")+s.Bold.Render(sanitize.Line(it.ID))+fmt.Sprintf("  rank %d on G, not in G_auth's top-%d", it.AfterRank+1, len(row.GAuth.Items)))
		if n.EntryID != "" {
			lines = append(lines, "    entry "+m.untrusted(n.EntryID, 1<<20))
		}
		if n.Text != "" {
			for _, l := range m.wrapUntrusted("    \"", n.Text+"\"") {
				lines = append(lines, wrapLine(l, w-2)...)
			}
		}
	}
	if injected == 0 {
		lines = append(lines, s.Dim.Render("  none: G selects no passage that G_auth does not"))
	}
	return lines
}

// culpritLines is the query detail's "Culprits" section.
func (m *Model) culpritLines(row replay.Row, w int) []string {
	s, plain := m.styles, m.styles.Plain
	var lines []string
	lines = append(lines, "")
	if c := row.Culprits; c != nil {
		min := "1-minimal: each one is needed"
		if !c.Minimal {
			min = "search budget ran out: the set may shrink"
		}
		lines = append(lines, s.Title.Render(m.authWords(fmt.Sprintf("Culprits: %d of %d unauthenticated writes", len(c.Set), c.Candidates)))+s.Dim.Render("  ("+min+")"))
		for _, cu := range c.Set {
			restore := ""
			if cu.Restores {
				restore = "  alone restores G_auth"
			}
			lines = append(lines, wrapLine(fmt.Sprintf("  %s  %s%s%s  %s%s", shortID(sanitize.Line(cu.EdgeID), plain), sanitize.Line(cu.Src), weightArrow(cu.Weight, ""), sanitize.Line(cu.Dst), sanitize.Line(cu.Label.Rule), restore), w-2)...)
		}
	} else {
		lines = append(lines, s.Title.Render("Culprits")+s.Dim.Render("  none: the selection does not diverge"))
	}
	return lines
}

func (m *Model) scrollRep(lines []string, h int) []string {
	r := &m.rep
	r.doc = max(0, min(r.doc, len(lines)-h))
	end := min(len(lines), r.doc+h)
	out := append([]string(nil), lines[r.doc:end]...)
	if end < len(lines) && h > 1 {
		out[len(out)-1] = m.styles.Dim.Render(moreLine(len(lines)-end+1, m.styles.Plain))
	}
	return out
}

func changeLegend(plain bool) string {
	if plain {
		return "+ new, ^ up, v down, = kept"
	}
	return "+ new, ↑ up, ↓ down, = kept"
}

// changeArrow is a rank change's mark (ASCII in plain mode).
func changeArrow(c diff.Change, plain bool) string {
	if plain {
		switch c {
		case diff.Up:
			return "^"
		case diff.Down:
			return "v"
		}
	}
	return c.Arrow()
}

// topkTables draws G_auth and G (or G after the what-if) top-k tables,
// side by side and close together when wide, G first and stacked when
// narrow.
func (m *Model) topkTables(row replay.Row, w int) []string {
	s, r := m.styles, &m.rep
	plain := s.Plain
	gAuthSet := map[string]bool{}
	for _, it := range row.GAuth.Items {
		gAuthSet[it.NodeID] = true
	}
	const tw = 52
	left := []string{s.Header.Render(fmt.Sprintf("%-3s %-26s %-7s", "#", m.authWords("G_auth (authenticated)"), "score"))}
	for i, it := range row.GAuth.Items {
		left = append(left, fmt.Sprintf("%-3d %s %.4f", i+1, padRight(fit(sanitize.Line(it.NodeID), 26), 26), it.Score))
	}
	gTitle := "G (full graph)"
	items := make([]struct {
		id    string
		score float64
	}, 0, len(row.G.Items))
	marks := map[string]string{}
	if r.wi != nil {
		gTitle = fmt.Sprintf("G minus %d writes", len(r.wi.Removed))
		for _, it := range r.wi.Selection.Items {
			items = append(items, struct {
				id    string
				score float64
			}{it.NodeID, it.Score})
		}
		for _, c := range r.wi.VsG.Items {
			if c.Change == diff.Dropped {
				continue
			}
			mk := changeArrow(c.Change, plain) + " vs G"
			if c.Change == diff.Up || c.Change == diff.Down {
				mk = fmt.Sprintf("%s%+d vs G", changeArrow(c.Change, plain), c.Shift)
			}
			marks[c.ID] = mk
		}
	} else {
		for _, it := range row.G.Items {
			items = append(items, struct {
				id    string
				score float64
			}{it.NodeID, it.Score})
		}
		for _, c := range row.Changes.Items {
			if c.Change == diff.Dropped {
				continue
			}
			mk := changeArrow(c.Change, plain)
			if c.Change == diff.Up || c.Change == diff.Down {
				mk = fmt.Sprintf("%s%+d", changeArrow(c.Change, plain), c.Shift)
			}
			marks[c.ID] = mk
		}
	}
	right := []string{s.Header.Render(fmt.Sprintf("%-3s %-26s %-7s %s", "#", gTitle, "score", "change"))}
	for i, it := range items {
		line := fmt.Sprintf("%-3d %s %.4f %-9s", i+1, padRight(fit(sanitize.Line(it.id), 26), 26), it.score, marks[it.id])
		if !gAuthSet[it.id] {
			line = s.Error.Render(line + " INJECTED")
		} else if r.wi != nil && !strings.HasPrefix(marks[it.id], "=") {
			line = s.Warning.Render(line)
		}
		right = append(right, line)
	}
	var dropped []string
	res := row.Changes
	if r.wi != nil {
		res = r.wi.VsG
	}
	for _, it := range res.Items {
		if it.Change == diff.Dropped {
			word := "pushed out by G"
			if r.wi != nil {
				word = "gone after the what-if"
			}
			dropped = append(dropped, s.Warning.Render(fmt.Sprintf("  - %s %s (rank %d before)", sanitize.Line(it.ID), word, it.BeforeRank+1)))
		}
	}
	var out []string
	if w >= 2*tw+6 {
		n := max(len(left), len(right))
		for i := 0; i < n; i++ {
			var l, rr string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				rr = right[i]
			}
			out = append(out, "  "+padRight(l, tw)+"  "+rr)
		}
	} else {
		for _, l := range right {
			out = append(out, "  "+l)
		}
		out = append(out, "")
		for _, l := range left {
			out = append(out, "  "+l)
		}
	}
	return append(out, dropped...)
}

// followingActions lists the actions justified by a passage this query
// selected on G, with their verdicts.
func (m *Model) followingActions(queryID string, w int) []string {
	s, r := m.styles, &m.rep
	lines := []string{s.Title.Render("The action that followed")}
	ids := r.rv.Followed[queryID]
	if len(ids) == 0 {
		return append(lines, s.Dim.Render("  no recorded action is justified by a passage this query selected"))
	}
	for _, id := range ids {
		var g lineage.GateResult
		found := false
		for _, a := range m.act.rows {
			if a.Action == id {
				g, found = a, true
			}
		}
		if !found {
			lines = append(lines, "  "+m.untrusted(id, 40))
			continue
		}
		disp := "dispatched"
		if !g.Dispatched {
			disp = "not dispatched"
		}
		lines = append(lines, "  "+s.Bold.Render(sanitize.Line(g.Action))+"  "+sanitize.Line(g.Tool)+"  "+disp+m.coverageMark("actions", g.Action))
		lines = append(lines, wrapLine("    "+m.untrusted(g.Reason, 1<<20), w-2)...)
		for _, l := range m.defenceVerdicts(g) {
			lines = append(lines, wrapLine(l, w-2)...)
		}
	}
	return lines
}

// defenceNames are the defences as the views name them.
var defenceNames = map[string]string{"none": "no defence", "ifc": "IFC (provenance)", "memlineage": "MemLineage gate", "authselect": "AuthSelect", "smsr": "SMSR"}

// defenceVerdicts is the action's verdict under each defence: all five once
// the replay has computed them, else the MemLineage gate alone.
func (m *Model) defenceVerdicts(g lineage.GateResult) []string {
	s := m.styles
	word := func(d string) string {
		switch d {
		case "allow", "accept":
			return s.Good.Render(strings.ToUpper(d))
		case "not checked":
			return s.Dim.Render(d)
		}
		return s.Error.Render(strings.ToUpper(d))
	}
	for _, row := range m.src.ActionVerdicts() {
		if row.Action != g.Action {
			continue
		}
		// Every defence's decision, from package defences (after verify).
		var out []string
		if row.Headline {
			out = append(out, s.Error.Render(m.authWords("    HEADLINE: IFC passes it, yet only unauthenticated structure brought its justification in")))
		}
		for _, d := range defences.Names {
			v := row.Verdicts[d]
			w := s.Good.Render(strings.ToUpper(v.Decision))
			switch v.Decision {
			case defences.Allow, defences.Accept:
			case defences.NotChecked:
				w = s.Dim.Render(strings.ToUpper(v.Decision))
			default:
				w = s.Error.Render(strings.ToUpper(v.Decision))
			}
			name := defenceNames[d]
			if name == "" {
				name = d
			}
			out = append(out, "    "+padRight(name, 18)+w+"  "+s.Dim.Render(m.untrusted(v.Reason, 1<<20)))
		}
		return out
	}
	return []string{"    " + padRight("MemLineage gate", 18) + word(g.Verdict.String()) + s.Dim.Render(fmt.Sprintf("  (recomputed from the lineage at tau %.2f; every defence once verification has finished)", m.tau))}
}

func (m *Model) replaySelected() string {
	r := &m.rep
	if r.open {
		if e, ok := r.selectedEdge(); ok {
			return e.ID
		}
	}
	if row, ok := r.selectedRow(); ok {
		return row.QueryID
	}
	return ""
}

// replayPreview is the selected query in full (list mode).
func (m *Model) replayPreview() []string {
	r := &m.rep
	row, ok := r.selectedRow()
	if !ok || r.open {
		return nil
	}
	s := m.styles
	out := []string{"query: " + m.untrusted(row.QueryID, 1<<20) + "  " + m.classWord(row.Class) + m.coverageMark("queries", row.QueryID)}
	if l := m.coverage("queries", row.QueryID); l != "" {
		out = append(out, s.Warning.Render("  this query row: "+l+"; its text, reset vector, scores and recorded selection are claims"))
	}
	out = append(out, m.wrapUntrusted("text: ", r.rv.Texts[row.QueryID])...)
	out = append(out, "G: "+sanitize.Line(strings.Join(row.G.IDs(), " ")), "G_auth: "+sanitize.Line(strings.Join(row.GAuth.IDs(), " ")))
	if row.Culprits != nil {
		out = append(out, fmt.Sprintf("culprits: %d", len(row.Culprits.Set)))
	}
	if acts := r.rv.Followed[row.QueryID]; len(acts) > 0 {
		out = append(out, "followed by: "+sanitize.Line(strings.Join(acts, ", ")))
	}
	return append(out, s.Dim.Render(m.keys.Open.Help().Key+" opens the story: tables, injected passage, culprits, action, what-if"))
}

// removedCount is the size of the global what-if set.
func (r *replayState) removedCount() int {
	n := 0
	for _, v := range r.removed {
		if v {
			n++
		}
	}
	return n
}

// storyQuery picks the query the presenter tells: the first divergent
// IFC-blind query with culprits (else the first divergent one).
func storyQuery(rv ReplayView) string {
	best := ""
	for _, r := range rv.Rows {
		if r.Class != diff.Diverge {
			continue
		}
		if r.IFCBlind && r.Culprits != nil && len(r.Culprits.Set) > 0 {
			return r.QueryID
		}
		if best == "" {
			best = r.QueryID
		}
	}
	return best
}

// nodeCoverage names the selected nodes (on G or G_auth) whose declaration
// no verified signature covers, with verify's label; nothing when every
// one is covered, so the tables stay as they are on a signed store.
func (m *Model) nodeCoverage(row replay.Row) []string {
	var marked []string
	seen := map[string]bool{}
	for _, sel := range []replay.Selection{row.G, row.GAuth} {
		for _, it := range sel.Items {
			if seen[it.NodeID] {
				continue
			}
			seen[it.NodeID] = true
			if l := m.coverage("nodes", it.NodeID); l != "" {
				marked = append(marked, sanitize.Line(it.NodeID)+" ["+l+"]")
			}
		}
	}
	if len(marked) == 0 {
		return nil
	}
	return []string{m.styles.Warning.Render("nodes whose declaration is a claim: " + strings.Join(marked, ", "))}
}
