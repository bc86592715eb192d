package tui

import (
	tea "charm.land/bubbletea/v2"
)

// viewDef is one screen of the inspector. Adding a view is adding a View
// constant before viewCount and one entry to viewDefs: the tab bar, number
// keys, the command bar (":name"), scrolling, the preview pane and copy all
// read this table.
type viewDef struct {
	name string
	// render draws the body at w x h. A list view draws only the visible
	// rows; a document view (move == nil) returns every line and the model
	// scrolls them.
	render func(m *Model, w, h int) []string
	// key handles the view's own keys (nil: none).
	key func(m *Model, msg tea.KeyPressMsg) tea.Cmd
	// move moves the selection of a list view by d rows (h: body height).
	// nil: the view is a document and j/k, pgup/pgdn, g/G scroll it.
	move func(m *Model, d, h int)
	// preview is the selected row in full (nil: no preview pane). Lines
	// may be long: the pane wraps them. Evidence text is already passed
	// through m.untrusted.
	preview func(m *Model) []string
	// selected is the id y copies ("" when nothing is selected).
	selected func(m *Model) string
	// cells are the values of the selection (or of the open document)
	// that c lists to read in full and copy one by one (nil: none).
	cells func(m *Model) []cell
	// activate runs when the view is shown (loads what it needs).
	activate func(m *Model) tea.Cmd
	// follow runs after the selection moved (nil: nothing to fetch).
	follow func(m *Model) tea.Cmd
}

// viewDefs is indexed by View.
var viewDefs [viewCount]viewDef

func init() {
	viewDefs = [viewCount]viewDef{
		ViewOverview: {name: "Overview", render: (*Model).renderOverview, cells: (*Model).overviewCells},
		ViewFindings: {name: "Findings", render: (*Model).renderFindings, key: (*Model).findingsKey,
			move:    func(m *Model, d, h int) { m.fnd.cur.move(d, m.fnd.len(), m.findingsRows(h)) },
			preview: (*Model).findingPreview, selected: (*Model).findingSelected, cells: (*Model).findingCells},
		ViewEntries: {name: "Entries", render: (*Model).renderEntries, key: (*Model).entriesKey,
			move:    func(m *Model, d, h int) { m.ent.cur.move(d, m.ent.len(), h-2) },
			preview: (*Model).entryPreview, selected: (*Model).entrySelected, cells: (*Model).entryCells},
		ViewDetail: {name: "Detail", render: (*Model).renderDetail, activate: (*Model).activateDetail, cells: (*Model).detailCells,
			selected: func(m *Model) string {
				if m.det.d != nil {
					return m.det.d.Row.ID
				}
				return ""
			}},
		ViewLineage: {name: "Lineage", render: (*Model).renderLineage, key: (*Model).lineageKey, activate: (*Model).activateLineage,
			move: func(m *Model, d, h int) {
				if m.lin.lv != nil {
					m.lin.cur.move(d, len(m.lin.lv.Rows), m.lin.dagH)
				}
			},
			preview: (*Model).lineagePreview, selected: (*Model).lineageSelected, cells: (*Model).lineageCells},
		ViewReplay: {name: "Replay", render: (*Model).renderReplay, key: (*Model).replayKey, activate: (*Model).activateReplay,
			move: func(m *Model, d, h int) { m.rep.move(m, d, h) }, preview: (*Model).replayPreview, selected: (*Model).replaySelected, cells: (*Model).replayCells},
		ViewLog: {name: "Log", render: (*Model).renderLog, key: (*Model).logKey,
			move:    func(m *Model, d, h int) { m.logMove(d) },
			preview: (*Model).leafPreview, selected: (*Model).leafSelected, cells: (*Model).logCells},
		ViewActions: {name: "Actions", render: (*Model).renderActions, key: (*Model).actionsKey,
			move:    func(m *Model, d, h int) { m.act.cur.move(d, len(m.act.rows), m.actionsListHeight(h)) },
			preview: (*Model).actionPreview, selected: (*Model).actionSelected, cells: (*Model).actionCells},
		ViewTimeline: {name: "Timeline", render: (*Model).renderTimeline, activate: (*Model).activateTimeline, key: (*Model).timelineKey,
			move:    func(m *Model, d, h int) { m.timelineMove(d, h) },
			preview: (*Model).timelinePreview, selected: (*Model).timelineSelected, follow: (*Model).fetchDiverging, cells: (*Model).timelineCells},
		ViewExposure: {name: "Exposure", render: (*Model).renderExposure, activate: (*Model).activateExposure, key: (*Model).exposureKey},
	}
}
