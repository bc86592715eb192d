package importer

import (
	"github.com/memscope/memscope/snapshot"
)

// Graph is the parsed content of one import, ready to be validated and
// written.
type Graph struct {
	Nodes   []Node
	Edges   []Edge
	Queries []Query
	// File names used in errors (base names are enough).
	NodesFile, EdgesFile, QueriesFile string
}

// Validate checks what no single row can: every edge endpoint is a node,
// every source is a passage named once, every query names known nodes and
// its dense scores and selection name passages.
func (g *Graph) Validate() error {
	kind := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		kind[n.ID] = n.Kind
	}
	for _, e := range g.Edges {
		at := loc{g.EdgesFile, e.Line}
		if _, ok := kind[e.Src]; !ok {
			return at.errf("src", "node %q is not in %s", short(e.Src), g.NodesFile)
		}
		if _, ok := kind[e.Dst]; !ok {
			return at.errf("dst", "node %q is not in %s", short(e.Dst), g.NodesFile)
		}
		seen := map[string]bool{}
		for _, s := range e.Sources {
			k, ok := kind[s]
			switch {
			case !ok:
				return at.errf("sources", "node %q is not in %s", short(s), g.NodesFile)
			case k != snapshot.NodePassage:
				return at.errf("sources", "%q is an entity; sources name the passages (memory entries) the write was derived from", short(s))
			case seen[s]:
				return at.errf("sources", "passage %q is listed twice", short(s))
			}
			seen[s] = true
		}
	}
	for _, q := range g.Queries {
		at := loc{g.QueriesFile, q.Line}
		for _, id := range sortedKeys(q.Reset) {
			if _, ok := kind[id]; !ok {
				return at.errf("reset", "node %q is not in %s", short(id), g.NodesFile)
			}
		}
		for _, id := range sortedKeys(q.Dense) {
			if kind[id] != snapshot.NodePassage {
				return at.errf("dense", "%q is not a passage in %s; dense scores rank passages", short(id), g.NodesFile)
			}
		}
		seen := map[string]bool{}
		for _, id := range q.Selected {
			if kind[id] != snapshot.NodePassage {
				return at.errf("selected", "%q is not a passage in %s; a selection lists passages", short(id), g.NodesFile)
			}
			if seen[id] {
				return at.errf("selected", "passage %q is listed twice", short(id))
			}
			seen[id] = true
		}
	}
	return nil
}
