package tuisource

// The Lineage view of a native store: what the store's own fields declare
// about where each write came from, drawn as a tree and captioned as the
// store's claim (unsigned). Mem0: the memory's version chain (ADD, UPDATE,
// DELETE, by the claimed actor), a DELETE drawn as a deletion. Graph
// stores: the node's edges with the passages named as their sources, and,
// for a passage, the edges elsewhere it is named a source of
// (stores/storelineage). SMSR and Mem0 messages: why there is nothing.

import (
	"fmt"
	"strings"

	"github.com/memscope/memscope/internal/analyses/storelineage"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/tui"
)

// Bounds on one drawing (the entry's detail lists everything).
const (
	maxDrawnWrites  = 40
	maxDrawnSources = 6
)

// treeGlyphs draw the declared tree; plain mode uses ASCII.
type treeGlyphs struct{ focus, node, deleted, tee, last, pipe, space string }

var (
	boxTree   = treeGlyphs{focus: "◉", node: "●", deleted: "✖", tee: "├─", last: "└─", pipe: "│ ", space: "  "}
	asciiTree = treeGlyphs{focus: "@", node: "*", deleted: "x", tee: "+-", last: "`-", pipe: "| ", space: "  "}
)

// treeRows collects drawn rows and the entry each one stands for.
type treeRows struct {
	rows, ids []string
}

func (t *treeRows) add(id, row string) {
	t.rows = append(t.rows, row)
	t.ids = append(t.ids, id)
}

// short keeps more of a native store's id than idform.Short: their ids are
// words (entity names, chunk hashes) rather than UUIDv7s.
func short(id string) string {
	return idform.Shorten(sanitize.Line(id), 14, 6, idform.Ellipsis)
}

func text(s string, n int) string { return sanitize.Line(assemble.Preview(s, n)) }

func (n *Native) glyphs() treeGlyphs {
	if n.plain {
		return asciiTree
	}
	return boxTree
}

// declaredLineage is the Lineage view for entry id.
func (n *Native) declaredLineage(id string, tau float64) (tui.LineageView, error) {
	lv := tui.LineageView{ID: id, Tau: tau}
	switch {
	case n.rp != nil:
		return n.graphLineage(lv)
	case n.holds(storemodel.HoldsHistory):
		return n.mem0Lineage(lv)
	}
	lv.Declared = "nothing to draw: " + storemodel.Unsigned
	lv.Notes = []string{"SMSR keeps each memory as one row of memories(id, content, session_id, timestamp, hmac_tag, embedding): no column names an earlier version, a parent or a source, and rows are never updated in place, so the store declares no lineage. The entry's detail has the row and its tag check."}
	return lv, nil
}

func (n *Native) mem0Lineage(lv tui.LineageView) (tui.LineageView, error) {
	i, ok := n.index[lv.ID]
	if !ok {
		return lv, fmt.Errorf("no entry \"%s\"", lv.ID)
	}
	if i >= len(n.st.Versions) {
		lv.Declared = "nothing to draw: " + storemodel.Unsigned
		lv.Notes = []string{"a row of Mem0's messages table is not versioned: Mem0 keeps only the most recent messages of each scope as the context of the next add() (get_last_messages), with no history; memories' versions are in the history table (select a history event)."}
		return lv, nil
	}
	mem := n.st.Versions[i].MemoryID
	c := n.chains[mem]
	state := "live"
	if c.Deleted {
		state = "DELETED"
	}
	lv.Declared = fmt.Sprintf("memory %s: its version chain in Mem0's history table (%d event(s), %s), oldest first; actor and role are the store's claims; %s",
		short(mem), len(c.Versions), state, storemodel.Unsigned)
	g := n.glyphs()
	var t treeRows
	for j, v := range c.Versions {
		mark, body := g.node, text(v.New, 100)
		if v.Event == "DELETE" {
			mark, body = g.deleted, "DELETED, was: "+text(v.Old, 90)
		}
		if v.ID == lv.ID {
			mark = g.focus
			if v.Event == "DELETE" {
				mark = g.focus + g.deleted
			}
		}
		when := v.UpdatedAt
		if when == "" {
			when = v.CreatedAt
		}
		t.add(v.ID, fmt.Sprintf("%s %-6s %s by %s  %s", mark, sanitize.Line(v.Event), sanitize.Line(orDash(when, "")), sanitize.Line(claimedBy(v.Actor, v.Role)), body))
		if j < len(c.Versions)-1 {
			t.add("", strings.TrimRight(g.pipe, " "))
		}
	}
	lv.Rows, lv.RowIDs = t.rows, t.ids
	lv.Center = centre(t.ids, lv.ID)
	for _, f := range n.found {
		if f.Subject == "memory "+mem {
			lv.Notes = append(lv.Notes, string(f.Code)+": "+f.Message)
		}
	}
	lv.Notes = append(lv.Notes, "legend: "+g.node+" a version  "+g.deleted+" a deletion (DELETE)  "+g.focus+" the selected event; enter re-centres, → opens the detail")
	return lv, nil
}

func (n *Native) graphLineage(lv tui.LineageView) (tui.LineageView, error) {
	p, ok := n.prov.Node(lv.ID)
	if !ok {
		return lv, fmt.Errorf("no node \"%s\"", lv.ID)
	}
	g := n.glyphs()
	kind := p.Node.Kind
	if kind == storemodel.KindPassage && p.Node.Listed {
		kind += ", listed by the store"
	}
	lv.Declared = fmt.Sprintf("%s %s: its edges with the passages the store names as their sources (%s)", p.Node.Kind, short(p.Node.ID), storemodel.Unsigned)
	var t treeRows
	t.add(p.Node.ID, fmt.Sprintf("%s [%s] %s  %s", g.focus, kind, text(p.Node.Label, 80), short(p.Node.ID)))
	noSrc := 0
	groups := [][]storelineage.Write{p.Touching}
	if len(p.Sourced) > 0 {
		groups = append(groups, p.Sourced)
	}
	for gi, ws := range groups {
		lastGroup := gi == len(groups)-1
		indent := ""
		if gi == 1 {
			// The edges elsewhere that name this passage as a source.
			t.add("", fmt.Sprintf("%s names it as a source of %d edge(s) elsewhere", g.last, len(ws)))
			indent = g.space
		}
		shown := min(len(ws), maxDrawnWrites)
		for wi := 0; wi < shown; wi++ {
			w := ws[wi]
			if w.NoSource() {
				noSrc++
			}
			lastW := wi == shown-1 && len(ws) == shown && (lastGroup || gi == 1)
			br, cont := g.tee, g.pipe
			if lastW {
				br, cont = g.last, g.space
			}
			t.add(rowTarget(w), indent+br+n.writeRow(w, g))
			if w.NoSource() {
				continue
			}
			srcs := w.Edge.Sources
			k := min(len(srcs), maxDrawnSources)
			for si := 0; si < k; si++ {
				sb := g.tee
				if si == k-1 && len(srcs) == k {
					sb = g.last
				}
				s := srcs[si]
				what := text(n.prov.Label(s), 70)
				if s == p.Node.ID {
					what = "(this passage)"
				}
				t.add(s, indent+cont+sb+" source "+short(s)+"  "+what)
			}
			if len(srcs) > k {
				t.add("", fmt.Sprintf("%s%s%s +%d more source(s) (the detail lists all)", indent, cont, g.last, len(srcs)-k))
			}
		}
		if len(ws) > shown {
			t.add("", fmt.Sprintf("%s%s +%d more edge(s) (the detail lists all)", indent, g.last, len(ws)-shown))
		}
	}
	lv.Rows, lv.RowIDs, lv.Center = t.rows, t.ids, 0
	if len(p.Touching) == 0 && len(p.Sourced) == 0 {
		lv.Notes = append(lv.Notes, "no edge touches this node and no edge names it as a source: the store declares nothing about it beyond its own record")
	}
	if noSrc > 0 {
		lv.Notes = append(lv.Notes, fmt.Sprintf("%d edge(s) here name no source: no-source writes, which nothing in the store explains (they leave G_auth in replay)", noSrc))
	}
	lv.Notes = append(lv.Notes, "legend: "+g.focus+" this node  "+g.node+" an edge with its declared sources  "+g.deleted+" NO SOURCE: an edge the store's fields do not explain; enter re-centres on the row's node, → opens its detail")
	return lv, nil
}

// writeRow is one edge: kind, weight, where it leads.
func (n *Native) writeRow(w storelineage.Write, g treeGlyphs) string {
	e := w.Edge
	mark, src := g.node, fmt.Sprintf("%d source(s)", len(e.Sources))
	if w.NoSource() {
		mark, src = g.deleted, "NO SOURCE (a no-source write)"
	}
	to := ""
	if w.Other != "" {
		to = " to " + short(w.Other) + "  " + text(n.prov.Label(w.Other), 50)
	} else {
		to = " " + text(n.prov.Label(e.Src), 30) + " -- " + text(n.prov.Label(e.Dst), 30)
	}
	return fmt.Sprintf("%s %s, weight %g, %s%s", mark, sanitize.Line(e.Kind), e.Weight, src, to)
}

// rowTarget is the entry a write's row re-centres on.
func rowTarget(w storelineage.Write) string {
	if w.Other != "" {
		return w.Other
	}
	return w.Edge.Src
}

func centre(ids []string, id string) int {
	for i, x := range ids {
		if x == id {
			return i
		}
	}
	return 0
}
