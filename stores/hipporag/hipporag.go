// Package hipporag reads a HippoRAG 2 save directory (OSU-NLP-Group/HippoRAG)
// as it is on disk into the native-store evidence model, read-only.
//
// Files and the upstream code that writes them (src/hipporag/HippoRAG.py):
//
//	<save_dir>/openie_results_ner_<llm>.json      save_openie_results(): docs[idx, passage, extracted_entities, extracted_triples]
//	<save_dir>/<llm>_<embedder>/graph.pickle       save_igraph(): Graph.write_pickle; vertices hash_id, content, name; edges weight
//	<save_dir>/<llm>_<embedder>/chunk_metadata.json _save_chunk_metadata() (newer versions; only its presence is recorded)
//
// Edge provenance is rebuilt from the OpenIE results exactly as index()
// built the edges: text_processing() of each triple, entity ids
// "entity-" + MD5 (compute_mdhash_id), add_fact_edges() (+1 each direction
// per triple), add_passage_edges() (chunk to each entity of its triples,
// 1.0). Parallel edges of one node pair are one write with their weights
// summed (PPR sees them so); its id is "A--B" (A < B in byte order). A pair
// no triple explains is a no-source write and an issue, except an entity
// pair whose stored entity embeddings are at least 0.8 cosine-similar
// (add_synonymy_edges()): a synonym edge, no source by design.
package hipporag

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/stores/igraphpickle"
	"github.com/memscope/memscope/stores/storefile"
	"github.com/memscope/memscope/stores/storemodel"
)

// Issue codes this reader reports.
const (
	CodeMalformed   = finding.StoreRecordMalformed
	CodeUnexplained = finding.StoreEdgeUnexplained
	CodeWeight      = finding.StoreEdgeWeight
)

// SynonymThreshold is HippoRAG 2's synonymy_edge_sim_threshold default.
const SynonymThreshold = 0.8

// Layout is where the store's files are.
type Layout struct {
	SaveDir, WorkDir string
	OpenIE           string // "" when no OpenIE results file was found
	Pickle           string
}

// Locate finds the files from a path that is the save directory, the
// working directory or graph.pickle itself.
func Locate(path string) (Layout, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Layout{}, err
	}
	var l Layout
	switch {
	case !st.IsDir():
		l.WorkDir = filepath.Dir(path)
		l.Pickle = path
	case exists(filepath.Join(path, "graph.pickle")):
		l.WorkDir = path
		l.Pickle = filepath.Join(path, "graph.pickle")
	default:
		subs, _ := filepath.Glob(filepath.Join(path, "*", "graph.pickle"))
		switch len(subs) {
		case 0:
			return Layout{}, fmt.Errorf("%s: no graph.pickle here or in a working directory below", path)
		case 1:
		default:
			return Layout{}, fmt.Errorf("%s: %d working directories hold a graph.pickle (%s); name one", path, len(subs), strings.Join(subs, ", "))
		}
		l.WorkDir = filepath.Dir(subs[0])
		l.Pickle = subs[0]
	}
	l.SaveDir = filepath.Dir(l.WorkDir)
	cands, _ := filepath.Glob(filepath.Join(l.SaveDir, "openie_results_ner_*.json"))
	work := filepath.Base(l.WorkDir)
	for _, c := range cands {
		llm := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(c), "openie_results_ner_"), ".json")
		if strings.HasPrefix(work, llm+"_") {
			l.OpenIE = c
		}
	}
	if l.OpenIE == "" && len(cands) == 1 {
		l.OpenIE = cands[0]
	}
	return l, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Looks says whether path looks like a HippoRAG 2 store (for detection).
func Looks(path string) bool {
	l, err := Locate(path)
	if err != nil {
		return false
	}
	f, err := evidence.OpenRegular(l.Pickle)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := f.Read(head)
	// Protocol 2+ pickles start with PROTO; igraph's names its class early.
	return n > 2 && head[0] == 0x80 && strings.Contains(string(head[:n]), "igraph")
}

type openieFile struct {
	Docs []json.RawMessage `json:"docs"`
}

type openieDoc struct {
	Idx      string              `json:"idx"`
	Passage  string              `json:"passage"`
	Entities []json.RawMessage   `json:"extracted_entities"`
	Triples  [][]json.RawMessage `json:"extracted_triples"`
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9 ]`)

// TextProcessing is HippoRAG's misc_utils.text_processing: lower case,
// every character outside [A-Za-z0-9 ] replaced by a space, trimmed.
// Python's str.lower() and Go's agree on the ASCII that survives; a
// non-ASCII letter becomes a space either way, since the pattern is ASCII.
func TextProcessing(s string) string {
	return strings.TrimSpace(nonAlnum.ReplaceAllString(strings.ToLower(s), " "))
}

// MDHashID is compute_mdhash_id: prefix + hex MD5 of the UTF-8 text.
func MDHashID(content, prefix string) string {
	h := md5.Sum([]byte(content))
	return prefix + hex.EncodeToString(h[:])
}

// Open reads the store at path.
func Open(ctx context.Context, path string) (*storemodel.Store, error) {
	l, err := Locate(path)
	if err != nil {
		return nil, err
	}
	st := &storemodel.Store{Format: storemodel.HippoRAG, Root: l.SaveDir}
	pb, pf, err := storefile.ReadAll(ctx, l.Pickle, "graph.pickle (igraph)", storefile.MaxPickle)
	if err != nil {
		return nil, err
	}
	st.Files = append(st.Files, pf)
	g, err := igraphpickle.Decode(pb)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Pickle, err)
	}
	pb = nil
	names, err := igraphpickle.Strings(g.VAttrs, "name")
	if err != nil || names == nil {
		if err == nil {
			err = errors.New("no vertex attribute \"name\" (HippoRAG 2 names every vertex by its hash id)")
		}
		return nil, fmt.Errorf("%s: %w", l.Pickle, err)
	}
	contents, err := igraphpickle.Strings(g.VAttrs, "content")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Pickle, err)
	}
	weights, err := igraphpickle.Floats(g.EAttrs, "weight")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Pickle, err)
	}
	if weights == nil && len(g.Edges) > 0 {
		return nil, fmt.Errorf("%s: no edge attribute \"weight\" (HippoRAG 2 weights every edge)", l.Pickle)
	}
	if g.Directed {
		st.Notes = append(st.Notes, "graph.pickle holds a directed graph; HippoRAG 2 runs PPR with directed=False, and so does replay")
	}
	prov := newProvenance()
	if l.OpenIE == "" {
		st.Notes = append(st.Notes, "no openie_results_ner_<llm>.json next to the working directory: no edge can be explained, so every edge is a no-source write")
	} else {
		ob, of, err := storefile.ReadAll(ctx, l.OpenIE, "OpenIE results (JSON)", storefile.MaxJSON)
		if err != nil {
			return nil, err
		}
		st.Files = append(st.Files, of)
		if err := prov.read(l.OpenIE, ob, st); err != nil {
			return nil, err
		}
	}
	if meta := filepath.Join(l.WorkDir, "chunk_metadata.json"); exists(meta) {
		if f, err := storefile.Describe(ctx, meta, "chunk metadata (JSON, not used by replay)"); err == nil {
			st.Files = append(st.Files, f)
		}
	}
	ids := make(map[string]int, len(names))
	for i, n := range names {
		if _, dup := ids[n]; dup {
			return nil, fmt.Errorf("%s: vertex name %q appears twice", l.Pickle, n)
		}
		ids[n] = i
		node := storemodel.Node{ID: n, Kind: storemodel.KindEntity}
		if contents != nil {
			node.Label = contents[i]
		}
		switch {
		case strings.HasPrefix(n, "chunk-"):
			node.Kind = storemodel.KindPassage
			node.Listed = prov.listed[n]
		case strings.HasPrefix(n, "entity-"):
		default:
			st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: l.Pickle, Subject: "vertex " + n,
				Message: "name starts with neither chunk- nor entity-; read as an entity (never ranked)"})
		}
		st.Nodes = append(st.Nodes, node)
	}
	embeddings := readEntityEmbeddings(ctx, l.WorkDir, st)
	// Merge parallel edges of one pair into one write, in first-seen order.
	pos := map[string]int{}
	for i, e := range g.Edges {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		a, b := names[e[0]], names[e[1]]
		id := storemodel.PairID(a, b)
		if j, ok := pos[id]; ok {
			st.Edges[j].Weight += weights[i]
			st.Edges[j].Parts++
			continue
		}
		if a > b {
			a, b = b, a
		}
		pos[id] = len(st.Edges)
		st.Edges = append(st.Edges, storemodel.Edge{ID: id, Src: a, Dst: b, Weight: weights[i], Parts: 1})
	}
	for i := range st.Edges {
		prov.explain(&st.Edges[i], embeddings, l.Pickle, st)
	}
	return st, nil
}

// provenance is what the OpenIE results explain.
type provenance struct {
	passage    map[string]string          // pair id -> chunk
	fact       map[string]map[string]bool // pair id -> chunks
	factWeight map[string]float64         // pair id -> weight add_fact_edges gives it (both directions)
	listed     map[string]bool            // chunk ids with an OpenIE document
	entChunks  map[string]map[string]bool // entity id -> chunks whose triples name it (ent_node_to_chunk_ids)
}

func newProvenance() *provenance {
	return &provenance{passage: map[string]string{}, fact: map[string]map[string]bool{}, factWeight: map[string]float64{},
		listed: map[string]bool{}, entChunks: map[string]map[string]bool{}}
}

func (p *provenance) read(file string, b []byte, st *storemodel.Store) error {
	var f openieFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if f.Docs == nil {
		return fmt.Errorf("%s: no \"docs\" list (save_openie_results writes one)", file)
	}
	for i, raw := range f.Docs {
		var d openieDoc
		subject := fmt.Sprintf("docs[%d]", i)
		if err := json.Unmarshal(raw, &d); err != nil {
			st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: file, Subject: subject, Message: err.Error()})
			continue
		}
		if d.Idx == "" {
			st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: file, Subject: subject, Message: "field idx is empty"})
			continue
		}
		subject += " (" + d.Idx + ")"
		p.listed[d.Idx] = true
		seen := map[string]bool{}
		for j, t := range d.Triples {
			// filter_invalid_triples: exactly three elements, duplicates dropped.
			if len(t) != 3 {
				continue
			}
			parts := make([]string, 3)
			ok := true
			for k, el := range t {
				var s string
				if err := json.Unmarshal(el, &s); err != nil {
					st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: file, Subject: subject,
						Message: fmt.Sprintf("extracted_triples[%d][%d] is not a string; triple skipped", j, k)})
					ok = false
					break
				}
				parts[k] = s
			}
			if !ok {
				continue
			}
			key := strings.Join(parts, "\x00")
			if seen[key] {
				continue
			}
			seen[key] = true
			a := MDHashID(TextProcessing(parts[0]), "entity-")
			c := MDHashID(TextProcessing(parts[2]), "entity-")
			if a != c {
				id := storemodel.PairID(a, c)
				if p.fact[id] == nil {
					p.fact[id] = map[string]bool{}
				}
				p.fact[id][d.Idx] = true
				p.factWeight[id] += 2
			}
			p.passage[storemodel.PairID(d.Idx, a)] = d.Idx
			for _, e := range []string{a, c} {
				if p.entChunks[e] == nil {
					p.entChunks[e] = map[string]bool{}
				}
				p.entChunks[e][d.Idx] = true
			}
			p.passage[storemodel.PairID(d.Idx, c)] = d.Idx
		}
	}
	return nil
}

func (p *provenance) explain(e *storemodel.Edge, emb map[string][]float32, file string, st *storemodel.Store) {
	if c, ok := p.passage[e.ID]; ok {
		e.Kind, e.Sources, e.Expected = storemodel.EdgePassage, []string{c}, 1
	} else if cs, ok := p.fact[e.ID]; ok {
		e.Kind, e.Expected = storemodel.EdgeFact, p.factWeight[e.ID]
		for c := range cs {
			e.Sources = append(e.Sources, c)
		}
		sort.Strings(e.Sources)
	}
	bothEntities := strings.HasPrefix(e.Src, "entity-") && strings.HasPrefix(e.Dst, "entity-")
	synonym, checked := false, false
	if bothEntities && emb != nil {
		va, oka := emb[e.Src]
		vb, okb := emb[e.Dst]
		if oka && okb {
			checked = true
			synonym = cosine(va, vb) >= SynonymThreshold-1e-6
		}
	}
	if e.Kind == "" && synonym {
		e.Kind = storemodel.EdgeSynonym
		return
	}
	if e.Kind == "" {
		e.Kind = storemodel.EdgeUnexplained
		msg := fmt.Sprintf("weight %g between %s and %s: no OpenIE triple explains it", e.Weight, e.Src, e.Dst)
		switch {
		case bothEntities && !checked && emb == nil:
			msg += " (it may be a synonym edge: vdb_entity.parquet was not read, so similarity was not checked)"
		case bothEntities && checked:
			msg += " and the stored entity embeddings are not similar enough for a synonym edge"
		}
		st.Issues = append(st.Issues, storemodel.Issue{Code: CodeUnexplained, File: file, Subject: "edge " + e.ID, Message: msg + "; a no-source write"})
		return
	}
	// A synonym edge may share a pair with a fact edge: up to 1 per direction.
	allow := e.Expected
	if synonym || (bothEntities && !checked) {
		allow += 2
	}
	if e.Weight > allow+1e-6 {
		st.Issues = append(st.Issues, storemodel.Issue{Code: CodeWeight, File: file, Subject: "edge " + e.ID,
			Message: fmt.Sprintf("weight %g exceeds the %g that the OpenIE results account for", e.Weight, allow)})
	}
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / (sqrt(na) * sqrt(nb))
}
