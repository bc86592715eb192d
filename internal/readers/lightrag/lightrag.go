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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/pyjson"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
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
	dir, ok := Locate(path)
	return ok && !isNano(dir)
}

// Open reads the LightRAG working directory at path.
func Open(ctx context.Context, path string) (*storemodel.Store, error) { return open(ctx, path, false) }

// open is Open; whole builds the store after reading the whole graph even
// when it could while the graph streams (a test compares the two).
func open(ctx context.Context, path string, whole bool) (*storemodel.Store, error) {
	dir, ok := Locate(path)
	if !ok {
		return nil, fmt.Errorf("%s: no %s here", path, graphFile)
	}
	st := &storemodel.Store{Format: storemodel.LightRAG, Root: dir,
		Notes: []string{"LightRAG retrieves by vector search plus one hop, not PPR: replay here is a what-if of HippoRAG 2's selector over LightRAG's graph"}}
	chunks, chunkDoc, err := readChunks(ctx, dir, st)
	if err != nil {
		return nil, err
	}
	docs, err := readDocs(ctx, dir, st)
	if err != nil {
		return nil, err
	}
	// Every source list names chunks by the chunk table's own id strings,
	// so a million edges naming a few thousand chunks hold no copies.
	canon := make(map[string]string, len(chunks))
	for id := range chunks {
		canon[id] = id
	}
	b := &build{st: st, gpath: filepath.Join(dir, graphFile), chunks: chunks, chunkDoc: chunkDoc, canon: canon, docs: docs}
	var g *Graph
	err = errNodesAfterEdges
	if !whole {
		g, err = b.streamGraph(ctx)
	}
	if whole || errors.Is(err, errNodesAfterEdges) {
		// Not networkx's order: read it whole, from the start.
		st.Nodes, st.Edges = nil, nil
		b = &build{st: st, gpath: b.gpath, chunks: chunks, chunkDoc: chunkDoc, canon: canon, docs: docs}
		g, err = b.wholeGraph(ctx)
	}
	if err != nil {
		return nil, err
	}
	st.Layout = layoutOf(dir, docs, quotedNames(g))
	return st, nil
}

// readChunks reads the text chunks file, when there is one: each chunk's
// content and full_doc_id, by chunk id; a malformed chunk is an issue and
// skipped.
func readChunks(ctx context.Context, dir string, st *storemodel.Store) (chunks, chunkDoc map[string]string, err error) {
	chunks = map[string]string{}
	chunkDoc = map[string]string{} // chunk id -> full_doc_id
	cpath := filepath.Join(dir, chunksFile)
	if _, err := os.Stat(cpath); err == nil {
		raw, err := readKV(ctx, cpath, "text chunks (JSON)", st)
		if err != nil {
			return nil, nil, err
		}
		for _, id := range raw.order {
			c, err := readPyObject(raw.members[id])
			if err != nil {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: cpath, Subject: "chunk " + id, Message: err.Error()})
				continue
			}
			if msg := c.keyIssues(); msg != "" {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: cpath, Subject: "chunk " + id, Message: msg})
			}
			content, _, err1 := c.str("content")
			doc, _, err2 := c.str("full_doc_id")
			if err := errors.Join(err1, err2); err != nil {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: cpath, Subject: "chunk " + id, Message: err.Error()})
				continue
			}
			chunks[id] = content
			chunkDoc[id] = doc
		}
	} else {
		st.Notes = append(st.Notes, chunksFile+" is absent: chunks named by source_id are kept as passages the store does not list, so no edge is sourced")
	}
	return chunks, chunkDoc, nil
}

// split is a GRAPH_FIELD_SEP-joined field's values, trimmed, without the
// empty ones.
func split(s string) []string { return splitInto(nil, s) }

func splitInto(dst []string, s string) []string {
	for s != "" {
		part, rest, found := strings.Cut(s, Sep)
		if p := strings.TrimSpace(part); p != "" {
			dst = append(dst, p)
		}
		if !found {
			break
		}
		s = rest
	}
	return dst
}

// sourceLists holds the edges' source lists in shared blocks: a million
// one-source edges then cost 16 bytes each rather than an allocation each.
type sourceLists struct{ block []string }

// room makes room for a list of up to n names in the current block.
func (l *sourceLists) room(n int) {
	if cap(l.block)-len(l.block) < n {
		l.block = make([]string, 0, max(n, 1<<16))
	}
}

// seal returns the names appended since mark as a list of its own (nil
// when none), full to capacity so that appending to it copies.
func (l *sourceLists) seal(mark int) []string {
	if len(l.block) == mark {
		return nil
	}
	return l.block[mark:len(l.block):len(l.block)]
}

// of is the one-name list {c}.
func (l *sourceLists) of(c string) []string {
	l.room(1)
	mark := len(l.block)
	l.block = append(l.block, c)
	return l.seal(mark)
}

// split is split(s) with every name of a chunk in canon replaced by the
// chunk table's own string.
func (l *sourceLists) split(s string, canon map[string]string) []string {
	l.room(strings.Count(s, Sep) + 1)
	mark := len(l.block)
	l.block = splitInto(l.block, s)
	for i := mark; i < len(l.block); i++ {
		if c, ok := canon[l.block[i]]; ok {
			l.block[i] = c
		}
	}
	return l.seal(mark)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Document tables (lightrag/kg/json_kv_impl.py JsonKVStorage and
// json_doc_status_impl.py JsonDocStatusStorage): kv_store_full_docs.json
// maps a document id to its content; kv_store_doc_status.json maps it to
// its DocProcessingStatus (status, chunks_count and, in newer versions,
// chunks_list). A text chunk is written by the pipeline from one document
// (full_doc_id); a chunk whose document is not stored, or which its
// document's chunks_list does not name, was not produced from a stored
// document: it is not a listed passage, and it is SOURCE_MISSING.
const (
	fullDocsFile  = "kv_store_full_docs.json"
	docStatusFile = "kv_store_doc_status.json"
)

type docStatus struct {
	Status               string
	CreatedAt, UpdatedAt string // as stored (ISO 8601; absent in 1.0)
	ChunksList           []string
	keys                 string // repeated or case-twin keys, "" when none
}

// readDocStatus reads a DocProcessingStatus record by exact keys.
func readDocStatus(raw json.RawMessage) (docStatus, error) {
	o, err := readPyObject(raw)
	if err != nil {
		return docStatus{}, err
	}
	s := docStatus{keys: o.keyIssues()}
	if s.Status, _, err = o.str("status"); err != nil {
		return s, err
	}
	// Times are for the timeline only; a non-string time is kept empty.
	s.CreatedAt, _, _ = o.str("created_at")
	s.UpdatedAt, _, _ = o.str("updated_at")
	if v, ok := o.members["chunks_list"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &s.ChunksList); err != nil {
			return s, errors.New("field chunks_list is not a list of strings")
		}
		if s.ChunksList == nil {
			s.ChunksList = []string{}
		}
	}
	return s, nil
}

type docTables struct {
	full   map[string]bool // nil: kv_store_full_docs.json absent
	status map[string]docStatus
	inList map[string]bool // chunks some chunks_list names
}

func readDocs(ctx context.Context, dir string, st *storemodel.Store) (*docTables, error) {
	d := &docTables{status: map[string]docStatus{}, inList: map[string]bool{}}
	if p := filepath.Join(dir, fullDocsFile); fileExists(p) {
		raw, err := readKV(ctx, p, "full documents (JSON)", st)
		if err != nil {
			return nil, err
		}
		d.full = make(map[string]bool, len(raw.order))
		for _, id := range raw.order {
			d.full[id] = true
		}
	} else {
		st.Notes = append(st.Notes, fullDocsFile+" is absent: whether each chunk came from a stored document is not checked")
	}
	if p := filepath.Join(dir, docStatusFile); fileExists(p) {
		raw, err := readKV(ctx, p, "document status (JSON)", st)
		if err != nil {
			return nil, err
		}
		for _, id := range raw.order {
			s, err := readDocStatus(raw.members[id])
			if err != nil {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: p, Subject: "document " + id, Message: err.Error()})
				continue
			}
			if s.keys != "" {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: p, Subject: "document " + id, Message: s.keys})
			}
			d.status[id] = s
			st.Docs = append(st.Docs, storemodel.Doc{ID: id, Status: s.Status, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt})
			for _, c := range s.ChunksList {
				d.inList[c] = true
			}
		}
	}
	return d, nil
}

// explains says whether chunk id (of document doc) was produced from a
// stored document, reporting why not.
func (d *docTables) explains(id, doc string, st *storemodel.Store) bool {
	cpath := filepath.Join(st.Root, chunksFile)
	if d.full != nil && !d.full[doc] {
		st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: cpath, Subject: "chunk " + id + ", field full_doc_id",
			Message: fmt.Sprintf("document \"%s\" is not in %s: a passage with no source document; not a listed passage", doc, fullDocsFile)})
		return false
	}
	if s, ok := d.status[doc]; ok && s.ChunksList != nil && !slices.Contains(s.ChunksList, id) {
		st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: cpath, Subject: "chunk " + id + ", field full_doc_id",
			Message: fmt.Sprintf("document \"%s\"'s chunks_list in %s does not name this chunk: it was not chunked from that document; not a listed passage", doc, docStatusFile)})
		return false
	}
	return true
}

// missingChunks reports chunks a document's chunks_list names that the
// text chunks do not hold.
func (d *docTables) missingChunks(chunks map[string]string, st *storemodel.Store) {
	ids := make([]string, 0, len(d.status))
	for id := range d.status {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for _, c := range d.status[id].ChunksList {
			if _, ok := chunks[c]; !ok {
				st.Issues = append(st.Issues, storemodel.Issue{Code: finding.SourceMissing, File: filepath.Join(st.Root, docStatusFile), Subject: "document " + id + ", field chunks_list",
					Message: fmt.Sprintf("names chunk \"%s\", which is not in %s", c, chunksFile)})
			}
		}
	}
}

// readKV reads one JsonKVStorage file (an object of id -> record), bounded
// in size, as Python's json reads it, and records it among the files read.
// A repeated id is reported (Python keeps the last record).
func readKV(ctx context.Context, path, role string, st *storemodel.Store) (*pyObject, error) {
	b, f, err := storefile.ReadAll(ctx, path, role, storefile.MaxJSON)
	if err != nil {
		return nil, err
	}
	st.Files = append(st.Files, f)
	b, n := pyjson.Constants(b)
	if n > 0 {
		st.Notes = append(st.Notes, pyjson.Note(path, n))
	}
	raw, err := readPyObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(raw.repeated) > 0 {
		st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: path, Subject: "top-level object",
			Message: fmt.Sprintf("record ids repeated: %s (Python's json, and so LightRAG, keeps the last record; so does memscope)", finding.QuoteAll(raw.repeated))})
	}
	return raw, nil
}

// keptGraphData are the GraphML data values the reader uses; the others
// (descriptions, keywords...) are not kept, so memory follows the graph.
// created_at (LightRAG 1.4+) is kept for the timeline.
func keptGraphData(name string) bool {
	return name == "source_id" || name == "weight" || name == "created_at"
}

// rawEdge is what Open keeps of a GraphML edge while the graph streams
// past: less than the parser's Element.
type rawEdge struct {
	src, dst, sourceID, createdAt string
	srcAt, dstAt                  int32 // Element's
	weight                        float64
	badWeight                     string // the stored text of a weight that is not a finite non-negative number
}

func newRawEdge(e *Element) rawEdge {
	r := rawEdge{src: e.Source, dst: e.Target, srcAt: e.srcAt, dstAt: e.dstAt, sourceID: e.value("source_id"), createdAt: e.value("created_at"), weight: 1}
	if s, ok := e.Get("weight"); ok {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || x < 0 || x != x || x > 1e300 {
			r.badWeight = s
			if r.badWeight == "" {
				r.badWeight = " "
			}
		}
		r.weight = x
	}
	return r
}

// rawEdges holds the edges in fixed blocks, each released once converted,
// so the raw records and the store's edges are not all alive at once.
type rawEdges struct {
	blocks [][]rawEdge
	n      int
}

const rawBlock = 1 << 16

func (r *rawEdges) add(e rawEdge) {
	if r.n%rawBlock == 0 {
		r.blocks = append(r.blocks, make([]rawEdge, 0, rawBlock))
	}
	b := &r.blocks[len(r.blocks)-1]
	*b = append(*b, e)
	r.n++
}

func (r *rawEdges) at(i int) *rawEdge { return &r.blocks[i/rawBlock][i%rawBlock] }

// done releases edge i's block when i is its last edge.
func (r *rawEdges) done(i int) {
	if i%rawBlock == rawBlock-1 {
		r.blocks[i/rawBlock] = nil
	}
}

// readGraph streams the GraphML file, handing each edge to edge (with the
// graph read so far), reporting what networkx reads differently from what
// nx.write_graphml writes, and returns the graph's nodes.
func readGraph(ctx context.Context, gpath string, st *storemodel.Store, o streamOptions, edge func(*Graph, *Element) error) (*Graph, error) {
	s, err := storefile.OpenStream(ctx, gpath, "entity-relation graph (GraphML)", storefile.MaxGraphML)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	g, err := streamGraphML(s, keptGraphData, edge, o)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("%s: %w", gpath, err)
	}
	f, err := s.File()
	if err != nil {
		return nil, err
	}
	st.Files = append(st.Files, f)
	for _, d := range g.Deviations {
		subject := d.Subject
		if d.Line > 0 {
			subject = fmt.Sprintf("line %d, %s", d.Line, d.Subject)
		}
		st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: gpath, Subject: subject, Message: d.Message})
	}
	if g.Directed {
		st.Notes = append(st.Notes, "the graph is directed: LightRAG writes undirected graphs; edges are replayed as stored")
	}
	if g.Encoding != "UTF-8" {
		st.Notes = append(st.Notes, fmt.Sprintf("%s: %s text (nx.write_graphml writes UTF-8; saved again by another tool?), read as networkx reads it", gpath, g.Encoding))
	}
	return g, nil
}
