package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// TimelineSource is a Source that can show the store over time. Optional:
// without it the Timeline view says so.
type TimelineSource interface {
	// Timeline is the snapshot's ordered event stream (log order where
	// there is one, recorded time otherwise). Slow.
	Timeline(ctx context.Context) (*timeline.Timeline, error)
	// DivergingAt replays every stored query on G and G_auth as they stood
	// before event cut and returns the queries whose selections differ
	// then. Slow (two PPR solves per query).
	DivergingAt(ctx context.Context, cut int) ([]string, error)
}

// timelineState is the Timeline view: the event list is the scrubber, the
// moment is "right after the selected event".
type timelineState struct {
	loading bool
	err     error
	tl      *timeline.Timeline
	cur     listCursor
	// The queries diverging at the selected moment, fetched in the
	// background; gen drops results for a moment the user has left.
	gen       int
	divAt     int // cut the diverging list is for (-1: none yet)
	div       []string
	divErr    error
	divBusy   bool
	divWanted int
	// want is the event a jump asked for, selected when the timeline
	// arrives.
	want *eventRef
}

type (
	timelineMsg struct {
		tl  *timeline.Timeline
		err error
	}
	divergingMsg struct {
		gen, cut int
		ids      []string
		err      error
	}
)

func (m *Model) activateTimeline() tea.Cmd {
	ts, ok := m.src.(TimelineSource)
	if !ok || m.tl.tl != nil || m.tl.loading || m.tl.err != nil {
		return nil
	}
	m.tl.loading, m.tl.divAt = true, -1
	ctx := m.ctx
	return tea.Batch(func() tea.Msg {
		tl, err := ts.Timeline(ctx)
		return timelineMsg{tl: tl, err: err}
	}, m.startTick())
}

// onTimelineMsg handles the view's background results.
func (m *Model) onTimelineMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case timelineMsg:
		m.tl.loading, m.tl.tl, m.tl.err = false, msg.tl, msg.err
		m.selectWantedEvent()
		return m.fetchDiverging()
	case divergingMsg:
		if msg.gen != m.tl.gen {
			return nil
		}
		m.tl.divBusy = false
		m.tl.divAt, m.tl.div, m.tl.divErr = msg.cut, msg.ids, msg.err
		if m.tl.divWanted != msg.cut {
			return m.fetchDiverging()
		}
	}
	return nil
}

// fetchDiverging asks for the queries diverging at the selected moment,
// one request at a time: moving fast only replays where the cursor stops.
func (m *Model) fetchDiverging() tea.Cmd {
	ts, ok := m.src.(TimelineSource)
	if !ok || m.tl.tl == nil || len(m.tl.tl.Events) == 0 {
		return nil
	}
	cut := m.tl.cur.sel + 1
	m.tl.divWanted = cut
	if m.tl.divBusy || m.tl.divAt == cut {
		return nil
	}
	m.tl.divBusy = true
	m.tl.gen++
	gen, ctx := m.tl.gen, m.ctx
	return func() tea.Msg {
		ids, err := ts.DivergingAt(ctx, cut)
		return divergingMsg{gen: gen, cut: cut, ids: ids, err: err}
	}
}

func (m *Model) timelineMove(d, h int) {
	if m.tl.tl == nil {
		return
	}
	m.tl.cur.move(d, len(m.tl.tl.Events), max(1, h-4))
}

func (m *Model) renderTimeline(w, h int) []string {
	s := m.styles
	if _, ok := m.src.(TimelineSource); !ok {
		return []string{s.Dim.Render("This source has no timeline.")}
	}
	switch {
	case m.tl.loading:
		return []string{s.Dim.Render("Building the timeline (verifying write labels)...")}
	case m.tl.err != nil:
		return []string{s.Error.Render("timeline: " + m.untrusted(m.tl.err.Error(), w))}
	case m.tl.tl == nil:
		return []string{s.Dim.Render("Timeline not loaded.")}
	}
	tl := m.tl.tl
	n := len(tl.Events)
	if n == 0 {
		return []string{s.Dim.Render("The snapshot holds no events.")}
	}
	m.tl.cur.clamp(n, max(1, h-4))
	sel := m.tl.cur.sel
	st := tl.StateAt(timeline.Cut{Index: sel + 1})
	order := "log position"
	if o := tl.Order(); o != "log" {
		order = "log position; * placed by recorded time (a claim, not in the log)"
	}
	lines := []string{
		s.Title.Render(fmt.Sprintf("Timeline: %d events, ordered by %s", n, order)),
		fit(fmt.Sprintf("As of #%d: %s, %s (%d unauthenticated), %s, %s, %s, %s", sel, plural(st.Entries, "entry", "entries"),
			plural(st.Writes, "write", "writes"), st.UnauthWrites, plural(st.Tombstones, "tombstone", "tombstones"),
			plural(st.Principals, "principal", "principals"), plural(st.Queries, "query", "queries"), plural(st.Actions, "action", "actions")), w),
		fit(m.divergingLine(sel+1), w),
		s.Header.Render(fit(fmt.Sprintf("  %-6s %-6s %-20s %-10s %-16s %s", "#", "LEAF", "TIME (UTC)", "KIND", "PRINCIPAL", "WHAT"), w)),
	}
	m.listTop = headerRows + len(lines)
	rows := max(1, h-len(lines))
	m.tl.cur.clamp(n, rows)
	for i := m.tl.cur.top; i < n && i < m.tl.cur.top+rows; i++ {
		e := tl.Events[i]
		leaf := "-"
		if e.Leaf >= 0 {
			leaf = fmt.Sprint(e.Leaf)
		}
		when := time.Unix(0, e.TS).UTC().Format("2006-01-02 15:04:05")
		if e.Placed == timeline.ByTime {
			when += "*"
		}
		what := m.untrusted(e.Summary, max(10, w-timelineFixedW))
		if e.Authenticated != nil && !*e.Authenticated {
			what = s.Warning.Render("UNAUTH") + " " + what
		}
		line := fmt.Sprintf("%-6d %-6s %-20s %-10s %-16s %s", i, leaf, when, e.Kind, m.untrusted(e.Principal, 16), what)
		if i == sel {
			line = s.Selected.Render(s.SelMarker + " " + stripANSI(line))
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
	}
	return lines
}

// timelineFixedW is the width of a Timeline row before its WHAT column:
// marker, #, LEAF, TIME, KIND and PRINCIPAL with their gaps.
const timelineFixedW = 2 + 7 + 7 + 21 + 11 + 17

func (m *Model) divergingLine(cut int) string {
	s := m.styles
	switch {
	case m.tl.divAt != cut:
		return s.Dim.Render("Queries diverging then: replaying...")
	case m.tl.divErr != nil:
		return s.Error.Render("Queries diverging then: " + m.untrusted(m.tl.divErr.Error(), 60))
	case len(m.tl.div) == 0:
		return "Queries diverging then (G vs G_auth as they stood): none"
	}
	ids := make([]string, len(m.tl.div))
	for i, id := range m.tl.div {
		ids[i] = m.untrusted(id, 40)
	}
	return s.Warning.Render(fmt.Sprintf("Queries diverging then (%d): ", len(ids))) + strings.Join(ids, ", ")
}

func (m *Model) timelinePreview() []string {
	if m.tl.tl == nil || m.tl.cur.sel >= len(m.tl.tl.Events) {
		return nil
	}
	e := m.tl.tl.Events[m.tl.cur.sel]
	out := []string{fmt.Sprintf("#%d  %s  placed by %s", m.tl.cur.sel, e.Kind, e.Placed), "id: " + m.untrusted(e.ID, 1<<20),
		"principal: " + m.untrusted(e.Principal, 1<<20), "what: " + m.untrusted(e.Summary, 1<<20)}
	if e.Leaf >= 0 {
		out = append(out, fmt.Sprintf("leaf: %d", e.Leaf))
	}
	if e.Size > 0 {
		out = append(out, fmt.Sprintf("tree size: %d", e.Size))
	}
	for _, c := range e.Cites {
		out = append(out, "cites: "+m.untrusted(c, 1<<20))
	}
	return append(out, m.relatedFindings(string(e.Kind)+" "+e.ID, e.ID, nil)...)
}

// timelineKey: enter opens the selected event's record where a view
// shows it (an entry's detail, a query's story, an action, the log leaf
// of a write, registry event or tombstone).
func (m *Model) timelineKey(msg tea.KeyPressMsg) tea.Cmd {
	if !key.Matches(msg, m.keys.Open) {
		return m.unused()
	}
	if m.tl.tl == nil || m.tl.cur.sel >= len(m.tl.tl.Events) {
		return nil
	}
	e := m.tl.tl.Events[m.tl.cur.sel]
	switch e.Kind {
	case timeline.KindGate:
		m.setStatus("a gate event is shown only here: the preview has it in full")
		return nil
	case timeline.KindCheckpoint:
		m.push()
		for i, c := range m.src.Checkpoints() {
			if c.Size == e.Size {
				m.selectCheckpoint(i)
				return nil
			}
		}
		m.selectCheckpoint(0)
		return nil
	}
	if e.Leaf < 0 && e.Kind != timeline.KindEntry && e.Kind != timeline.KindQuery && e.Kind != timeline.KindAction {
		m.setStatus("%s %s is not in the log: the preview has all the timeline knows", e.Kind, sanitize.Line(e.ID))
		return nil
	}
	m.push()
	return m.jump(string(e.Kind) + " " + e.ID)
}

func (m *Model) timelineSelected() string {
	if m.tl.tl == nil || m.tl.cur.sel >= len(m.tl.tl.Events) {
		return ""
	}
	return m.tl.tl.Events[m.tl.cur.sel].ID
}
