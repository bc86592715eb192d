// Package llamaindex reads a LlamaIndex persist directory (what
// StorageContext.persist writes) natively and read-only, as a graph store.
// Files and the upstream code (run-llama/llama_index, llama-index-core at
// commit 00b56999 unless said) that writes and reads each:
//
//	docstore.json        storage/docstore/simple_docstore.py via
//	                     storage/kvstore/simple_kvstore.py: {"docstore/data":
//	                     {node id: {"__type__", "__data__": node}}, ...}; a
//	                     node's text is __data__.text (0.6 to today)
//	index_store.json     storage/index_store/keyval_index_store.py:
//	                     {"index_store/data": {id: {"__type__", "__data__"}}};
//	                     __data__ is an object in 0.6 (json_to_index_struct took
//	                     a dict) and a JSON string since (index_struct.to_json())
//	property_graph_store.json  graph_stores/simple_labelled.py
//	                     SimplePropertyGraphStore.persist: LabelledPropertyGraph
//	                     {nodes: {id: node}, relations: {key: relation},
//	                     triplets: [[subject id, label, object id]]}; the
//	                     relation key is "<source>_<label>_<target>"
//	                     (types.py _get_relation_key; the label alone before);
//	                     relations and entity nodes keep
//	                     properties.triplet_source_id, the chunk they came from
//	graph_store.json     graph_stores/simple.py SimpleGraphStore: {graph_dict:
//	                     {subject: [[relation, object], ...]}}; the KG index
//	                     (indices/knowledge_graph/base.py _build_index_from_nodes)
//	                     files each chunk under both ends of every triplet it
//	                     yielded: index_struct.add_node([subj, obj], n)
//
// Passages are docstore nodes and property-graph text chunks; entities the
// other graph nodes. A property-graph relation's source is its
// triplet_source_id; a KG triplet's sources are the chunks its index
// filed under both its subject and its object. Vector stores are recorded
// but not read.
package llamaindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memscope/memscope/internal/exactjson"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/pyjson"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Format is the --format name of a LlamaIndex persist directory.
const Format storemodel.Format = "llamaindex"

const (
	docstoreFile = "docstore.json"
	indexFile    = "index_store.json"
	lpgFile      = "property_graph_store.json"
	kgFile       = "graph_store.json"
	sourceKey    = "triplet_source_id" // graph_stores/types.py TRIPLET_SOURCE_KEY
)

// Locate returns the persist directory: path, or the directory of a file
// named in it. It needs index_store.json and one of docstore.json,
// property_graph_store.json, graph_store.json.
func Locate(path string) (string, bool) {
	dir := path
	if st, err := os.Stat(path); err != nil {
		return "", false
	} else if !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if !regular(filepath.Join(dir, indexFile)) {
		return "", false
	}
	for _, f := range []string{docstoreFile, lpgFile, kgFile} {
		if regular(filepath.Join(dir, f)) {
			return dir, true
		}
	}
	return "", false
}

func regular(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Looks says whether path is a LlamaIndex persist directory.
func Looks(path string) bool {
	_, ok := Locate(path)
	return ok
}

// reader accumulates the store while files are read.
type reader struct {
	ctx    context.Context
	dir    string
	st     *storemodel.Store
	nodeAt map[string]int
	pairAt map[string]int
	kgKeys map[string][]string // KG index table: keyword -> chunk ids
}

// Open reads the persist directory at path.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	dir, ok := Locate(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a LlamaIndex persist directory (index_store.json with docstore.json, property_graph_store.json or graph_store.json)", path)
	}
	r := &reader{ctx: ctx, dir: dir, st: &storemodel.Store{Format: Format, Root: dir}, nodeAt: map[string]int{}, pairAt: map[string]int{}}
	for _, step := range []func() error{r.indexStore, r.docstore, r.propertyGraph, r.kgGraph} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if others, _ := filepath.Glob(filepath.Join(dir, "*vector_store.json")); len(others) > 0 {
		r.st.Notes = append(r.st.Notes, fmt.Sprintf("%d vector store file(s) not read (embeddings only)", len(others)))
	}
	return r.st, nil
}

// read reads one JSON file of the directory into v, a map; absent is
// (false, nil). LlamaIndex loads its stores with json.load (exact keys,
// the last of a repeated key), as encoding/json decodes into maps; its
// struct decoding matches names case-insensitively and merges repeats,
// so every record is then decoded with exactjson, which refuses them.
func (r *reader) read(name, role string, v any) (bool, error) {
	p := filepath.Join(r.dir, name)
	if !regular(p) {
		return false, nil
	}
	b, desc, err := storefile.ReadAll(r.ctx, p, role, storefile.MaxJSON)
	if err != nil {
		return false, err
	}
	r.st.Files = append(r.st.Files, desc)
	// LlamaIndex opens its files "rb" and json.load detects the encoding
	// (a UTF-8 mark, UTF-16, UTF-32): a file saved again by a Windows tool
	// still loads there.
	b, enc, err := pyjson.BytesText(b)
	if err != nil {
		return false, fmt.Errorf("%s: not JSON as json.load reads it: %v", p, err)
	}
	if enc != "utf-8" {
		r.st.Notes = append(r.st.Notes, fmt.Sprintf("%s: %s text (json.load detects it from the first bytes), read as LlamaIndex reads it", p, enc))
	}
	if at := pyjson.FirstInvalidUTF8(b, true); at >= 0 && strings.HasPrefix(enc, "utf-8") {
		r.issue(finding.StoreParseDifferential, name, fmt.Sprintf("byte %d", at),
			"not UTF-8 from here: json.load raises UnicodeDecodeError on this file, so LlamaIndex cannot load the store; read here with U+FFFD for each byte that does not decode")
	}
	b, n := pyjson.Constants(b)
	if n > 0 {
		r.st.Notes = append(r.st.Notes, pyjson.Note(p, n))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: not JSON as json.load reads it: %v", p, err)
	}
	return true, nil
}

func (r *reader) issue(code finding.Code, file, subject, msg string) {
	r.st.Issues = append(r.st.Issues, storemodel.Issue{Code: code, File: filepath.Join(r.dir, file), Subject: subject, Message: msg})
}

type kvEntry struct {
	Type string          `json:"__type__"`
	Data json.RawMessage `json:"__data__"`
}

// indexStore reads the index structs: their types for the notes and the
// KG index's keyword table.
func (r *reader) indexStore() error {
	var doc map[string]map[string]json.RawMessage
	if _, err := r.read(indexFile, "LlamaIndex index store (JSON)", &doc); err != nil {
		return err
	}
	var kinds []string
	ids := slices.Sorted(maps.Keys(doc["index_store/data"]))
	for _, id := range ids {
		var e kvEntry
		if err := exactjson.Decode(doc["index_store/data"][id], &e); err != nil {
			r.issue(finding.StoreRecordMalformed, indexFile, "index "+id, err.Error())
			continue
		}
		kinds = append(kinds, e.Type)
		data, err := structData(e.Data)
		if err != nil {
			r.issue(finding.StoreRecordMalformed, indexFile, "index "+id+", field __data__", err.Error())
			continue
		}
		if e.Type != "kg" {
			continue
		}
		var kg struct {
			Table map[string][]string `json:"table"`
		}
		if err := exactjson.Decode(data, &kg); err != nil {
			r.issue(finding.StoreRecordMalformed, indexFile, "index "+id+", field table", err.Error())
			continue
		}
		if r.kgKeys == nil {
			r.kgKeys = map[string][]string{}
		}
		for k, v := range kg.Table {
			r.kgKeys[k] = append(r.kgKeys[k], v...)
		}
	}
	r.st.Notes = append(r.st.Notes, fmt.Sprintf("index store: %d index(es) (%s)", len(ids), strings.Join(kinds, ", ")))
	return nil
}

// structData is __data__ as an object: 0.6 stored the object, later
// versions its JSON text.
func structData(raw json.RawMessage) (json.RawMessage, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if !json.Valid([]byte(s)) {
			return nil, errors.New("a string that is not JSON")
		}
		return json.RawMessage(s), nil
	}
	if len(raw) > 0 && raw[0] == '{' {
		return raw, nil
	}
	return nil, errors.New("neither an object nor a JSON string")
}

// docstore reads every node with a text as a passage, in id order.
func (r *reader) docstore() error {
	var doc map[string]map[string]json.RawMessage
	ok, err := r.read(docstoreFile, "LlamaIndex docstore (JSON)", &doc)
	if err != nil || !ok {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(doc["docstore/data"])) {
		var e kvEntry
		var n struct {
			Text *string `json:"text"`
		}
		if err := exactjson.Decode(doc["docstore/data"][id], &e); err != nil {
			r.issue(finding.StoreRecordMalformed, docstoreFile, "docstore/data "+id, err.Error()+"; node not read")
			continue
		}
		if err := exactjson.Decode(e.Data, &n); err != nil || n.Text == nil {
			r.issue(finding.StoreRecordMalformed, docstoreFile, "docstore/data "+id+", field __data__.text", "missing or not a string; node not read")
			continue
		}
		r.passage(id, *n.Text)
	}
	return r.ctx.Err()
}

func (r *reader) passage(id, text string) {
	if i, ok := r.nodeAt[id]; ok {
		if r.st.Nodes[i].Kind != storemodel.KindPassage {
			r.issue(finding.StoreRecordMalformed, lpgFile, "node "+id, "an entity and a text chunk share this id; read as the entity")
		}
		return
	}
	r.nodeAt[id] = len(r.st.Nodes)
	r.st.Nodes = append(r.st.Nodes, storemodel.Node{ID: id, Kind: storemodel.KindPassage, Label: text, Listed: true})
}

func (r *reader) entity(id, label string) {
	if _, ok := r.nodeAt[id]; ok {
		return
	}
	r.nodeAt[id] = len(r.st.Nodes)
	r.st.Nodes = append(r.st.Nodes, storemodel.Node{ID: id, Kind: storemodel.KindEntity, Label: label})
}

// edge adds one stored relation; relations of one node pair are one write
// with their weights summed and their sources joined.
func (r *reader) edge(a, b, kind string, sources []string) {
	id := storemodel.PairID(a, b)
	if i, ok := r.pairAt[id]; ok {
		e := &r.st.Edges[i]
		e.Weight++
		e.Parts++
		for _, s := range sources {
			if !contains(e.Sources, s) {
				e.Sources = append(e.Sources, s)
			}
		}
		if len(e.Sources) > 0 && e.Kind == storemodel.EdgeUnexplained {
			e.Kind = kind
		}
		return
	}
	if len(sources) == 0 {
		kind = storemodel.EdgeUnexplained
	}
	r.pairAt[id] = len(r.st.Edges)
	r.st.Edges = append(r.st.Edges, storemodel.Edge{ID: id, Src: a, Dst: b, Weight: 1, Parts: 1, Kind: kind, Sources: sources})
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
