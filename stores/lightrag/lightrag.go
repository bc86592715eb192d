// Package lightrag reads a LightRAG (HKUDS/LightRAG) working directory
// natively, read-only, into the native-store evidence model.
//
// Files and the upstream code that writes them:
//
//	graph_chunk_entity_relation.graphml  lightrag/kg/networkx_impl.py NetworkXStorage.write_nx_graph
//	                                     (nx.write_graphml of an undirected nx.Graph); node and edge
//	                                     fields from lightrag/operate.py _merge_nodes_then_upsert and
//	                                     _merge_edges_then_upsert, multi-values joined by GRAPH_FIELD_SEP "<SEP>"
//	kv_store_text_chunks.json            lightrag/kg/json_kv_impl.py JsonKVStorage (chunk id -> {content, ...})
//	kv_store_full_docs.json, kv_store_doc_status.json  recorded (digest) but not used
//
// Chunks are passages, graph nodes entities. An edge's sources are its
// source_id chunks; an empty source_id is a no-source write. Entities are
// joined to the chunks their source_id names, so that HippoRAG 2's
// selector can run over the graph as a what-if: LightRAG itself retrieves
// by vector search plus one hop, not PPR.
package lightrag

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/stores/storefile"
	"github.com/memscope/memscope/stores/storemodel"
)

const (
	graphFile  = "graph_chunk_entity_relation.graphml"
	chunksFile = "kv_store_text_chunks.json"
	// Sep is LightRAG's GRAPH_FIELD_SEP.
	Sep = "<SEP>"
)

// Locate returns the working directory (path itself, or the directory of
// the graphml file named).
func Locate(path string) (string, bool) {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if st, err := os.Stat(filepath.Join(dir, graphFile)); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return dir, true
}

// Looks says whether path is a LightRAG working directory.
func Looks(path string) bool {
	_, ok := Locate(path)
	return ok
}

// Open reads the LightRAG working directory at path.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	dir, ok := Locate(path)
	if !ok {
		return nil, fmt.Errorf("%s: no %s here", path, graphFile)
	}
	st := &storemodel.Store{Format: storemodel.LightRAG, Root: dir,
		Notes: []string{"LightRAG retrieves by vector search plus one hop, not PPR: replay here is a what-if of HippoRAG 2's selector over LightRAG's graph"}}
	chunks := map[string]string{}
	cpath := filepath.Join(dir, chunksFile)
	if _, err := os.Stat(cpath); err == nil {
		b, f, err := storefile.ReadAll(ctx, cpath, "text chunks (JSON)", storefile.MaxJSON)
		if err != nil {
			return nil, err
		}
		st.Files = append(st.Files, f)
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", cpath, err)
		}
		for id, r := range raw {
			var c struct {
				Content string `json:"content"`
			}
			if err := json.Unmarshal(r, &c); err != nil {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: cpath, Subject: "chunk " + id, Message: err.Error()})
				continue
			}
			chunks[id] = c.Content
		}
	} else {
		st.Notes = append(st.Notes, chunksFile+" is absent: chunks named by source_id are kept as passages the store does not list, so no edge is sourced")
	}
	for _, name := range []string{"kv_store_full_docs.json", "kv_store_doc_status.json"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			if f, err := storefile.Describe(ctx, p, "recorded, not used"); err == nil {
				st.Files = append(st.Files, f)
			}
		}
	}
	gpath := filepath.Join(dir, graphFile)
	b, f, err := storefile.ReadAll(ctx, gpath, "entity-relation graph (GraphML)", storefile.MaxGraphML)
	if err != nil {
		return nil, err
	}
	st.Files = append(st.Files, f)
	g, err := ParseGraphML(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", gpath, err)
	}
	// Passages: the listed chunks (sorted for a stable node order), then
	// entities in file order.
	ids := make([]string, 0, len(chunks))
	for id := range chunks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	nodes := map[string]bool{}
	for _, id := range ids {
		nodes[id] = true
		st.Nodes = append(st.Nodes, storemodel.Node{ID: id, Kind: storemodel.KindPassage, Label: chunks[id], Listed: true})
	}
	pairs := map[string]bool{}
	for _, n := range g.Nodes {
		if n.ID == "" || nodes[n.ID] {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: gpath, Subject: "node " + n.ID, Message: "empty or repeated id; skipped"})
			continue
		}
		nodes[n.ID] = true
		st.Nodes = append(st.Nodes, storemodel.Node{ID: n.ID, Kind: storemodel.KindEntity, Label: n.ID})
		for _, c := range split(n.Data["source_id"]) {
			if !isChunk(c, chunks) {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: gpath, Subject: "node " + n.ID,
					Message: fmt.Sprintf("source_id names chunk %q, which is not in %s; no join", c, chunksFile)})
				continue
			}
			id := storemodel.PairID(c, n.ID)
			if !pairs[id] {
				pairs[id] = true
				st.Edges = append(st.Edges, storemodel.Edge{ID: id, Src: c, Dst: n.ID, Weight: 1, Parts: 1, Kind: storemodel.EdgePassage, Sources: []string{c}, Expected: 1})
			}
		}
	}
	for i, e := range g.Edges {
		subject := fmt.Sprintf("edge %s -- %s", e.Source, e.Target)
		if !nodes[e.Source] || !nodes[e.Target] {
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: gpath, Subject: subject, Message: "an endpoint is not a node; skipped"})
			continue
		}
		w := 1.0
		if s, ok := e.Data["weight"]; ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || x < 0 || x != x || x > 1e300 {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: gpath, Subject: subject + ", field weight", Message: fmt.Sprintf("%q is not a finite non-negative number; skipped", s)})
				continue
			}
			w = x
		}
		id := storemodel.PairID(e.Source, e.Target)
		if pairs[id] {
			id = fmt.Sprintf("%s#%d", id, i)
		}
		pairs[id] = true
		ed := storemodel.Edge{ID: id, Src: e.Source, Dst: e.Target, Weight: w, Parts: 1, Kind: storemodel.EdgeRelation}
		for _, c := range split(e.Data["source_id"]) {
			if !isChunk(c, chunks) {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: gpath, Subject: subject,
					Message: fmt.Sprintf("source_id names chunk %q, which is not in %s", c, chunksFile)})
			}
			ed.Sources = append(ed.Sources, c)
		}
		if len(ed.Sources) == 0 {
			ed.Kind = storemodel.EdgeUnexplained
			st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreEdgeUnexplained, File: gpath, Subject: subject,
				Message: fmt.Sprintf("weight %g, empty source_id: a no-source write", w)})
		}
		st.Edges = append(st.Edges, ed)
	}
	return st, nil
}

func isChunk(id string, chunks map[string]string) bool {
	_, ok := chunks[id]
	return ok
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, Sep) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
