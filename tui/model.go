// Package tui is memscope's terminal inspector: one Bubble Tea v2 model with
// views for the overview, findings, entries, entry detail, lineage, replay,
// log and actions, plus a scenario picker for the demo. It shows what a
// Source (see data.go) computes and never analyses evidence itself.
package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/sanitize"
)

// View names one screen of the inspector.
type View int

const (
	ViewOverview View = iota
	ViewFindings
	ViewEntries
	ViewDetail
	ViewLineage
	ViewReplay
	ViewLog
	ViewActions
	viewCount
)

var viewNames = [viewCount]string{"Overview", "Findings", "Entries", "Detail", "Lineage", "Replay", "Log", "Actions"}

func (v View) String() string {
	if v >= 0 && v < viewCount {
		return viewNames[v]
	}
	return "?"
}

// Options configures the inspector.
type Options struct {
	Keys    *KeyMap // nil: DefaultKeyMap()
	Plain   bool    // accessible mode: no borders, ASCII markers and spinner
	NoColor bool    // NO_COLOR: bold and reverse only
	// Light starts with light-background styles until the terminal reports
	// its background colour.
	Light bool
	// ExportDir is where e/E write JSON and DOT files ("" = current dir).
	ExportDir string
	// Tau is the initial lineage tau (0: Overview().Tau; +/- reach 0).
	Tau float64
	// NoVerify does not start the background verification (tests).
	NoVerify bool
	// Static turns off spinner animation ticks (tests and goldens).
	Static bool
	// Now stamps export file names (nil: time.Now).
	Now func() time.Time
}

// tauLadder are the tau values +/- step through: the paper's sweep values.
var tauLadder = []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0}

// Model is the inspector. It is used through tea.Model; all state lives here
// and components are plain render functions over it.
type Model struct {
	src    Source
	opts   Options
	keys   KeyMap
	styles Styles
	dark   bool
	ov     Overview

	width, height int
	view          View
	showHelp      bool
	status        string
	statusIsErr   bool
	spin          int
	ticking       bool

	// Background verification.
	verifying  bool
	progress   Progress
	verifyErr  error
	verifyDone bool
	findings   []finding.Finding // static first, then verification's
	cancel     context.CancelFunc
	ctx        context.Context

	fnd     findingsState
	ent     entriesState
	det     detailState
	lin     lineageState
	rep     replayState
	logv    listCursor
	act     actionsState
	tabHits []hit
	listTop int // screen row of the current view's first list row
}

type hit struct{ x0, x1 int }

// listCursor is a selection and scroll offset over n rows.
type listCursor struct{ sel, top int }

func (c *listCursor) move(delta, n, height int) {
	if n <= 0 {
		c.sel, c.top = 0, 0
		return
	}
	c.sel += delta
	c.clamp(n, height)
}

func (c *listCursor) clamp(n, height int) {
	if c.sel >= n {
		c.sel = n - 1
	}
	if c.sel < 0 {
		c.sel = 0
	}
	if height < 1 {
		height = 1
	}
	if c.sel < c.top {
		c.top = c.sel
	}
	if c.sel >= c.top+height {
		c.top = c.sel - height + 1
	}
	if c.top > n-height {
		c.top = max(0, n-height)
	}
	if c.top < 0 {
		c.top = 0
	}
}

// New builds the inspector over src.
func New(src Source, opts Options) tea.Model {
	return newModel(src, opts)
}

func newModel(src Source, opts Options) *Model {
	km := DefaultKeyMap()
	if opts.Keys != nil {
		km = *opts.Keys
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Model{src: src, opts: opts, keys: km, dark: !opts.Light, width: 80, height: 24}
	m.styles = NewStyles(m.dark, opts.NoColor, opts.Plain)
	m.ov = src.Overview()
	m.findings = append([]finding.Finding(nil), src.Findings()...)
	m.fnd.rebuild(m.findings)
	m.ent.init(src.EntryCount())
	m.lin.tau = m.ov.Tau
	if opts.Tau > 0 && opts.Tau <= 1 {
		m.lin.tau = opts.Tau
	}
	m.act.init(src.Actions())
	m.ctx, m.cancel = context.WithCancel(context.Background())
	return m
}

// Async result messages. Each carries a generation so stale results (the
// user moved on) are dropped.
type (
	verifyMsg struct {
		p  Progress
		ch <-chan Progress
	}
	detailMsg struct {
		gen int
		d   EntryDetail
		err error
	}
	lineageMsg struct {
		gen int
		lv  LineageView
		err error
	}
	replayMsg struct {
		rv  ReplayView
		err error
	}
	whatIfMsg struct {
		gen int
		w   replay.WhatIf
		err error
	}
	exportMsg struct {
		path string
		err  error
	}
	tickMsg struct{}
)

// Init asks for the background colour and starts verification.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if !m.opts.NoVerify {
		cmds = append(cmds, m.startVerify())
	}
	return tea.Batch(cmds...)
}

func (m *Model) startVerify() tea.Cmd {
	m.verifying = true
	ch := m.src.Verify(m.ctx)
	return tea.Batch(readProgress(ch), m.startTick())
}

func readProgress(ch <-chan Progress) tea.Cmd {
	return func() tea.Msg {
		p, ok := <-ch
		if !ok {
			return verifyMsg{p: Progress{Finished: true, Err: fmt.Errorf("verification stopped without a result")}}
		}
		return verifyMsg{p: p, ch: ch}
	}
}

func (m *Model) startTick() tea.Cmd {
	if m.ticking || m.opts.Static {
		return nil
	}
	m.ticking = true
	return tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) busy() bool {
	return m.verifying || m.ent.pending || m.det.loading || m.lin.loading || m.rep.loading || m.rep.wiLoading
}

// Update handles one message. It does no IO: everything slow is a tea.Cmd.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.ent.cache = nil
		return m, nil
	case tea.BackgroundColorMsg:
		m.dark = msg.IsDark()
		m.styles = NewStyles(m.dark, m.opts.NoColor, m.opts.Plain)
		m.ent.cache = nil
		return m, nil
	case tickMsg:
		m.spin++
		if m.busy() {
			return m, tea.Tick(120*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
		}
		m.ticking = false
		return m, nil
	case verifyMsg:
		m.progress = msg.p
		grow := m.growEntries(msg.p.Finished)
		if !msg.p.Finished {
			return m, tea.Batch(readProgress(msg.ch), grow)
		}
		m.verifying, m.verifyDone, m.verifyErr = false, true, msg.p.Err
		if msg.p.Err == nil {
			// The final list replaces what was known at open time: the
			// analyses report those facts again, and listing both would
			// show one finding twice.
			m.findings = append([]finding.Finding(nil), msg.p.Findings...)
		}
		m.fnd.rebuild(m.findings)
		// Verification updates per-row status, checkpoints and labels.
		m.ent.cache = nil
		m.ov = m.src.Overview()
		return m, grow
	case filterMsg:
		return m, m.ent.apply(msg, m.bodyHeight()-1)
	case sortMsg:
		return m, m.ent.applySort(msg, m.src)
	case detailMsg:
		if msg.gen == m.det.gen {
			m.det.loading = false
			m.det.err = msg.err
			if msg.err == nil {
				d := msg.d
				m.det.d = &d
			}
		}
		return m, nil
	case lineageMsg:
		if msg.gen == m.lin.gen {
			m.lin.loading = false
			m.lin.err = msg.err
			if msg.err == nil {
				lv := msg.lv
				m.lin.lv = &lv
				m.lin.cur = listCursor{sel: lv.Center}
			}
		}
		return m, nil
	case replayMsg:
		m.rep.loading = false
		m.rep.err = msg.err
		if msg.err == nil {
			rv := msg.rv
			m.rep.rv = &rv
			m.rep.sortRows()
		}
		return m, nil
	case whatIfMsg:
		if msg.gen == m.rep.wiGen {
			m.rep.wiLoading = false
			m.rep.wiErr = msg.err
			if msg.err == nil {
				w := msg.w
				m.rep.wi = &w
			}
		}
		return m, nil
	case exportMsg:
		if msg.err != nil {
			m.setErr("export failed: %v", msg.err)
		} else {
			m.setStatus("exported to %s", msg.path)
		}
		return m, nil
	case tea.MouseWheelMsg:
		d := 3
		if msg.Button == tea.MouseWheelUp {
			d = -3
		} else if msg.Button != tea.MouseWheelDown {
			return m, nil
		}
		return m, m.moveSel(d)
	case tea.MouseClickMsg:
		return m, m.click(msg.X, msg.Y)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) setStatus(f string, a ...any) {
	m.status, m.statusIsErr = fmt.Sprintf(f, a...), false
}

func (m *Model) setErr(f string, a ...any) {
	m.status, m.statusIsErr = fmt.Sprintf(f, a...), true
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	// A text input owns the keyboard while it is open.
	if m.view == ViewEntries && m.ent.editing {
		return m.ent.edit(msg, m)
	}
	if m.view == ViewFindings && m.fnd.editing {
		m.fnd.edit(msg, m.findings)
		return nil
	}
	if m.showHelp {
		if key.Matches(msg, k.Quit) && msg.String() == "ctrl+c" {
			return m.quit()
		}
		m.showHelp = false
		return nil
	}
	m.status = ""
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return nil
	case key.Matches(msg, k.NextView):
		return m.switchTo((m.view + 1) % viewCount)
	case key.Matches(msg, k.PrevView):
		return m.switchTo((m.view + viewCount - 1) % viewCount)
	case key.Matches(msg, k.Overview):
		return m.switchTo(ViewOverview)
	case key.Matches(msg, k.Findings):
		return m.switchTo(ViewFindings)
	case key.Matches(msg, k.Entries):
		return m.switchTo(ViewEntries)
	case key.Matches(msg, k.Detail):
		return m.switchTo(ViewDetail)
	case key.Matches(msg, k.Lineage):
		return m.switchTo(ViewLineage)
	case key.Matches(msg, k.Replay):
		return m.switchTo(ViewReplay)
	case key.Matches(msg, k.Log):
		return m.switchTo(ViewLog)
	case key.Matches(msg, k.Actions):
		return m.switchTo(ViewActions)
	case key.Matches(msg, k.Up):
		return m.moveSel(-1)
	case key.Matches(msg, k.Down):
		return m.moveSel(1)
	case key.Matches(msg, k.PageUp):
		return m.moveSel(-max(1, m.bodyHeight()-2))
	case key.Matches(msg, k.PageDown):
		return m.moveSel(max(1, m.bodyHeight()-2))
	case key.Matches(msg, k.Top):
		return m.moveSel(-1 << 30)
	case key.Matches(msg, k.Bottom):
		return m.moveSel(1 << 30)
	case key.Matches(msg, k.Copy):
		return m.copySelected()
	case key.Matches(msg, k.ExportJSON):
		return m.exportJSON()
	case key.Matches(msg, k.ExportDOT):
		return m.exportDOT()
	}
	switch m.view {
	case ViewFindings:
		return m.findingsKey(msg)
	case ViewEntries:
		return m.entriesKey(msg)
	case ViewLineage:
		return m.lineageKey(msg)
	case ViewReplay:
		return m.replayKey(msg)
	case ViewLog:
		if key.Matches(msg, k.Open) {
			if m.logv.sel < m.src.LeafCount() {
				return m.openEntryID(m.src.Leaf(m.logv.sel).Subject)
			}
		}
	case ViewActions:
		return m.actionsKey(msg)
	case ViewDetail:
		if key.Matches(msg, k.Back) {
			return m.switchTo(ViewEntries)
		}
	}
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.cancel()
	return tea.Quit
}

// switchTo changes view and starts whatever the view needs loading.
func (m *Model) switchTo(v View) tea.Cmd {
	m.view = v
	switch v {
	case ViewReplay:
		if m.rep.rv == nil && !m.rep.loading && m.rep.err == nil {
			m.rep.loading = true
			src, ctx := m.src, m.ctx
			return tea.Batch(func() tea.Msg {
				rv, err := src.Replay(ctx)
				return replayMsg{rv: rv, err: err}
			}, m.startTick())
		}
	case ViewDetail:
		if m.det.d == nil && !m.det.loading && m.src.EntryCount() > 0 {
			return m.openEntry(m.ent.selectedEntry())
		}
	case ViewLineage:
		if m.lin.lv == nil && !m.lin.loading && m.src.EntryCount() > 0 {
			i := m.ent.selectedEntry()
			if m.det.d != nil {
				i = m.det.index
			}
			return m.loadLineage(m.src.Entry(i).ID)
		}
	}
	return nil
}

// openEntry loads entry i's detail and shows it.
func (m *Model) openEntry(i int) tea.Cmd {
	if i < 0 || i >= m.src.EntryCount() {
		return nil
	}
	m.view = ViewDetail
	m.det.gen++
	m.det.index, m.det.loading, m.det.err, m.det.d, m.det.scroll = i, true, nil, nil, 0
	gen, src, ctx := m.det.gen, m.src, m.ctx
	return tea.Batch(func() tea.Msg {
		d, err := src.EntryDetail(ctx, i)
		return detailMsg{gen: gen, d: d, err: err}
	}, m.startTick())
}

func (m *Model) openEntryID(id string) tea.Cmd {
	i, ok := m.src.EntryIndex(id)
	if !ok {
		m.setErr("no entry %s in this store", sanitize.Line(id))
		return nil
	}
	m.ent.selectEntry(i, m.bodyHeight()-1)
	return m.openEntry(i)
}

func (m *Model) loadLineage(id string) tea.Cmd {
	m.view = ViewLineage
	m.lin.gen++
	m.lin.id, m.lin.loading, m.lin.err = id, true, nil
	gen, src, ctx, tau := m.lin.gen, m.src, m.ctx, m.lin.tau
	return tea.Batch(func() tea.Msg {
		lv, err := src.Lineage(ctx, id, tau)
		return lineageMsg{gen: gen, lv: lv, err: err}
	}, m.startTick())
}

// moveSel moves the current view's selection.
func (m *Model) moveSel(d int) tea.Cmd {
	h := m.bodyHeight()
	switch m.view {
	case ViewFindings:
		m.fnd.cur.move(d, len(m.fnd.idx), h-2)
	case ViewEntries:
		m.ent.cur.move(d, m.ent.len(), h-1)
	case ViewDetail:
		m.det.scroll = max(0, m.det.scroll+d)
	case ViewLineage:
		if m.lin.lv != nil {
			m.lin.cur.move(d, len(m.lin.lv.Rows), h)
		}
	case ViewReplay:
		m.rep.move(d, h)
	case ViewLog:
		m.logv.move(d, m.src.LeafCount(), max(1, h-len(m.src.Checkpoints())-4))
	case ViewActions:
		m.act.cur.move(d, len(m.act.rows), max(1, h/2-1))
	case ViewOverview:
	}
	return nil
}

// click handles a mouse click: the tab bar switches views; a list row
// selects that row.
func (m *Model) click(x, y int) tea.Cmd {
	if y == 0 {
		for i, h := range m.tabHits {
			if x >= h.x0 && x < h.x1 {
				return m.switchTo(View(i))
			}
		}
		return nil
	}
	row := y - m.listTop
	if row < 0 || m.listTop == 0 {
		return nil
	}
	switch m.view {
	case ViewFindings:
		return m.moveSel(m.fnd.cur.top + row - m.fnd.cur.sel)
	case ViewEntries:
		return m.moveSel(m.ent.cur.top + row - m.ent.cur.sel)
	case ViewLog:
		return m.moveSel(m.logv.top + row - m.logv.sel)
	case ViewActions:
		return m.moveSel(m.act.cur.top + row - m.act.cur.sel)
	case ViewReplay:
		if !m.rep.open {
			return m.moveSel(m.rep.list.top + row - m.rep.list.sel)
		}
	case ViewLineage:
		return m.moveSel(m.lin.cur.top + row - m.lin.cur.sel)
	}
	return nil
}

func (m *Model) copySelected() tea.Cmd {
	v := m.selectedValue()
	if v == "" {
		m.setErr("nothing selected to copy")
		return nil
	}
	// Attacker-controlled ids must not smuggle controls onto the clipboard.
	v = sanitize.Line(v)
	m.setStatus("copied %s", v)
	return tea.SetClipboard(v)
}

func (m *Model) selectedValue() string {
	switch m.view {
	case ViewFindings:
		if f, ok := m.fnd.selected(m.findings); ok {
			return f.Subject
		}
	case ViewEntries:
		if m.ent.len() > 0 {
			return m.src.Entry(m.ent.selectedEntry()).ID
		}
	case ViewDetail:
		if m.det.d != nil {
			return m.det.d.Row.ID
		}
	case ViewLineage:
		if lv := m.lin.lv; lv != nil && m.lin.cur.sel < len(lv.RowIDs) && lv.RowIDs[m.lin.cur.sel] != "" {
			return lv.RowIDs[m.lin.cur.sel]
		}
		return m.lin.id
	case ViewReplay:
		if e, ok := m.rep.selectedEdge(); ok && m.rep.open {
			return e.ID
		}
		if r, ok := m.rep.selectedRow(); ok {
			return r.QueryID
		}
	case ViewLog:
		if m.logv.sel < m.src.LeafCount() {
			return m.src.Leaf(m.logv.sel).Subject
		}
	case ViewActions:
		if r, ok := m.act.selected(); ok {
			return r.Action
		}
	}
	return ""
}

// bodyHeight is the height of the view area between tab bar and footer.
func (m *Model) bodyHeight() int { return max(1, m.height-3) }

// View renders the whole screen: tab bar, body, status line and key help.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "memscope - " + sanitize.Line(m.ov.Title)
	v.SetContent(m.render())
	return v
}

func (m *Model) render() string {
	w, h := m.width, m.bodyHeight()
	m.listTop = 0
	var body []string
	if m.showHelp {
		body = m.renderHelp(w)
	} else {
		switch m.view {
		case ViewOverview:
			body = m.renderOverview(w, h)
		case ViewFindings:
			body = m.renderFindings(w, h)
		case ViewEntries:
			body = m.renderEntries(w, h)
		case ViewDetail:
			body = m.renderDetail(w, h)
		case ViewLineage:
			body = m.renderLineage(w, h)
		case ViewReplay:
			body = m.renderReplay(w, h)
		case ViewLog:
			body = m.renderLog(w, h)
		case ViewActions:
			body = m.renderActions(w, h)
		}
	}
	var b strings.Builder
	b.Grow((w + 16) * (h + 3))
	b.WriteString(fit(m.renderTabs(w), w))
	for i := 0; i < h; i++ {
		b.WriteByte('\n')
		if i < len(body) {
			b.WriteString(fit(body[i], w))
		}
	}
	b.WriteByte('\n')
	b.WriteString(fit(m.renderStatus(w), w))
	b.WriteByte('\n')
	b.WriteString(fit(m.renderShortHelp(w), w))
	return b.String()
}

// fit truncates a styled line to w cells.
func fit(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// growEntries follows a Source that loads entries in the background: rows
// appear in store order as they arrive. A filter or sort that was active
// while rows arrived is re-run once, when the background work finishes,
// rather than on every progress message.
func (m *Model) growEntries(finished bool) tea.Cmd {
	e := &m.ent
	if n := m.src.EntryCount(); n != e.n {
		e.n = n
		m.ov = m.src.Overview()
		if e.sorted != nil || e.filter != "" {
			e.stale = true
		}
	}
	if !finished || !e.stale {
		return nil
	}
	e.stale = false
	if e.sorted != nil {
		e.gen++
		e.latest.Store(int64(e.gen))
		e.pending = true
		return sortCmd(m.src, e.gen, e.n, e.sortCol, e.desc, e.selectedEntry())
	}
	return e.refilter(m.src)
}
