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
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/exactjson"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/igraphpickle"
	"github.com/memscope/memscope/internal/readers/pyjson"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
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

type openieDoc struct {
	Idx      string              `json:"idx"`
	Passage  string              `json:"passage"`
	Entities []json.RawMessage   `json:"extracted_entities"`
	Triples  [][]json.RawMessage `json:"extracted_triples"`
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9 ]`)

// TextProcessing is HippoRAG's misc_utils.text_processing: lower case,
// every character outside [A-Za-z0-9 ] replaced by a space, trimmed.
// Python's str.lower() and Go's agree on the ASCII that survives but for
// one character: Python lowers U+0130 (capital I with dot above) to two,
// "i" and a combining dot (SpecialCasing.txt), which the pattern then
// turns into "i ", where Go's one-to-one mapping gives "i". Every other
// non-ASCII character becomes one space either way (U+212A, the Kelvin
// sign, lowers to "k" in both); TestTextProcessingAsPython checks every
// code point against Python.
func TextProcessing(s string) string {
	// ASCII, the common case, without the regexp (a HotpotQA-size store has
	// tens of thousands of triples); anything else takes the general path.
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return strings.TrimSpace(nonAlnum.ReplaceAllString(PyLower(s), " "))
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == ' ':
		default:
			c = ' '
		}
		b[i] = c
	}
	return strings.TrimSpace(string(b))
}

// PyLower is Python's str.lower(): Go's one-to-one mapping (Unicode's
// simple lower case) but for the two places Python differs, its full
// mapping of U+0130 (capital I with dot above) to "i" and a combining dot
// (SpecialCasing.txt) and the final sigma: a capital sigma after a cased
// letter and not before one (case-ignorable characters between skipped)
// lowers to U+03C2, not U+03C3 (unicodeobject.c, handle_capital_sigma).
// TestPyLowerAsPython checks every code point against Python.
func PyLower(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < 0x80
	}
	if ascii {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3A3:
			if finalSigma(rs, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma: rs[i], a capital sigma, follows a cased letter and precedes
// none, case-ignorable characters between skipped.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property: Lowercase, Uppercase or a titlecase
// letter (DerivedCoreProperties.txt).
func cased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) || unicode.In(r, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: the categories Mn,
// Me, Cf, Lm and Sk, and the word-break classes MidLetter, MidNumLet and
// Single_Quote (DerivedCoreProperties.txt, Unicode 15).
func caseIgnorable(r rune) bool {
	switch r {
	case 0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
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
	// The OpenIE results are read and parsed while the pickle decodes (the
	// two are independent and each is about a third of the open); the
	// results join below where they were always taken, so files, issues
	// and errors come in the same order as read one after the other.
	prov := newProvenance()
	var openie chan openieResult
	if l.OpenIE != "" {
		openie = make(chan openieResult, 1)
		go func() { openie <- readOpenIE(ctx, l.OpenIE, prov) }()
	}
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
	if l.OpenIE == "" {
		st.Notes = append(st.Notes, "no openie_results_ner_<llm>.json next to the working directory: no edge can be explained, so every edge is a no-source write")
	} else {
		r := <-openie
		if r.readErr != nil {
			return nil, r.readErr
		}
		st.Files = append(st.Files, r.file)
		if r.err != nil {
			return nil, r.err
		}
		st.Issues = append(st.Issues, r.issues...)
	}
	if meta := filepath.Join(l.WorkDir, "chunk_metadata.json"); exists(meta) {
		if f, err := storefile.Describe(ctx, meta, "chunk metadata (JSON, not used by replay)"); err == nil {
			st.Files = append(st.Files, f)
		}
	}
	ids := make(map[string]int, len(names))
	st.Nodes = make([]storemodel.Node, 0, len(names))
	for i, n := range names {
		if _, dup := ids[n]; dup {
			return nil, fmt.Errorf("%s: vertex name \"%s\" appears twice", l.Pickle, n)
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
	if err := mergeEdges(ctx, st, g.Edges, names, weights, l.Pickle); err != nil {
		return nil, err
	}
	for i := range st.Edges {
		prov.explain(&st.Edges[i], embeddings, l.Pickle, st)
	}
	return st, nil
}

// mergeEdges adds the pickle's edges to st, parallel edges of one pair
// merged into one write in first-seen order; a negative weight is reported
// and left out.
func mergeEdges(ctx context.Context, st *storemodel.Store, edges [][2]int32, names []string, weights []float64, pickle string) error {
	// Merge parallel edges of one pair into one write, in first-seen order.
	// Pairs are keyed by their vertex indices (names are unique, checked
	// above), so only a new pair builds its "A--B" id.
	pos := make(map[uint64]int, len(edges))
	st.Edges = make([]storemodel.Edge, 0, len(edges))
	for i, e := range edges {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		va, vb := e[0], e[1]
		if names[vb] < names[va] {
			va, vb = vb, va
		}
		if weights[i] < 0 {
			// HippoRAG 2 never writes one (add_fact_edges and
			// add_synonymy_edges, src/hipporag/HippoRAG.py, add counts and
			// similarities). python-igraph 0.10's personalized_pagerank
			// (run_ppr) does not refuse it and ranks by no documented rule,
			// so replay cannot reproduce it: the edge is reported and left
			// out, never summed into a parallel edge, and the rest is
			// analysed.
			st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: pickle, Subject: fmt.Sprintf("edge %d (%s -- %s), field weight", i, names[va], names[vb]),
				Message: fmt.Sprintf("weight %g is negative: HippoRAG 2 writes none, and igraph's personalized PageRank ranks such a graph by no documented rule; this stored edge is left out of replay", weights[i])})
			continue
		}
		key := uint64(uint32(va))<<32 | uint64(uint32(vb))
		if j, ok := pos[key]; ok {
			st.Edges[j].Weight += weights[i]
			st.Edges[j].Parts++
			continue
		}
		a, b := names[va], names[vb]
		pos[key] = len(st.Edges)
		st.Edges = append(st.Edges, storemodel.Edge{ID: storemodel.PairID(a, b), Src: a, Dst: b, Weight: weights[i], Parts: 1})
	}
	return nil
}

// openieResult is the OpenIE file read into a provenance: the file, the
// issues its docs raised, a read error or a parse error.
type openieResult struct {
	file         storemodel.File
	issues       []storemodel.Issue
	readErr, err error
}

func readOpenIE(ctx context.Context, path string, prov *provenance) openieResult {
	ob, of, err := storefile.ReadAll(ctx, path, "OpenIE results (JSON)", storefile.MaxJSON)
	if err != nil {
		return openieResult{readErr: err}
	}
	var issues storemodel.Store
	// HippoRAG opens the file with encoding="utf-8" (HippoRAG.py at
	// c617143, load_existing_openie), so a byte that is not UTF-8 stops it
	// (UnicodeDecodeError).
	if at := pyjson.FirstInvalidUTF8(ob, false); at >= 0 {
		issues.Issues = append(issues.Issues, storemodel.Issue{Code: finding.StoreParseDifferential, File: path, Subject: fmt.Sprintf("byte %d", at),
			Message: "not UTF-8 from here: HippoRAG opens this file as UTF-8 and raises UnicodeDecodeError, so it cannot load the store; read here with U+FFFD for what does not decode"})
	}
	err = prov.read(path, ob, &issues)
	return openieResult{file: of, issues: issues.Issues, err: err}
}

// provenance is what the OpenIE results explain. Pairs are keyed by their
// two ids in byte order (no "A--B" string is built per triple); chunk lists
// are appended in document order, consecutive repeats dropped, and made
// distinct where they are read (a chunk id may recur in a later doc).
type provenance struct {
	passage   map[pairKey]string   // chunk-entity pair -> chunk
	fact      map[pairKey]*factRec // entity pair -> the triples that explain it
	listed    map[string]bool      // chunk ids with an OpenIE document
	entChunks map[string][]string  // entity id -> chunks whose triples name it (ent_node_to_chunk_ids)
	entityID  map[string]string    // triple text -> "entity-" + MD5 of text_processing(text)
}

type pairKey struct{ a, b string }

func pairOf(a, b string) pairKey {
	if b < a {
		a, b = b, a
	}
	return pairKey{a, b}
}

type factRec struct {
	chunks []string
	weight float64 // what add_fact_edges gives the pair (both directions)
}

func newProvenance() *provenance {
	return &provenance{passage: map[pairKey]string{}, fact: map[pairKey]*factRec{}, listed: map[string]bool{},
		entChunks: map[string][]string{}, entityID: map[string]string{}}
}

// entity is compute_mdhash_id(text_processing(text), "entity-"), once per
// distinct text.
func (p *provenance) entity(text string) string {
	if id, ok := p.entityID[text]; ok {
		return id
	}
	id := MDHashID(TextProcessing(text), "entity-")
	p.entityID[text] = id
	return id
}

// appendChunk appends c unless it is already the last element.
func appendChunk(l []string, c string) []string {
	if n := len(l); n > 0 && l[n-1] == c {
		return l
	}
	return append(l, c)
}

// distinct sorts l and drops repeats.
func distinct(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return slices.Compact(out)
}

// openieFast is the OpenIE file decoded in one pass. A file that does not
// decode this way (a doc with a field of the wrong type) is read again doc
// by doc, so that the bad doc is an issue and the rest is still read.
type openieFast struct {
	Docs []struct {
		Idx      string            `json:"idx"`
		Passage  string            `json:"passage"`
		Entities []json.RawMessage `json:"extracted_entities"`
		Triples  [][]any           `json:"extracted_triples"`
	} `json:"docs"`
}

// notString stands for a triple element that is not a JSON string.
type notString struct{}

func (p *provenance) read(file string, b []byte, st *storemodel.Store) error {
	// HippoRAG reads the file with json.load and each doc's fields by
	// exact key (HippoRAG.py load_existing_openie, the last of a repeated
	// key). Struct decoding here is exact (exactjson) and refuses a
	// repeated name, so a file with one is read doc by doc below.
	var fast openieFast
	if exactjson.Decode(b, &fast) == nil {
		if fast.Docs == nil {
			return fmt.Errorf("%s: no \"docs\" list (save_openie_results writes one)", file)
		}
		for i, d := range fast.Docs {
			p.doc(file, i, d.Idx, d.Triples, st)
		}
		return nil
	}
	// Maps decode as json.load does: exact keys, the last of a repeat.
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var docs []json.RawMessage
	if raw, ok := top["docs"]; ok {
		if err := json.Unmarshal(raw, &docs); err != nil {
			return fmt.Errorf("%s: docs: %w", file, err)
		}
	}
	if docs == nil {
		return fmt.Errorf("%s: no \"docs\" list (save_openie_results writes one)", file)
	}
	for i, raw := range docs {
		var d openieDoc
		if err := exactjson.Decode(raw, &d); err != nil {
			msg := err.Error()
			var rep *exactjson.RepeatedNameError
			if errors.As(err, &rep) {
				msg += ": json.dump never writes one, and Python's json keeps the last value while a merging reader would not; doc not read"
			}
			st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: file, Subject: fmt.Sprintf("docs[%d]", i), Message: msg})
			continue
		}
		triples := make([][]any, len(d.Triples))
		for j, t := range d.Triples {
			triples[j] = make([]any, len(t))
			for k, el := range t {
				var s string
				if json.Unmarshal(el, &s) != nil {
					triples[j][k] = notString{}
					continue
				}
				triples[j][k] = s
			}
		}
		p.doc(file, i, d.Idx, triples, st)
	}
	return nil
}

// doc adds what OpenIE document i explains. Triple elements are strings as
// decoded, nil for a JSON null (read as "", as a string field reads it),
// anything else not a string.
func (p *provenance) doc(file string, i int, idx string, triples [][]any, st *storemodel.Store) {
	subject := fmt.Sprintf("docs[%d]", i)
	if idx == "" {
		st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: file, Subject: subject, Message: "field idx is empty"})
		return
	}
	subject += " (" + idx + ")"
	p.listed[idx] = true
	seen := map[string]bool{}
	var parts [3]string
	for j, t := range triples {
		// filter_invalid_triples: exactly three elements, duplicates dropped.
		if len(t) != 3 {
			continue
		}
		ok := true
		for k, el := range t {
			switch el := el.(type) {
			case string:
				parts[k] = el
			case nil:
				parts[k] = ""
			default:
				st.Issues = append(st.Issues, storemodel.Issue{Code: CodeMalformed, File: file, Subject: subject,
					Message: fmt.Sprintf("extracted_triples[%d][%d] is not a string; triple skipped", j, k)})
				ok = false
			}
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		key := parts[0] + "\x00" + parts[1] + "\x00" + parts[2]
		if seen[key] {
			continue
		}
		seen[key] = true
		a, c := p.entity(parts[0]), p.entity(parts[2])
		if a != c {
			k := pairOf(a, c)
			f := p.fact[k]
			if f == nil {
				f = &factRec{}
				p.fact[k] = f
			}
			f.chunks = appendChunk(f.chunks, idx)
			f.weight += 2
		}
		p.passage[pairOf(idx, a)] = idx
		p.passage[pairOf(idx, c)] = idx
		p.entChunks[a] = appendChunk(p.entChunks[a], idx)
		p.entChunks[c] = appendChunk(p.entChunks[c], idx)
	}
}

func (p *provenance) explain(e *storemodel.Edge, emb map[string][]float32, file string, st *storemodel.Store) {
	k := pairOf(e.Src, e.Dst)
	if c, ok := p.passage[k]; ok {
		e.Kind, e.Sources, e.Expected = storemodel.EdgePassage, []string{c}, 1
	} else if f, ok := p.fact[k]; ok {
		e.Kind, e.Expected, e.Sources = storemodel.EdgeFact, f.weight, distinct(f.chunks)
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
