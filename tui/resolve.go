package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// idTarget is one id some view prints and the jump that opens it.
type idTarget struct {
	id      string
	subject string // what jump opens: "entry" ids bare, else "kind id" or "leaf N"
	note    string // said in the status line after the jump ("" none)
}

// leafSubject is the jump that opens a leaf's record: queries, actions and
// gate events where their views list them, every other kind on its leaf.
func leafSubject(lf LeafRow) string {
	switch lf.Kind {
	case LeafEntry:
		return lf.Subject
	case LeafQuery:
		return "query " + lf.Subject
	case LeafAction:
		return "action " + lf.Subject
	case LeafGate:
		return "gate " + lf.Subject
	}
	return fmt.Sprintf("leaf %d", lf.Index)
}

// resolveID finds, in the background, the one record whose id form is
// text among every id a view prints: entries, every log leaf's record
// (writes, principals, tombstones, gate events...), the timeline's events
// and the culprit writes the stories list (a write with no leaf opens the
// story that names it). Entries come first, so an entry's own leaf does
// not make its id ambiguous.
func (m *Model) resolveID(text string) tea.Cmd {
	src := m.src
	var culprits []idTarget
	if m.rep.rv != nil {
		for _, r := range m.rep.rv.Rows {
			if r.Culprits == nil {
				continue
			}
			for _, c := range r.Culprits.Set {
				culprits = append(culprits, idTarget{id: c.EdgeID, subject: "query " + r.QueryID,
					note: fmt.Sprintf("write %s is a culprit of query %s: the story lists it", sanitize.Line(c.EdgeID), sanitize.Line(r.QueryID))})
			}
		}
	}
	var events []idTarget
	if m.tl.tl != nil {
		for _, e := range m.tl.tl.Events {
			if e.ID != "" {
				events = append(events, idTarget{id: e.ID, subject: string(e.Kind) + " " + e.ID})
			}
		}
	}
	return func() tea.Msg {
		targets := map[string]idTarget{}
		var order []string
		add := func(t idTarget) {
			if _, dup := targets[t.id]; !dup && t.id != "" {
				targets[t.id] = t
				order = append(order, t.id)
			}
		}
		for i, n := 0, src.EntryCount(); i < n; i++ {
			id := src.Entry(i).ID
			add(idTarget{id: id, subject: id})
		}
		for i, n := 0, min(src.LeafCount(), maxLeafScan); i < n; i++ {
			lf := src.Leaf(i)
			add(idTarget{id: lf.Subject, subject: leafSubject(lf)})
		}
		for _, t := range events {
			add(t)
		}
		for _, t := range culprits {
			add(t)
		}
		id, err := idform.Resolve(func(yield func(string) bool) {
			for _, id := range order {
				if !yield(id) {
					return
				}
			}
		}, text)
		if err != nil {
			return cmdResolvedMsg{form: text, err: err}
		}
		t := targets[id]
		return cmdResolvedMsg{form: text, id: id, subject: t.subject, note: t.note}
	}
}
