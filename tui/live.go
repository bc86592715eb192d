package tui

import (
	"context"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/finding"
)

// LiveSource is a Source over a store that may still be written (memscope
// record running beside the inspector). The inspector polls it: what it
// shows stays the store as opened, and the status line says what landed
// since, without a reload.
type LiveSource interface {
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
