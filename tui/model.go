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

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/replay"
)

// View names one screen of the inspector (see viewDefs).
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
	ViewTimeline
	ViewExposure
	viewCount
)

func (v View) String() string {
	if v >= 0 && v < viewCount {
		return viewDefs[v].name
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
	// Present opens the replay of the most telling query and steps through
	// the AuthSelect story with one key (memscope demo --present).
	Present bool
}

// tauLadder are the tau values +/- step through: the paper's sweep values.
var tauLadder = []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0}

// Model is the inspector. It is used through tea.Model; all state lives here
// and components are plain render functions over it.
type Model struct {
	shown  bool // the first View has run (Shower told)
	src    Source
	opts   Options
	keys   KeyMap
	styles Styles
	dark   bool
	ov     Overview

	width, height int
	view          View
	showHelp      bool
	helpScroll    int
	glossary      string // the term looked up in help ("" keys, "*" all)
	lookingUp     bool   // help: a glossary word is being typed (after /)
	keyUsed       bool   // set by unused() when a view handler passes
	status        string
	live          liveView // what a store being written reported last (live.go)
	statusIsErr   bool
	spin          int
	ticking       bool

	// Background verification.
	verifying  bool
	progress   Progress
	verifyErr  error
	verifyDone bool
	auditing   bool              // verified; the MWP audit's findings are still to come
	findings   []finding.Finding // static first, then verification's
	cancel     context.CancelFunc
	ctx        context.Context

	// One state for the whole inspector: every view uses this tau.
	tau        float64
	failClosed bool // the label policy: fail-closed (true) or fail-open
	relabeling int  // generation of the latest Relabel

	// Where the user is, per view; a navigation frame is a copy of it.
	viewStates
	// stack holds the places Enter (and :) came from; esc pops.
	stack []navFrame

	// Preview pane: shown beside (wide) or below (narrow) list views.
	pv previewState
	// Command bar (:).
	cmd cmdState
	// The copy-a-cell overlay (c).
	cm copyMenu

	// lastFrame is the screen View drew last; a key compares against it
	// to tell a key that did nothing (keyeffect.go). frameFresh says
	// lastFrame is already the frame of the current state, so View need
	// not draw it again.
	lastFrame  string
	frameFresh bool

	tabHits []hit
	listTop int // screen row of the current view's first list row
	// onPicker, when set, returns to the demo's scenario picker.
	onPicker func() tea.Cmd
}

// viewStates is everything that says where the user is in each view.
type viewStates struct {
	fnd    findingsState
	ent    entriesState
	det    detailState
	lin    lineageState
	rep    replayState
	logv   logState
	act    actionsState
	tl     timelineState
	exp    exposureState
	scroll [viewCount]int // document views' scroll offsets
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
	m.groupFindings()
	m.fnd.rebuild(m.findings)
	m.ent.init(src.EntryCount())
	m.tau = m.ov.Tau
	m.failClosed = m.ov.LabelPolicy == "fail-closed"
	if opts.Tau > 0 && opts.Tau <= 1 {
		m.tau = opts.Tau
	}
	m.pv = previewState{on: true, frac: 0.4}
	m.reloadActions()
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
	if m.opts.Present {
		cmds = append(cmds, m.switchTo(ViewReplay))
	}
	if c := m.startLive(); c != nil {
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...)
}

func (m *Model) startVerify() tea.Cmd {
	m.verifying = true
	return tea.Batch(readProgress(m.src.Verify(m.ctx)), m.startTick())
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
	return m.ent.pending || m.det.loading || m.lin.loading || m.rep.loading || m.rep.wiLoading
}

// tickEvery is how often the spinner turns by itself: quickly while a
// view waits for its data, slowly while only verification runs, whose
// progress reports (two a second) turn it too. Each turn redraws the
// frame, and on a big store under load verification runs for minutes: at
// a million entries drawing was a tenth of the inspector's CPU time beyond
// memscope verify's.
func (m *Model) tickEvery() time.Duration {
	switch {
	case m.busy():
		return 120 * time.Millisecond
	case m.verifying:
		return time.Second
	}
	return 0
}

// Update handles one message. It does no IO: everything slow is a tea.Cmd,
// the content previews of the rows in view included (previews.go).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.frameFresh = false
	_, cmd := m.update(msg)
	if read := m.readPreviews(); read != nil {
		cmd = tea.Batch(cmd, read)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case previewsMsg:
		m.ent.previewsLoading = false
		m.ent.cache = nil
		if msg.err != nil {
			m.setErr("content previews not read: %v", msg.err)
		}
		return m, nil
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
		if d := m.tickEvery(); d > 0 {
			return m, tea.Tick(d, func(time.Time) tea.Msg { return tickMsg{} })
		}
		m.ticking = false
		return m, nil
	case liveMsg:
		return m, m.onLive(msg)
	case verifyMsg:
		return m, m.onVerifyMsg(msg)
	case cmdEntriesMsg:
		if msg.gen == m.cmd.gen && m.cmd.editing {
			m.cmd.entries = msg.ids
		}
		return m, nil
	case cellMsg:
		m.onCellMsg(msg)
		return m, nil
	case relabelMsg:
		return m, m.relabeled(msg)
	case cmdResolvedMsg:
		return m, m.cmdResolved(msg)
	case filterMsg:
		return m, m.ent.apply(msg, m.listHeight()-2)
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
		m.onLineageMsg(msg)
		return m, nil
	case timelineMsg, divergingMsg:
		return m, m.onTimelineMsg(msg)
	case exposureMsg:
		return m, m.onExposureMsg(msg)
	case replayMsg:
		return m, m.onReplayMsg(msg)
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

// onVerifyMsg takes verification's progress; when it finishes, its
// findings replace those known at open time.
func (m *Model) onVerifyMsg(msg verifyMsg) tea.Cmd {
	m.progress = msg.p
	done := msg.p.Finished || msg.p.Verified
	grow := m.growEntries(done)
	if !done {
		m.spin++
		return tea.Batch(readProgress(msg.ch), grow)
	}
	m.verifying, m.verifyDone, m.verifyErr = false, true, msg.p.Err
	m.auditing = !msg.p.Finished
	if m.auditing {
		grow = tea.Batch(readProgress(msg.ch), grow)
	}
	prev := m.findings
	if msg.p.Err == nil {
		// The final list replaces what was known at open time: the
		// analyses report those facts again, and listing both would
		// show one finding twice.
		m.findings = append([]finding.Finding(nil), msg.p.Findings...)
	}
	m.groupFindings()
	m.fnd.rebuildKeeping(prev, m.findings)
	// Verification updates per-row status, checkpoints and labels,
	// and brings every defence's verdict.
	m.ent.cache = nil
	m.reloadActions()
	m.ov = m.src.Overview()
	return grow
}

func (m *Model) onLineageMsg(msg lineageMsg) {
	if msg.gen == m.lin.gen {
		defer func() { m.lin.keepCur = nil }()
		m.lin.loading = false
		m.lin.err = msg.err
		if msg.err == nil {
			lv := msg.lv
			m.lin.lv = &lv
			m.lin.cur = listCursor{sel: lv.Center}
			if m.lin.keepCur != nil {
				m.lin.cur = *m.lin.keepCur
			}
		}
	}
}

// onReplayMsg takes the replay view's rows and opens a pending what-if.
func (m *Model) onReplayMsg(msg replayMsg) tea.Cmd {
	m.rep.loading = false
	m.rep.err = msg.err
	if msg.err == nil {
		rv := msg.rv
		m.rep.rv = &rv
		if m.opts.Present && m.rep.want == "" {
			m.rep.want = storyQuery(rv)
		}
		m.rep.sortRows()
		if m.rep.openPending {
			m.rep.openPending = false
			if m.opts.Present {
				return tea.Batch(m.runWhatIf(), m.storyStep(1))
			}
			return m.runWhatIf()
		}
	}
	return nil
}

func (m *Model) setStatus(f string, a ...any) {
	m.status, m.statusIsErr = fmt.Sprintf(f, a...), false
}

func (m *Model) setErr(f string, a ...any) {
	m.status, m.statusIsErr = fmt.Sprintf(f, a...), true
}

// key handles one key press; a key that changed nothing on screen and said
// nothing gets a status line saying why (keyeffect.go).
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	editing := m.cmd.editing || m.ent.editing || m.fnd.editing
	cmd := m.handleKey(msg)
	if cmd == nil && !editing && m.status == "" && m.lastFrame != "" {
		if frame := m.render(); frame == m.lastFrame {
			m.noEffect(msg)
		} else {
			m.lastFrame, m.frameFresh = frame, true
		}
	}
	return cmd
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	// A text input owns the keyboard while it is open.
	if m.cmd.editing {
		return m.cmdKey(msg)
	}
	if m.view == ViewEntries && m.ent.editing {
		return m.ent.edit(msg, m)
	}
	if m.view == ViewFindings && m.fnd.editing {
		if msg.String() == "ctrl+c" {
			return m.quit() // as in every other text input
		}
		m.fnd.edit(msg, m.findings)
		return nil
	}
	if m.showHelp {
		return m.helpKey(msg)
	}
	if m.cm.open {
		return m.copyMenuKey(msg)
	}
	m.status = ""
	if m.opts.Present && m.view == ViewReplay && (msg.String() == "space" || msg.String() == "enter") {
		return m.storyStep(1)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showHelp, m.helpScroll, m.glossary, m.lookingUp = true, 0, "", false
		return nil
	case key.Matches(msg, k.Command):
		m.cmd.start()
		return nil
	case key.Matches(msg, k.Picker):
		if m.onPicker == nil {
			m.setErr("no scenario picker: it is there under memscope demo")
			return nil
		}
		m.cancel()
		return m.onPicker()
	case key.Matches(msg, k.NextView):
		return m.switchTo((m.view + 1) % viewCount)
	case key.Matches(msg, k.PrevView):
		return m.switchTo((m.view + viewCount - 1) % viewCount)
	case key.Matches(msg, k.Preview):
		m.pv.on = !m.pv.on
		return nil
	case key.Matches(msg, k.PreviewGrow), key.Matches(msg, k.PreviewShrink):
		d := 0.1
		if key.Matches(msg, k.PreviewShrink) {
			d = -0.1
		}
		m.pv.frac = min(0.8, max(0.2, m.pv.frac+d))
		m.pv.on = true
		return nil
	case key.Matches(msg, k.PreviewDown):
		m.pv.scroll++
		return nil
	case key.Matches(msg, k.PreviewUp):
		m.pv.scroll = max(0, m.pv.scroll-1)
		return nil
	case key.Matches(msg, k.TauUp), key.Matches(msg, k.TauDown):
		return m.setTau(stepTau(m.tau, key.Matches(msg, k.TauUp)))
	case key.Matches(msg, k.Policy):
		return m.setPolicy(!m.failClosed)
	case key.Matches(msg, k.Copy):
		return m.copySelected()
	case key.Matches(msg, k.CopyAll):
		return m.copyPreview()
	case key.Matches(msg, k.CopyCell):
		return m.openCopyMenu()
	case key.Matches(msg, k.ExportJSON):
		return m.exportJSON()
	case key.Matches(msg, k.ExportDOT):
		return m.exportDOT()
	}
	for v := View(0); v < viewCount; v++ {
		if key.Matches(msg, k.viewKey(v)) {
			if v == m.view && !m.showHelp {
				m.setStatus("already in the %s view", v)
			}
			return m.switchTo(v)
		}
	}
	if def := viewDefs[m.view]; def.key != nil {
		if cmd, done := m.viewKey(def, msg); done {
			return cmd
		}
	}
	switch {
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
	case key.Matches(msg, k.Back), key.Matches(msg, k.Left):
		return m.back()
	}
	return nil
}

// viewKey gives the view's own handler the key; done reports whether it
// used it (a nil command from a handled key still counts).
func (m *Model) viewKey(def viewDef, msg tea.KeyPressMsg) (tea.Cmd, bool) {
	m.keyUsed = true
	cmd := def.key(m, msg)
	return cmd, m.keyUsed
}

// unused tells viewKey that a view handler did not use the key.
func (m *Model) unused() tea.Cmd {
	m.keyUsed = false
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.cancel()
	return tea.Quit
}

// switchTo changes view and starts whatever the view needs loading.
func (m *Model) switchTo(v View) tea.Cmd {
	m.view = v
	m.cm.open = false
	m.pv.scroll = 0
	if a := viewDefs[v].activate; a != nil {
		return a(m)
	}
	return nil
}

func (m *Model) activateReplay() tea.Cmd {
	if m.rep.rv == nil && !m.rep.loading && m.rep.err == nil {
		m.rep.loading = true
		src, ctx := m.src, m.ctx
		return tea.Batch(func() tea.Msg {
			rv, err := src.Replay(ctx)
			return replayMsg{rv: rv, err: err}
		}, m.startTick())
	}
	return nil
}

func (m *Model) activateDetail() tea.Cmd {
	if m.det.d == nil && !m.det.loading && m.src.EntryCount() > 0 {
		return m.openEntry(m.ent.selectedEntry())
	}
	return nil
}

func (m *Model) activateLineage() tea.Cmd {
	if m.lin.lv == nil && !m.lin.loading && m.src.EntryCount() > 0 {
		i := m.ent.selectedEntry()
		if m.det.d != nil {
			i = m.det.index
		}
		return m.loadLineage(m.src.Entry(i).ID)
	}
	if m.lineageStale() && !m.lin.loading {
		return m.loadLineage(m.lin.id)
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
	m.det.index, m.det.loading, m.det.err, m.det.d = i, true, nil, nil
	m.scroll[ViewDetail] = 0
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
	m.ent.selectEntry(i, m.bodyHeight()-2)
	return m.openEntry(i)
}

func (m *Model) loadLineage(id string) tea.Cmd {
	m.view = ViewLineage
	m.lin.gen++
	m.lin.id, m.lin.loading, m.lin.err, m.lin.policy = id, true, nil, m.ov.LabelPolicy
	gen, src, ctx, tau := m.lin.gen, m.src, m.ctx, m.tau
	return tea.Batch(func() tea.Msg {
		lv, err := src.Lineage(ctx, id, tau)
		return lineageMsg{gen: gen, lv: lv, err: err}
	}, m.startTick())
}

// moveSel moves the current view's selection, or scrolls a document view.
func (m *Model) moveSel(d int) tea.Cmd {
	h := m.listHeight()
	if def := viewDefs[m.view]; def.move != nil {
		def.move(m, d, h)
		m.pv.scroll = 0
		if def.follow != nil {
			return def.follow(m)
		}
		return nil
	}
	m.scroll[m.view] = max(0, min(m.scroll[m.view]+d, 1<<30))
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
	if m.view == ViewLog && !m.showHelp {
		return m.logClick(y)
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
	v := ""
	if sel := viewDefs[m.view].selected; sel != nil {
		v = sel(m)
	}
	if v == "" {
		m.setErr("nothing selected to copy")
		return nil
	}
	// Attacker-controlled ids must not smuggle controls onto the clipboard.
	v = sanitize.Line(v)
	m.setStatus("copied %s", v)
	return tea.SetClipboard(v)
}

// copyPreview copies every cell of the selected row, as the preview pane
// shows it (sanitised, unstyled).
func (m *Model) copyPreview() tea.Cmd {
	pre := viewDefs[m.view].preview
	if pre == nil {
		return m.copySelected()
	}
	lines := pre(m)
	if len(lines) == 0 {
		m.setErr("nothing selected to copy")
		return nil
	}
	text := stripANSI(strings.Join(lines, "\n"))
	m.setStatus("copied the selected row in full (%d lines)", len(lines))
	return tea.SetClipboard(text)
}

// Header rows: tab bar and the breadcrumb/state line; footer: status line
// and key help.
const headerRows, footerRows = 2, 2

// bodyHeight is the height of the view area between header and footer.
func (m *Model) bodyHeight() int { return max(1, m.height-headerRows-footerRows) }

// View renders the whole screen: tab bar, body, status line and key help.
func (m *Model) View() tea.View {
	if !m.shown {
		m.shown = true
		// A Source that loads in the background waits for the first
		// frame, so the two do not compete for it.
		if s, ok := m.src.(Shower); ok {
			s.Shown()
		}
	}
	var v tea.View
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "memscope - " + sanitize.Line(m.ov.Title)
	frame := m.lastFrame
	if !m.frameFresh {
		frame = m.render()
	}
	m.frameFresh = false
	m.lastFrame = frame
	v.SetContent(frame)
	return v
}

func (m *Model) render() string {
	w, h := m.width, m.bodyHeight()
	m.listTop = 0
	var body []string
	if m.showHelp {
		body = m.renderHelp(w, h)
	} else if m.cm.open {
		body = m.renderCopyMenu(w, h)
	} else {
		body = m.renderBody(w, h)
	}
	var b strings.Builder
	b.Grow((w + 16) * (h + 4))
	b.WriteString(fit(m.renderTabs(w), w))
	b.WriteByte('\n')
	b.WriteString(fit(m.renderCrumbs(w), w))
	for i := 0; i < h; i++ {
		b.WriteByte('\n')
		if i < len(body) {
			b.WriteString(fit(body[i], w))
		}
	}
	b.WriteByte('\n')
	if m.cmd.editing {
		b.WriteString(fit(m.renderCmdLine(w), w))
		b.WriteByte('\n')
		b.WriteString(fit(m.renderCompletions(w), w))
	} else {
		b.WriteString(fit(m.renderStatus(w), w))
		b.WriteByte('\n')
		b.WriteString(fit(m.renderShortHelp(w), w))
	}
	if m.styles.Plain {
		return plainText(b.String())
	}
	return b.String()
}

// plainASCII replaces the marks plain mode must not show (cuts, arrows,
// box rules) with ASCII of the same width.
var plainASCII = strings.NewReplacer("…", "~", "→", ">", "←", "<", "↑", "^", "↓", "v", "›", ">", "─", "-", "│", "|", "≠", "!", "•", "*", "▶", ">")

func plainText(s string) string { return plainASCII.Replace(s) }

// fit truncates a styled line to w cells (with the style's ellipsis mark).
func fit(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, ellipsis)
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

// groupFindings asks the Source for the root causes of the findings.
func (m *Model) groupFindings() {
	m.fnd.causes = nil
	if g, ok := m.src.(Grouper); ok {
		m.fnd.causes = g.RootCauses(m.findings)
	}
}
