package tui

import (
	"regexp"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// maxLeafScan bounds the leaf search of a jump (one keypress).
const maxLeafScan = 1 << 20

// tileLeaf finds the "(leaf N)" a TILE_MISMATCH message names: the first
// leaf the altered tile covers (tlog.Problem.String).
var tileLeaf = regexp.MustCompile(`\(leaf (\d+)\)`)

// jumpFinding opens what finding f is about, selected. Most findings name
// their subject; a TILE_MISMATCH names a tile path, and its message the
// first leaf under it.
func (m *Model) jumpFinding(f finding.Finding) tea.Cmd {
	if f.Code == finding.TileMismatch {
		if sm := tileLeaf.FindStringSubmatch(f.Message); sm != nil {
			if n, err := strconv.Atoi(sm[1]); err == nil && n < m.src.LeafCount() {
				m.selectLeaf(n)
				m.setStatus("the tile %s: its first leaf, %d (the leaves after it share the tile)", sanitize.Line(f.Subject), n)
				return nil
			}
		}
		m.selectCheckpoint(0)
		m.setStatus("the tile %s: the log's checkpoints and leaves", sanitize.Line(f.Subject))
		return nil
	}
	return m.jump(f.Subject)
}

// leafEvent is the timeline kind of the record a leaf of each kind names.
var leafEvent = map[LeafKind]timeline.Kind{LeafWrite: timeline.KindWrite, LeafRegistry: timeline.KindPrincipal, LeafTombstone: timeline.KindTombstone,
	LeafQuery: timeline.KindQuery, LeafAction: timeline.KindAction, LeafGate: timeline.KindGate}

// jump opens a subject as findings and the command bar name it, with the
// subject selected: an entry (Detail), a leaf or checkpoint (Log), a
// write, principal or tombstone (its log leaf, or its Timeline event when
// it has no leaf), a gate event (Timeline), a query (its story) or an
// action. Table names ("queries", "gate_events ID") from row findings go
// to the view that lists those rows.
func (m *Model) jump(subject string) tea.Cmd {
	word, rest, _ := strings.Cut(subject, " ")
	rest = strings.TrimSpace(rest)
	if v, ok := tableView[word]; ok {
		// A table (TABLE_UNSIGNED) or a table's row (ROW_MALFORMED) the
		// analyses could not read: the view that lists that table.
		if rest != "" {
			if cmd, ok := m.jumpRow(word, rest); ok {
				return cmd
			}
			m.setStatus("%s: this row could not be read, so no view lists it; the finding says all that is known", sanitize.Line(subject))
		}
		return m.switchTo(v)
	}
	switch word {
	case "leaf":
		if n, err := strconv.Atoi(rest); err == nil && n >= 0 && n < m.src.LeafCount() {
			m.selectLeaf(n)
			return nil
		}
	case "checkpoint":
		return m.jumpCheckpoint(rest)
	case "log", "root":
		m.selectCheckpoint(0)
		return nil
	case "query", "entry", "action", "write", "principal", "tombstone", "gate":
		if cmd, ok := m.jumpRow(word, rest); ok {
			return cmd
		}
		if word == "gate" || word == "action" || word == "write" || word == "principal" || word == "tombstone" {
			return m.jumpEvent(eventKind[word], rest)
		}
	case "replay":
		return m.switchTo(ViewReplay)
	case "registry":
		// The registry's anchor is on the Overview; its events are the
		// registry leaves.
		for i := 0; i < m.src.LeafCount() && i < maxLeafScan; i++ {
			if m.src.Leaf(i).Kind == LeafRegistry {
				m.selectLeaf(i)
				m.setStatus("the registry: its first event's leaf (the Overview says whether its root is pinned)")
				return nil
			}
		}
		return m.switchTo(ViewOverview)
	case "node":
		// A signed node declaration (its finding names the node id): the
		// view that lists the nodes table.
		m.setStatus("%s: a graph node's signed declaration (the nodes table)", sanitize.Line(subject))
		return m.switchTo(tableView["nodes"])
	case "config":
		// A meta value's signed configuration record (its finding names
		// the key): the snapshot's Overview.
		m.setStatus("%s: a meta value's signed configuration record (the meta table, Overview)", sanitize.Line(subject))
		return m.switchTo(ViewOverview)
	case "vector":
		m.setStatus("%s: a vector of the store's index, signed by its operator (the exposure view's MWP audit reads them)", sanitize.Line(subject))
		return m.switchTo(ViewOverview)
	case "snapshot", "meta":
		m.setStatus("%s: the snapshot as a whole (Overview)", sanitize.Line(subject))
		return m.switchTo(ViewOverview)
	}
	if _, ok := m.src.EntryIndex(subject); ok {
		return m.openEntryID(subject)
	}
	m.setErr("cannot open \"%s\": not an entry, leaf, checkpoint, write, gate event, query or action", sanitize.Line(subject))
	return nil
}

// tableView is the view that lists each snapshot table's rows, by the
// table names findings use ("entries.session_id" is a column of entries).
var tableView = map[string]View{
	"entries": ViewEntries, "entries.session_id": ViewEntries, "writes": ViewLog, "principals": ViewLog,
	"tombstones": ViewLog, "checkpoints": ViewLog, "queries": ViewReplay, "actions": ViewActions,
	"gate_events": ViewTimeline, "nodes": ViewOverview, "meta": ViewOverview, "vectors": ViewOverview,
}

// tableRow is the singular subject word of a table's rows.
var tableRow = map[string]string{"entries": "entry", "writes": "write", "principals": "principal", "tombstones": "tombstone",
	"queries": "query", "actions": "action", "gate_events": "gate"}

// eventKind is the timeline kind of a subject word.
var eventKind = map[string]timeline.Kind{"write": timeline.KindWrite, "principal": timeline.KindPrincipal,
	"tombstone": timeline.KindTombstone, "gate": timeline.KindGate, "action": timeline.KindAction}

// jumpRow selects record id of a table or subject word where a view lists
// it; ok is false when no view has it at hand (a gate event, or a record
// the log does not hold, is then looked up in the timeline).
func (m *Model) jumpRow(word, id string) (tea.Cmd, bool) {
	if w, ok := tableRow[word]; ok {
		word = w
	}
	switch word {
	case "entry":
		if _, ok := m.src.EntryIndex(id); ok {
			return m.openEntryID(id), true
		}
	case "query":
		for _, q := range m.queryIDs() {
			if q != id {
				continue
			}
			cmd := m.switchTo(ViewReplay)
			m.rep.want = id
			m.rep.sortRows()
			if m.rep.openPending && m.rep.rv != nil {
				m.rep.openPending = false
				return tea.Batch(cmd, m.runWhatIf()), true
			}
			return cmd, true
		}
		if m.rep.rv == nil {
			// The replay is not loaded yet: it opens the query when it is.
			cmd := m.switchTo(ViewReplay)
			m.rep.want = id
			return cmd, true
		}
	case "action":
		for i, r := range m.act.rows {
			if r.Action == id {
				m.view = ViewActions
				m.act.cur.sel = i
				m.moveSel(0)
				return nil, true
			}
		}
	case "write", "principal", "tombstone":
		kind := map[string]LeafKind{"write": LeafWrite, "principal": LeafRegistry, "tombstone": LeafTombstone}[word]
		if n := m.src.LeafCount(); n <= maxLeafScan {
			for i := 0; i < n; i++ {
				if lf := m.src.Leaf(i); lf.Kind == kind && lf.Subject == id {
					m.selectLeaf(i)
					return nil, true
				}
			}
		}
	case "gate":
		if m.tl.tl != nil {
			if _, ok := m.tl.tl.Index(timeline.KindGate, id); ok {
				return m.jumpEvent(timeline.KindGate, id), true
			}
		} else if _, ok := m.src.(TimelineSource); ok {
			return m.jumpEvent(timeline.KindGate, id), true
		}
	}
	return nil, false
}

// jumpCheckpoint selects checkpoint N ("" or "(published)": the latest).
func (m *Model) jumpCheckpoint(rest string) tea.Cmd {
	cps := m.src.Checkpoints()
	if n, err := strconv.Atoi(rest); err == nil {
		for i, c := range cps {
			if c.Index == n {
				m.selectCheckpoint(i)
				return nil
			}
		}
		m.selectCheckpoint(0)
		m.setErr("checkpoint %d is not among the %d the snapshot records", n, len(cps))
		return nil
	}
	m.selectCheckpoint(max(0, len(cps)-1))
	if rest == "(published)" {
		m.setStatus("the published checkpoint is the log's own: its size is the Leaves count; the latest recorded checkpoint is selected")
	}
	return nil
}

// jumpEvent opens the Timeline on event (kind, id). The timeline loads in
// the background: the selection is made when it arrives.
func (m *Model) jumpEvent(kind timeline.Kind, id string) tea.Cmd {
	if _, ok := m.src.(TimelineSource); !ok {
		m.setErr("%s %s is not in the log, and this source has no timeline", kind, sanitize.Line(id))
		return nil
	}
	m.tl.want = &eventRef{kind, id}
	cmd := m.switchTo(ViewTimeline)
	if m.tl.tl != nil {
		m.selectWantedEvent()
		return tea.Batch(cmd, m.fetchDiverging())
	}
	return cmd
}

// eventRef names one timeline event.
type eventRef struct {
	kind timeline.Kind
	id   string
}

// selectWantedEvent moves the Timeline's selection to the event a jump
// asked for, once the timeline is there.
func (m *Model) selectWantedEvent() {
	w := m.tl.want
	if w == nil || m.tl.tl == nil {
		return
	}
	m.tl.want = nil
	if i, ok := m.tl.tl.Index(w.kind, w.id); ok {
		m.tl.cur.sel = i
		m.tl.cur.clamp(len(m.tl.tl.Events), max(1, m.listHeight()-4))
		m.setStatus("%s %s: event #%d (not in the log: placed by its recorded time)", w.kind, sanitize.Line(w.id), i)
		if m.tl.tl.Events[i].Leaf >= 0 {
			m.setStatus("%s %s: event #%d, leaf %d", w.kind, sanitize.Line(w.id), i, m.tl.tl.Events[i].Leaf)
		}
		return
	}
	m.setErr("%s %s is neither in the log nor in the timeline", w.kind, sanitize.Line(w.id))
}
