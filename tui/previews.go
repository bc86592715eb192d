package tui

import (
	tea "charm.land/bubbletea/v2"
)

// previewsMsg says a ReadPreviews command finished.
type previewsMsg struct{ err error }

// readPreviews is the command that reads the content previews of the
// Entries rows in view that a PreviewSource has not read yet; nil when
// there are none, or a read is already out. The rows show "reading..."
// until it finishes, so no key waits on the disk.
func (m *Model) readPreviews() tea.Cmd {
	ps, ok := m.src.(PreviewSource)
	if !ok || m.view != ViewEntries || m.ent.previewsLoading || m.showHelp {
		return nil
	}
	e := &m.ent
	var want []int
	for p, n := e.cur.top, e.len(); p < e.cur.top+m.bodyHeight() && p < n; p++ {
		if i := e.at(p); m.src.Entry(i).PreviewPending {
			want = append(want, i)
		}
	}
	if len(want) == 0 {
		return nil
	}
	e.previewsLoading = true
	ctx := m.ctx
	return func() tea.Msg {
		for _, i := range want {
			// One call per row: the source reads each row's whole
			// window once, and later rows of that window are then in.
			if err := ps.ReadPreviews(ctx, i, i+1); err != nil {
				return previewsMsg{err: err}
			}
		}
		return previewsMsg{}
	}
}
