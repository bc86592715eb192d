package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// LiveSource is a Source over a store that may still be written (memscope
// record running beside the inspector). The inspector polls it: what it
// shows stays the store as opened, and the status line says what landed
// since, without a reload.
type LiveSource interface {
	// Following says whether the store is being written now (the
	// inspector polls only then).
	Following() bool
	// Live reports the records that landed since the store was opened and
	// the error events a monitor round (memscope watch's) raised on the
	// log since then. It may read the disk: the model calls it from a
	// command, never from the render path.
	Live(ctx context.Context) (Live, error)
}

// Live is what a LiveSource reports.
type Live struct {
	// NewRecords counts rows of the record tables added since open.
	NewRecords int
	// LogSize is the log's size at the last round.
	LogSize uint64
	// Errors are the error events raised since open, oldest first.
	Errors []finding.Finding
}

// livePoll is how often the inspector asks a LiveSource.
const livePoll = 2 * time.Second

type liveMsg struct {
	live Live
	err  error
}

// livePollCmd asks the source after a pause; nil for a source that is not
// live.
func livePollCmd(src Source, wait time.Duration) tea.Cmd {
	ls, ok := src.(LiveSource)
	if !ok {
		return nil
	}
	return tea.Tick(wait, func(time.Time) tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		l, err := ls.Live(ctx)
		return liveMsg{live: l, err: err}
	})
}

// liveStatus is the status-line text for the last live report: "" until a
// record or an error event has landed.
func liveStatus(l Live, err error) string {
	switch {
	case err != nil:
		return "live: " + err.Error()
	case len(l.Errors) > 0:
		last := l.Errors[len(l.Errors)-1]
		return fmt.Sprintf("! %d new error event(s) since open, last %s %s  |  live: +%d records", len(l.Errors), last.Code, last.Subject, l.NewRecords)
	case l.NewRecords > 0:
		return fmt.Sprintf("live: +%d records since open (log size %d); the views show the store as opened", l.NewRecords, l.LogSize)
	}
	return ""
}

// liveView is the model's record of the last live report.
type liveView struct {
	last Live
	err  error
}

// startLive starts polling a source over a store being written.
func (m *Model) startLive() tea.Cmd {
	if ls, ok := m.src.(LiveSource); !ok || !ls.Following() || m.opts.Static {
		return nil
	}
	return livePollCmd(m.src, 0)
}

// onLive keeps the report and asks again after livePoll.
func (m *Model) onLive(msg liveMsg) tea.Cmd {
	m.live = liveView{last: msg.live, err: msg.err}
	return livePollCmd(m.src, livePoll)
}

// liveRight is the status line's live part: a red marker with the count
// of error events, or the count of new records; "" for a store that is not
// being written or has not changed.
func (m *Model) liveRight() string {
	text := liveStatus(m.live.last, m.live.err)
	if text == "" {
		return ""
	}
	if len(m.live.last.Errors) > 0 {
		return m.styles.Error.Render(sanitize.Line(text)) + "  "
	}
	return m.styles.Dim.Render(sanitize.Line(text)) + "  "
}
