package graphfile

import (
	"maps"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
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
//
// It also re-checks the per-row rules the readers apply, so that a Graph
// built in Go rather than read from files cannot produce records the strict
// decoder would reject.
func (g *Graph) Validate() error {
	kind := make(map[string]string, len(g.Nodes))
	for _, n := range g.Nodes {
		at := loc{g.NodesFile, n.Line}
		if _, dup := kind[n.ID]; dup {
			return at.errf("id", "node %q appears twice", short(n.ID))
		}
		if r := nameProblem(n.ID); r != "" {
			return at.errf("id", "%q: %s", short(n.ID), r)
		}
		if n.Kind != snapshot.NodePassage && n.Kind != snapshot.NodeEntity {
			return at.errf("kind", "%q: want passage or entity", short(n.Kind))
		}
		if n.Writer != "" {
			if r := principalProblem(n.Writer); r != "" {
				return at.errf("writer", "%q: %s", short(n.Writer), r)
			}
		}
		if len(n.Text) > record.MaxContentBytes || !utf8.ValidString(n.Text) {
			return at.errf("text", "not valid UTF-8 of at most %d bytes", record.MaxContentBytes)
		}
		if n.Trust != nil && *n.Trust > record.External {
			return at.errf("trust", "%d is not a trust label (0..3)", *n.Trust)
		}
		kind[n.ID] = n.Kind
	}
	for _, e := range g.Edges {
		at := loc{g.EdgesFile, e.Line}
		switch e.Kind {
		case record.KindEdge, record.KindMerge, record.KindRelation:
		default:
			return at.errf("kind", "%q: want edge, merge or relation", short(e.Kind))
		}
		if !(e.Weight >= 0) || math.IsInf(e.Weight, 0) {
			return at.errf("weight", "%v is not a finite non-negative weight", e.Weight)
		}
		if e.Rel != "" {
			if r := nameProblem(e.Rel); r != "" {
				return at.errf("rel", "%q: %s", short(e.Rel), r)
			}
		}
		if e.Writer != "" {
			if r := principalProblem(e.Writer); r != "" {
				return at.errf("writer", "%q: %s", short(e.Writer), r)
			}
		}
		switch e.Declared {
		case "", LabelAuthenticated, LabelUnauthenticated:
		default:
			return at.errf("declared", "%q: want authenticated, unauthenticated or empty", short(e.Declared))
		}
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
		for _, id := range slices.Sorted(maps.Keys(q.Reset)) {
			if _, ok := kind[id]; !ok {
				return at.errf("reset", "node %q is not in %s", short(id), g.NodesFile)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(q.Dense)) {
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
