package dagdraw

import "github.com/memscope/memscope/lineage"

// FromNeighbourhood maps a lineage neighbourhood onto a drawable graph.
// label gives each node's text (the caller sanitises entry content); nil
// uses the last 8 characters of the id (a UUIDv7 begins with its timestamp,
// so its head repeats across entries written close together) and the writer
// class.
func FromNeighbourhood(nb lineage.Neighbourhood, label func(lineage.SubNode) string) Graph {
	if label == nil {
		label = func(n lineage.SubNode) string {
			id := n.ID
			if len(id) > 8 {
				id = id[len(id)-8:]
			}
			return id + " " + n.Writer.String()
		}
	}
	g := Graph{Nodes: make([]Node, len(nb.Nodes)), Edges: make([]Edge, len(nb.Edges))}
	for i, n := range nb.Nodes {
		g.Nodes[i] = Node{ID: n.ID, Label: label(n), Trust: n.Label.Short(), ElidedParents: n.HiddenParents, Focus: i == nb.Center}
	}
	for i, e := range nb.Edges {
		g.Edges[i] = Edge{Parent: e.Parent, Child: e.Child, Weight: e.Weight, Strong: e.Strong}
	}
	return g
}
