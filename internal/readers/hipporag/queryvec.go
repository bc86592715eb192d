package hipporag

// HippoRAG 2's reset vector from query embeddings (src/hipporag/HippoRAG.py,
// retrieve()): get_fact_scores(), rerank_facts() without its LLM filter,
// graph_search_with_fact_entities() with get_top_k_weights(), and
// dense_passage_retrieval(). HippoRAG 2 persists no queries; a responder
// who has the query embeddings (HippoRAG keeps them in query_to_embedding
// while it runs) gives them in a file, and the reset vector is rebuilt from
// the stored fact and passage embeddings exactly as retrieve() builds it,
// except for rerank_filter(): the LLM "recognition memory" that drops
// candidate facts is not reproduced, the link_top_k best facts are kept.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/parquetcols"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// HippoRAG 2's defaults (utils/config_utils.py BaseConfig).
const (
	LinkTopK          = 5    // linking_top_k
	PassageNodeWeight = 0.05 // passage_node_weight
)

// NotReproduced is said wherever a reset vector built here is used.
const NotReproduced = "the reset vector is rebuilt from the query embeddings and the stored fact and passage embeddings as HippoRAG 2's retrieve() builds it; its LLM recognition filter (rerank_filter) is not reproduced: the 5 best facts by score are kept as they are, where HippoRAG 2 may drop some"

// QueryEmbedding is one line of a --query-embeddings file (JSON Lines):
//
//	{"id": "q1", "text": "...", "k": 5, "fact_embedding": [...], "passage_embedding": [...]}
//
// fact_embedding is the query encoded with the query_to_fact instruction
// (HippoRAG's query_to_embedding["triple"]), passage_embedding with
// query_to_passage (query_to_embedding["passage"]); both as the model
// returned them (HippoRAG normalises them, norm=True).
type QueryEmbedding struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	K       int       `json:"k"`
	Fact    []float32 `json:"fact_embedding"`
	Passage []float32 `json:"passage_embedding"`
	Line    int       `json:"-"`
}

// maxQueryFile bounds a --query-embeddings file; maxQueryLine one line
// (an 8,192-dimension pair of embeddings is about 400 KB of JSON).
const (
	maxQueryFile = 256 << 20
	maxQueryLine = 16 << 20
)

// ReadQueryEmbeddings reads a --query-embeddings file.
func ReadQueryEmbeddings(ctx context.Context, file string) ([]QueryEmbedding, error) {
	b, _, err := storefile.ReadAll(ctx, file, "query embeddings", maxQueryFile)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 1<<16), maxQueryLine)
	var out []QueryEmbedding
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		q := QueryEmbedding{Line: line}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", file, line, err)
		}
		switch {
		case q.ID == "":
			return nil, fmt.Errorf("%s line %d, field id: empty", file, line)
		case len(q.Fact) == 0:
			return nil, fmt.Errorf("%s line %d, field fact_embedding: empty", file, line)
		case len(q.Passage) == 0:
			return nil, fmt.Errorf("%s line %d, field passage_embedding: empty", file, line)
		case q.K < 0 || q.K > 1000:
			return nil, fmt.Errorf("%s line %d, field k: %d out of 0..1000", file, line, q.K)
		}
		if l, dup := seen[q.ID]; dup {
			return nil, fmt.Errorf("%s line %d, field id: query \"%s\" already defined on line %d", file, line, q.ID, l)
		}
		seen[q.ID] = line
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

// Retrieval is what retrieve() reads besides the graph: the fact and chunk
// embedding stores and, per entity, how many chunks contain it
// (ent_node_to_chunk_ids, built by add_fact_edges()).
type Retrieval struct {
	facts      [][3]string
	factEmb    [][]float32
	passageIDs []string
	passageEmb [][]float32
	entChunks  map[string]int
	nodes      map[string]bool
}

// OpenRetrieval reads fact_embeddings/vdb_fact.parquet,
// chunk_embeddings/vdb_chunk.parquet and the OpenIE results of the store
// st was read from. Every passage of the chunk store must be a node of
// the graph (retrieve() looks each one up).
func OpenRetrieval(ctx context.Context, path string, st *storemodel.Store) (*Retrieval, error) {
	l, err := Locate(path)
	if err != nil {
		return nil, err
	}
	r := &Retrieval{entChunks: map[string]int{}, nodes: map[string]bool{}}
	for _, n := range st.Nodes {
		r.nodes[n.ID] = true
	}
	factFile := filepath.Join(l.WorkDir, "fact_embeddings", "vdb_fact.parquet")
	ids, contents, vecs, err := readEmbeddingStore(ctx, factFile, true, st)
	if err != nil {
		return nil, err
	}
	for i, c := range contents {
		t, err := parsePyTriple(c)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d (%s), field content: %w", factFile, i, ids[i], err)
		}
		r.facts = append(r.facts, t)
	}
	r.factEmb = vecs
	chunkFile := filepath.Join(l.WorkDir, "chunk_embeddings", "vdb_chunk.parquet")
	if r.passageIDs, _, r.passageEmb, err = readEmbeddingStore(ctx, chunkFile, false, st); err != nil {
		return nil, err
	}
	for i, id := range r.passageIDs {
		if !r.nodes[id] {
			return nil, fmt.Errorf("%s: row %d, field hash_id: passage %s is not a vertex of graph.pickle", chunkFile, i, id)
		}
	}
	if l.OpenIE == "" {
		return nil, errors.New("no openie_results_ner_<llm>.json: the number of chunks per entity (ent_node_to_chunk_ids) cannot be rebuilt")
	}
	ob, _, err := storefile.ReadAll(ctx, l.OpenIE, "OpenIE results (JSON)", storefile.MaxJSON)
	if err != nil {
		return nil, err
	}
	prov := newProvenance()
	if err := prov.read(l.OpenIE, ob, &storemodel.Store{}); err != nil {
		return nil, err
	}
	for e, cs := range prov.entChunks {
		r.entChunks[e] = len(distinct(cs))
	}
	return r, nil
}

// readEmbeddingStore reads one EmbeddingStore parquet file (hash_id,
// content, embedding), every embedding of one length, and records the file
// among those st was read from.
func readEmbeddingStore(ctx context.Context, file string, content bool, st *storemodel.Store) (ids, contents []string, vecs [][]float32, err error) {
	b, f, err := storefile.ReadAll(ctx, file, filepath.Base(filepath.Dir(file))+" (parquet, for query embeddings)", storefile.MaxParquet)
	if err != nil {
		return nil, nil, nil, err
	}
	st.Files = append(st.Files, f)
	pf, err := parquetcols.Open(file, b)
	if err != nil {
		return nil, nil, nil, err
	}
	if ids, err = pf.Strings(ctx, "hash_id"); err != nil {
		return nil, nil, nil, err
	}
	if content {
		if contents, err = pf.Strings(ctx, "content"); err != nil {
			return nil, nil, nil, err
		}
	}
	if vecs, err = pf.FloatLists(ctx, "embedding"); err != nil {
		return nil, nil, nil, err
	}
	for i, v := range vecs {
		if len(v) != len(vecs[0]) || len(v) == 0 {
			return nil, nil, nil, fmt.Errorf("%s: row %d, field embedding: %d dimensions, row 0 has %d", file, i, len(v), len(vecs[0]))
		}
	}
	return ids, contents, vecs, nil
}

// Reset builds the reset vector of one query, and names the facts it kept.
func (r *Retrieval) Reset(q QueryEmbedding) (map[string]float64, []string, error) {
	if len(r.factEmb) == 0 {
		// retrieve() falls back to dense retrieval alone, without PPR.
		return nil, nil, errors.New("the store holds no facts: HippoRAG 2 answers this query by dense retrieval alone, not by PPR")
	}
	if len(q.Fact) != len(r.factEmb[0]) {
		return nil, nil, fmt.Errorf("query %s: fact_embedding has %d dimensions, the stored facts %d", q.ID, len(q.Fact), len(r.factEmb[0]))
	}
	if len(r.passageEmb) == 0 || len(q.Passage) != len(r.passageEmb[0]) {
		return nil, nil, fmt.Errorf("query %s: passage_embedding has %d dimensions, the stored passages %d", q.ID, len(q.Passage), dims(r.passageEmb))
	}
	// get_fact_scores()
	scores := minMax(dots(r.factEmb, q.Fact))
	// rerank_facts(), without rerank_filter(): np.argsort(scores)[-k:][::-1]
	// (ties: the later fact first, as a stable ascending sort reversed).
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
	k := min(LinkTopK, len(order))
	top := make([]int, k)
	for i := range top {
		top[i] = order[len(order)-1-i]
	}
	// graph_search_with_fact_entities()
	weight := map[string]float64{}
	occurs := map[string]float64{}
	var kept []string
	var phraseOrder []string
	for _, fi := range top {
		f := r.facts[fi]
		kept = append(kept, fmt.Sprintf("(%s, %s, %s) score %.4f", f[0], f[1], f[2], scores[fi]))
		for _, ph := range []string{f[0], f[2]} {
			key := MDHashID(PyLower(ph), "entity-") // f[0].lower(), f[2].lower()
			if !r.nodes[key] {
				continue
			}
			w := scores[fi]
			if n := r.entChunks[key]; n > 0 {
				w /= float64(n)
			}
			if _, ok := weight[key]; !ok {
				phraseOrder = append(phraseOrder, key)
			}
			weight[key] += w
			occurs[key]++
		}
	}
	for key := range weight {
		weight[key] /= occurs[key]
	}
	// get_top_k_weights(): the link_top_k best phrases (upstream breaks ties
	// by a set's order; here by first appearance).
	sort.SliceStable(phraseOrder, func(a, b int) bool { return weight[phraseOrder[a]] > weight[phraseOrder[b]] })
	reset := map[string]float64{}
	for i, key := range phraseOrder {
		if i < LinkTopK && weight[key] > 0 {
			reset[key] += weight[key]
		}
	}
	// dense_passage_retrieval(): min-max normalised (upstream normalises the
	// sorted scores once more, which changes nothing unless all are equal).
	dense := minMax(minMax(dots(r.passageEmb, q.Passage)))
	for i, id := range r.passageIDs {
		if w := dense[i] * PassageNodeWeight; w > 0 {
			reset[id] += w
		}
	}
	// run_ppr(): NaN and negative weights become 0.
	for id, w := range reset {
		if math.IsNaN(w) || w <= 0 {
			delete(reset, id)
		}
	}
	if len(reset) == 0 {
		return nil, nil, fmt.Errorf("query %s: no phrase of the kept facts is in the graph and every dense score is 0", q.ID)
	}
	return reset, kept, nil
}

func dims(v [][]float32) int {
	if len(v) == 0 {
		return 0
	}
	return len(v[0])
}

func dots(m [][]float32, q []float32) []float64 {
	out := make([]float64, len(m))
	for i, row := range m {
		var s float64
		for j, x := range row {
			s += float64(x) * float64(q[j])
		}
		out[i] = s
	}
	return out
}

// minMax is misc_utils.min_max_normalize: all ones when the range is 0.
func minMax(x []float64) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	out := make([]float64, len(x))
	for i, v := range x {
		if hi-lo == 0 {
			out[i] = 1
		} else {
			out[i] = (v - lo) / (hi - lo)
		}
	}
	return out
}

// parsePyTriple reads str(tuple) of three strings, as index() stores a
// fact ("('a', 'b', 'c')", HippoRAG.py: insert_strings([str(fact) ...])),
// and as HippoRAG reads it back (eval, HippoRAG.py at c617143): repr's
// quoting (single quotes unless the text holds one and no double quote)
// and every escape a Python string literal takes (pyString).
func parsePyTriple(s string) ([3]string, error) {
	var t [3]string
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "(")
	if !ok {
		return t, fmt.Errorf("\"%s\" is not a Python tuple", short(s))
	}
	for i := range 3 {
		if i > 0 {
			if rest, ok = strings.CutPrefix(rest, ", "); !ok {
				return t, fmt.Errorf("\"%s\" is not a tuple of three strings", short(s))
			}
		}
		var err error
		if t[i], rest, err = pyString(rest); err != nil {
			return t, fmt.Errorf("\"%s\": %w", short(s), err)
		}
	}
	if rest != ")" {
		return t, fmt.Errorf("\"%s\" is not a tuple of three strings", short(s))
	}
	return t, nil
}

// pyEscapes are Python's one-character string escapes.
var pyEscapes = map[byte]rune{'\\': '\\', '\'': '\'', '"': '"', 'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}

// pyHexDigits are the hex escapes and their digit counts.
var pyHexDigits = map[byte]int{'x': 2, 'u': 4, 'U': 8}

// pyString reads one Python string literal at the start of s, as eval
// reads it (Python 3's string literal rules): repr writes \\, the quote,
// \n, \r, \t and \xhh, \uhhhh or \Uhhhhhhhh for a character it does not
// print; eval also takes \a \b \f \v, octal \ooo and keeps the backslash
// of an escape it does not know. Refused, as eval refuses them: a line
// break inside the literal, a short hex escape, a code point past
// U+10FFFF; and, with a reason, what a Go string cannot hold (a lone
// surrogate) or this reader does not look up (\N{name}).
func pyString(s string) (string, string, error) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", "", errors.New("a string literal was expected")
	}
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), s[i+1:], nil
		case c == '\n' || c == '\r':
			return "", "", errors.New("a line break inside a string literal (eval refuses it)")
		case c == '\\' && i+1 < len(s):
			n, err := pyEscape(&b, s[i+1:])
			if err != nil {
				return "", "", err
			}
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated string literal")
}

// pyEscape writes the escape at the start of s (after its backslash) and
// returns how many bytes it took.
func pyEscape(b *strings.Builder, s string) (int, error) {
	if r, ok := pyEscapes[s[0]]; ok {
		b.WriteRune(r)
		return 1, nil
	}
	switch c := s[0]; {
	case pyHexDigits[c] > 0:
		n := pyHexDigits[c]
		if len(s) < 1+n {
			return 0, fmt.Errorf("escape \\%c wants %d hex digits", c, n)
		}
		v, err := strconv.ParseUint(s[1:1+n], 16, 32)
		if err != nil {
			return 0, fmt.Errorf("escape \\%c wants %d hex digits, got %s", c, n, finding.Quote(s[1:1+n]))
		}
		switch {
		case v > unicode.MaxRune:
			return 0, fmt.Errorf("escape \\%s is past U+10FFFF", s[:1+n])
		case v >= 0xD800 && v < 0xE000:
			return 0, fmt.Errorf("escape \\%s is a lone surrogate, which a Go string cannot hold", s[:1+n])
		}
		b.WriteRune(rune(v))
		return 1 + n, nil
	case c >= '0' && c <= '7':
		n, v := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		b.WriteRune(rune(v))
		return n, nil
	case c == 'N':
		return 0, errors.New("escape \\N{...} (a character by name) is not read: str() never writes one")
	case c == '\n':
		return 1, nil // a backslash and a line break: both dropped
	default:
		b.WriteByte('\\') // eval keeps an unknown escape as written
		return 0, nil
	}
}

func short(s string) string { return finding.Clip(s, 80) }
