// Package storereplay replays a native store's graph selection on G and
// G_auth. The store has no signatures, so an edge's label comes from the
// store's own fields alone: a write is kept in G_auth when the store names
// at least one source passage for it and every source is a passage the
// store itself lists. Everything else (synonym edges, edges nothing in the
// store explains) is a no-source write and leaves G_auth. Every label is
// marked declared: nothing here is verified.
package storereplay

import (
	"fmt"
	"runtime/debug"

	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/readers/hipporag"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/replay"
)

// Rules that decide a native store's edge labels.
const (
	RuleSourced      = "sourced by the store's own fields (unsigned)"
	RuleNoSource     = "no-source write"
	RuleSourceUnlist = "source is not a passage the store lists"
	PolicyName       = "store-declared"
)

// Policy labels edges from the sources the store declares.
type Policy struct{ listed map[string]bool }

// Name implements replay.LabelPolicy.
func (Policy) Name() string { return PolicyName }

// Label implements replay.LabelPolicy.
func (p Policy) Label(e replay.Edge) replay.EdgeLabel { return p.LabelProvenance(&e.Prov) }

// LabelProvenance implements replay.ProvenanceLabeler: the label depends
// on the declared sources alone.
func (p Policy) LabelProvenance(prov *replay.Provenance) replay.EdgeLabel {
	if len(prov.Sources) == 0 {
		return replay.EdgeLabel{Rule: RuleNoSource, Failed: []string{RuleNoSource}, Declared: true}
	}
	for _, s := range prov.Sources {
		if !p.listed[s] {
			return replay.EdgeLabel{Rule: RuleSourceUnlist, Failed: []string{RuleSourceUnlist}, Declared: true}
		}
	}
	return replay.EdgeLabel{Authenticated: true, Rule: RuleSourced, Declared: true}
}

// collectAbove is the graph size (nodes and edges) above which
// GraphReleasing collects the store's edges at once.
const collectAbove = 1 << 20

// buildGCPercent paces the collector while GraphReleasing builds a large
// graph (the store's heap plus a quarter before a collection).
const buildGCPercent = 25

// solveGCPercent paces the collector while the queries on a large graph
// are solved (PaceSolves).
const solveGCPercent = 50

// PaceSolves paces the collector for solving queries on g, until restore
// is called. Each group of queries a worker solves together leaves its
// iterates and scores (about 150 MB a worker at a million nodes) as
// garbage; paced at GOGC 100 from a heap that holds the graph, the
// collector would let that garbage take the heap past what opening the
// store took (1M nodes, 5M edges: 1.86 GB peak RSS, 1.72 GB with this).
func PaceSolves(g *replay.Graph) (restore func()) {
	if len(g.Nodes())+g.EdgeCount() <= collectAbove {
		return func() {}
	}
	old := debug.SetGCPercent(solveGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// Writer is the writer every native write is attributed to: the store
// itself (it records no per-write principal).
func Writer(f storemodel.Format) string { return "store:" + string(f) }

// Graph builds the replay graph and the label policy of a store. Passages
// the store lists are the authenticated items (as declared).
func Graph(st *storemodel.Store) (*replay.Graph, Policy, error) {
	return graph(st, false)
}

// GraphReleasing is Graph for a caller that needs nothing of the store's
// edges once the graph has them: each edge is cleared as it is added and
// st.Edges is nil on return, so a store of millions of writes does not
// hold them (over a gigabyte at 5M) beside the graph while its adjacency
// is compiled and the queries are solved.
func GraphReleasing(st *storemodel.Store) (*replay.Graph, Policy, error) {
	return graph(st, true)
}

func graph(st *storemodel.Store, release bool) (*replay.Graph, Policy, error) {
	size := len(st.Nodes) + len(st.Edges)
	if release && size > collectAbove {
		// The graph's columns are built beside the store's edges, whose
		// strings become garbage as each edge is added: a collector
		// paced at GOGC 100 from the store's heap would let that garbage
		// and the columns grow to twice the store before collecting.
		defer debug.SetGCPercent(debug.SetGCPercent(buildGCPercent))
		// What reading the store left is garbage: collected and handed
		// back to the system, so the graph's columns do not come on top
		// of the pages it held (they are large spans, which the freed
		// small ones would not serve).
		debug.FreeOSMemory()
	}
	nodes := make([]replay.Node, len(st.Nodes))
	pol := Policy{listed: map[string]bool{}}
	for i, n := range st.Nodes {
		nodes[i] = replay.Node{ID: n.ID, Kind: n.Kind, Label: n.Label, Authenticated: n.Kind == storemodel.KindPassage && n.Listed}
		if nodes[i].Authenticated {
			pol.listed[n.ID] = true
		}
	}
	// Edges go to the builder one at a time: a []replay.Edge of a
	// million-write store would cost about 176 bytes a write beside the
	// store's own edges and the graph's columns.
	b, err := replay.NewGraphBuilder(nodes, len(st.Edges), replay.DropSelfLoops)
	if err != nil {
		return nil, Policy{}, fmt.Errorf("%s store %s: %w", st.Format, st.Root, err)
	}
	// Edges named by their endpoints keep no id string in the graph.
	b.PairIDs(storemodel.PairSep)
	// One shared true and false: the graph keeps provenance by value, so
	// no per-edge flag is needed.
	yes, no := true, false
	w := Writer(st.Format)
	edge := func(i int) replay.Edge {
		e := &st.Edges[i]
		declared := &no
		if len(e.Sources) > 0 {
			declared = &yes
		}
		return replay.Edge{ID: e.ID, Src: e.Src, Dst: e.Dst, Weight: e.Weight,
			Prov: replay.Provenance{Writer: w, Sources: e.Sources, Declared: declared}}
	}
	var done func(i int)
	if release {
		done = func(i int) { st.Edges[i] = storemodel.Edge{} }
	}
	if err := b.AddEach(len(st.Edges), edge, done); err != nil {
		return nil, Policy{}, fmt.Errorf("%s store %s: %w", st.Format, st.Root, err)
	}
	if release {
		st.Edges = nil
		if size > collectAbove {
			// The edges are garbage now, but the collector's goal was set
			// by a heap that held them: without a collection here the
			// adjacency and the solves would be laid beside them.
			debug.FreeOSMemory()
		}
	}
	g, err := b.Graph()
	if err != nil {
		return nil, Policy{}, fmt.Errorf("%s store %s: %w", st.Format, st.Root, err)
	}
	return g, pol, nil
}

// Queries turns queries read from a --queries file into replay queries,
// checking that every id they name is a node of the store.
func Queries(g *replay.Graph, file string, qs []graphfile.Query) ([]replay.Query, error) {
	out := make([]replay.Query, 0, len(qs))
	for _, q := range qs {
		for id := range q.Reset {
			if _, ok := g.NodeIndex(id); !ok {
				return nil, &graphfile.InputError{File: file, Line: q.Line, Field: "reset", Err: fmt.Errorf("node \"%s\" is not in the store", graphfile.Short(id))}
			}
		}
		for _, id := range q.Selected {
			if _, ok := g.NodeIndex(id); !ok {
				return nil, &graphfile.InputError{File: file, Line: q.Line, Field: "selected", Err: fmt.Errorf("node \"%s\" is not in the store", graphfile.Short(id))}
			}
		}
		for id := range q.Dense {
			if _, ok := g.NodeIndex(id); !ok {
				return nil, &graphfile.InputError{File: file, Line: q.Line, Field: "dense", Err: fmt.Errorf("node \"%s\" is not in the store", graphfile.Short(id))}
			}
		}
		out = append(out, replay.Query{ID: q.ID, Text: q.Text, Reset: q.Reset, K: q.K, Recorded: q.Selected, DenseScores: q.Dense})
	}
	return out, nil
}

// EmbeddedQueries turns HippoRAG 2 query embeddings into replay queries:
// each reset vector is built by r as HippoRAG 2's retrieve() builds it
// (hipporag.NotReproduced says what it leaves out).
func EmbeddedQueries(r *hipporag.Retrieval, file string, qs []hipporag.QueryEmbedding) ([]replay.Query, error) {
	out := make([]replay.Query, 0, len(qs))
	for _, q := range qs {
		reset, _, err := r.Reset(q)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", file, q.Line, err)
		}
		out = append(out, replay.Query{ID: q.ID, Text: q.Text, Reset: reset, K: q.K})
	}
	return out, nil
}
