// Package storeimport turns a native store read into memory into the
// importer's graph (package graphfile), so `memscope import --from FORMAT`
// can keep a signed copy. It is on the write side: only the import command
// links it. Ids the record format cannot carry (spaces, non-ASCII, over 128
// bytes: LightRAG and GraphRAG entity names) become "n-" + MD5 of the
// original id; the original stays in the node's text.
package storeimport

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"unicode/utf8"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Writer is the principal the imported records name: the store's indexer,
// a tool.
func Writer(f storemodel.Format) string { return "tool:" + string(f) }

// NoSourceWriter is the principal of the writes the store gives no source:
// nothing in the store says who made them.
func NoSourceWriter(f storemodel.Format) string { return "tool:" + string(f) + "-unsourced" }

// IDs maps a store's node ids to import ids.
type IDs map[string]string

// Map returns the import id of a store id.
func (m IDs) Map(id string) string {
	if v, ok := m[id]; ok {
		return v
	}
	return id
}

func importID(id string) string {
	if record.NameProblem(id) == "" {
		return id
	}
	h := md5.Sum([]byte(id))
	return "n-" + hex.EncodeToString(h[:])
}

// Graph converts st. Every write carries a declared label: authenticated
// when the store names sources for it, unauthenticated otherwise.
func Graph(st *storemodel.Store) (*graphfile.Graph, IDs, error) {
	if len(st.Nodes) == 0 {
		return nil, nil, fmt.Errorf("%s stores keep no graph to import", st.Format)
	}
	ids := IDs{}
	seen := map[string]string{}
	g := &graphfile.Graph{NodesFile: st.Root, EdgesFile: st.Root}
	w := Writer(st.Format)
	for i, n := range st.Nodes {
		id := importID(n.ID)
		if prev, dup := seen[id]; dup {
			return nil, nil, fmt.Errorf("%s: nodes %q and %q map to the same import id %s", st.Root, prev, n.ID, id)
		}
		seen[id] = n.ID
		ids[n.ID] = id
		text := n.Label
		if text == "" || id != n.ID && n.Kind == storemodel.KindEntity {
			text = n.ID
		}
		if len(text) > record.MaxContentBytes {
			cut := record.MaxContentBytes
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut]
		}
		node := graphfile.Node{ID: id, Kind: n.Kind, Text: text, Line: i + 1}
		if n.Kind == storemodel.KindPassage {
			node.Writer = w
		}
		g.Nodes = append(g.Nodes, node)
	}
	for i, e := range st.Edges {
		kind := record.KindEdge
		switch e.Kind {
		case storemodel.EdgeSynonym:
			kind = record.KindMerge
		case storemodel.EdgeRelation, storemodel.EdgeFact:
			kind = record.KindRelation
		}
		ed := graphfile.Edge{Src: ids.Map(e.Src), Dst: ids.Map(e.Dst), Weight: e.Weight, Kind: kind, Writer: w, Sources: []string{}, Line: i + 1,
			Declared: graphfile.LabelUnauthenticated}
		if len(e.ID) <= 256 {
			ed.ID = e.ID
		}
		for _, s := range e.Sources {
			ed.Sources = append(ed.Sources, ids.Map(s))
		}
		if len(ed.Sources) > 0 {
			ed.Declared = graphfile.LabelAuthenticated
		} else {
			// A principal of its own, so that the importer registers the
			// store's indexer (which wrote the passages and the sourced
			// writes) on an authenticated channel and only these writes on
			// an unauthenticated one.
			ed.Writer = NoSourceWriter(st.Format)
		}
		g.Edges = append(g.Edges, ed)
	}
	return g, ids, nil
}

// Queries maps the ids of queries read for the store.
func Queries(qs []graphfile.Query, ids IDs) []graphfile.Query {
	out := make([]graphfile.Query, len(qs))
	for i, q := range qs {
		q.Reset = remap(q.Reset, ids)
		q.Dense = remap(q.Dense, ids)
		if q.Selected != nil {
			sel := make([]string, len(q.Selected))
			for j, s := range q.Selected {
				sel[j] = ids.Map(s)
			}
			q.Selected = sel
		}
		out[i] = q
	}
	return out
}

func remap(m map[string]float64, ids IDs) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[ids.Map(k)] = v
	}
	return out
}
