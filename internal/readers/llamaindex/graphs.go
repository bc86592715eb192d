package llamaindex

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/memscope/memscope/internal/exactjson"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

type lpgNode struct {
	Label      string         `json:"label"`
	Name       *string        `json:"name"`
	Text       *string        `json:"text"`
	Properties map[string]any `json:"properties"`
}

type lpgRelation struct {
	Label      string         `json:"label"`
	SourceID   string         `json:"source_id"`
	TargetID   string         `json:"target_id"`
	Properties map[string]any `json:"properties"`
}

// lpg is LabelledPropertyGraph's persisted JSON (its nodes and relations
// by id, its triplets).
type lpg struct {
	Nodes     map[string]json.RawMessage
	Relations map[string]json.RawMessage
	Triplets  [][]string
}

// members decodes the named members of top that are present; each into
// a map or a slice of strings, which encoding/json reads as json.load
// does (exact keys, the last of a repeat).
func members(top map[string]json.RawMessage, into map[string]any) error {
	for name, v := range into {
		if raw, ok := top[name]; ok {
			if err := json.Unmarshal(raw, v); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
	}
	return nil
}

// propertyGraph reads SimplePropertyGraphStore's graph: text chunks as
// passages, other nodes as entities joined to the chunk their
// triplet_source_id names, each triplet as an edge whose relation's
// triplet_source_id is its source.
func (r *reader) propertyGraph() error {
	var top map[string]json.RawMessage
	ok, err := r.read(lpgFile, "LlamaIndex property graph store (JSON)", &top)
	if err != nil || !ok {
		return err
	}
	var g lpg
	if err := members(top, map[string]any{"nodes": &g.Nodes, "relations": &g.Relations, "triplets": &g.Triplets}); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(r.dir, lpgFile), err)
	}
	nodes := map[string]lpgNode{}
	for _, id := range slices.Sorted(maps.Keys(g.Nodes)) {
		var n lpgNode
		if err := exactjson.Decode(g.Nodes[id], &n); err != nil {
			r.issue(finding.StoreRecordMalformed, lpgFile, "nodes "+id, err.Error())
			continue
		}
		nodes[id] = n
		if n.Label == "text_chunk" && n.Text != nil {
			r.passage(id, *n.Text)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(nodes)) {
		n := nodes[id]
		if n.Label == "text_chunk" && n.Text != nil {
			continue
		}
		label := id
		if n.Name != nil {
			label = *n.Name
		}
		r.entity(id, label)
		if src, ok := n.Properties[sourceKey].(string); ok && r.isPassage(src) {
			r.edge(src, id, storemodel.EdgePassage, []string{src})
		}
	}
	for i, t := range g.Triplets {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if len(t) != 3 {
			r.issue(finding.StoreRecordMalformed, lpgFile, fmt.Sprintf("triplets[%d]", i), "not [subject, relation, object]")
			continue
		}
		raw, ok := g.Relations[t[0]+"_"+t[1]+"_"+t[2]]
		if !ok {
			raw, ok = g.Relations[t[1]] // keyed by label before _get_relation_key
		}
		_, sOK := nodes[t[0]]
		_, oOK := nodes[t[2]]
		if !ok || !sOK || !oOK {
			// get_triplets would raise KeyError on this triplet.
			r.issue(finding.StoreRecordMalformed, lpgFile, fmt.Sprintf("triplets[%d] \"%s\"", i, t[0]+" -"+t[1]+"-> "+t[2]), "its relation or an end node is missing: LabelledPropertyGraph.get_triplets fails on it")
			continue
		}
		var rel lpgRelation
		if err := exactjson.Decode(raw, &rel); err != nil {
			r.issue(finding.StoreRecordMalformed, lpgFile, "relation "+t[0]+"_"+t[1]+"_"+t[2], err.Error())
			continue
		}
		var sources []string
		if src, ok := rel.Properties[sourceKey].(string); ok && r.isPassage(src) {
			sources = []string{src}
		} else {
			r.issue(finding.StoreEdgeUnexplained, lpgFile, fmt.Sprintf("relation \"%s\"", t[0]+" -"+t[1]+"-> "+t[2]), "no triplet_source_id naming a text chunk of the store")
		}
		if t[0] != t[2] {
			r.edge(t[0], t[2], storemodel.EdgeRelation, sources)
		}
	}
	r.st.Notes = append(r.st.Notes, fmt.Sprintf("property graph: %d nodes, %d relations, %d triplets", len(g.Nodes), len(g.Relations), len(g.Triplets)))
	return nil
}

func (r *reader) isPassage(id string) bool {
	i, ok := r.nodeAt[id]
	return ok && r.st.Nodes[i].Kind == storemodel.KindPassage
}

// kgGraph reads SimpleGraphStore's graph_dict (a KnowledgeGraphIndex's
// triplets). Entities are joined to the chunks the KG index's table files
// under them; a triplet's sources are the chunks filed under both ends.
func (r *reader) kgGraph() error {
	var top map[string]json.RawMessage
	ok, err := r.read(kgFile, "LlamaIndex graph store (JSON)", &top)
	if err != nil || !ok {
		return err
	}
	var g struct{ GraphDict map[string][][]string }
	if err := members(top, map[string]any{"graph_dict": &g.GraphDict}); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(r.dir, kgFile), err)
	}
	triples := 0
	for _, subj := range slices.Sorted(maps.Keys(g.GraphDict)) {
		r.entity(subj, subj)
		for i, ro := range g.GraphDict[subj] {
			if len(ro) != 2 {
				r.issue(finding.StoreRecordMalformed, kgFile, fmt.Sprintf("graph_dict \"%s\" [%d]", subj, i), "not [relation, object]")
				continue
			}
			triples++
			r.entity(ro[1], ro[1])
			var sources []string
			for _, c := range r.kgKeys[subj] {
				if contains(r.kgKeys[ro[1]], c) && r.isPassage(c) && !contains(sources, c) {
					sources = append(sources, c)
				}
			}
			if len(sources) == 0 {
				r.issue(finding.StoreEdgeUnexplained, kgFile, fmt.Sprintf("triplet \"%s\"", subj+" -"+ro[0]+"-> "+ro[1]), "the KG index files no docstore chunk under both its subject and its object")
			}
			if subj != ro[1] {
				r.edge(subj, ro[1], storemodel.EdgeFact, sources)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.kgKeys)) {
		if i, ok := r.nodeAt[k]; !ok || r.st.Nodes[i].Kind != storemodel.KindEntity {
			continue
		}
		for _, c := range r.kgKeys[k] {
			if r.isPassage(c) {
				r.edge(c, k, storemodel.EdgePassage, []string{c})
			}
		}
	}
	if triples > 0 {
		r.st.Notes = append(r.st.Notes, fmt.Sprintf("knowledge graph: %d subjects, %d triplets", len(g.GraphDict), triples))
	}
	return nil
}
