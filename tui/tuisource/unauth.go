package tuisource

import (
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/tui"
)

// unauthEdges lists the unauthenticated writes a what-if on row's query can
// toggle: the row's culprits first, then the others, at most 64 in all.
func unauthEdges(r *replay.Replayer, row replay.Row) []tui.UnauthEdge {
	// One edge at a time: the graph holds them by column, and Edges()
	// would build every one of a million.
	seen := map[string]bool{}
	var list []tui.UnauthEdge
	add := func(ei int) {
		e := r.Graph().Edge(ei)
		if seen[e.ID] {
			return
		}
		seen[e.ID] = true
		list = append(list, tui.UnauthEdge{ID: e.ID, Src: e.Src, Dst: e.Dst, Weight: e.Weight, Writer: e.Prov.Writer,
			Rule: r.Label(ei).Rule, NoSource: len(e.Prov.Sources) == 0})
	}
	if c := row.Culprits; c != nil {
		for _, cu := range c.Set {
			if ei, ok := r.Graph().EdgeIndex(cu.EdgeID); ok {
				add(ei)
			}
		}
	}
	for ei := range r.Graph().EdgeCount() {
		if len(list) >= 64 {
			break
		}
		if !r.Authenticated(ei) {
			add(ei)
		}
	}
	return list
}
