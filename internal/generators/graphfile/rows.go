package graphfile

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
)

// Node is one row of the nodes file. A passage becomes a signed memory
// entry plus a graph vertex; an entity becomes a graph vertex only.
type Node struct {
	ID     string
	Kind   string // snapshot.NodePassage or snapshot.NodeEntity
	Text   string
	Writer string        // passages only; "" takes the import's default writer
	Trust  *record.Trust // passages only; nil takes the writer class default
	Line   int
}

// Edge is one row of the edges file: a structural write.
type Edge struct {
	ID       string // optional; kept in the write's import note (import_notes.input_id)
	Src, Dst string
	Weight   float64
	Kind     string // record.KindEdge, KindMerge or KindRelation
	Rel      string
	Writer   string   // "" takes the import's default writer
	Sources  []string // passage node ids; empty is a no-source write
	Declared string   // "", LabelAuthenticated or LabelUnauthenticated
	Line     int
}

// Query is one row of the queries file: a retrieval with its reset vector.
type Query struct {
	ID       string
	Text     string
	K        int
	Reset    map[string]float64
	Dense    map[string]float64 // nil when absent
	Selected []string           // nil when absent
	Line     int
}

// Declared provenance labels.
const (
	LabelAuthenticated   = "authenticated"
	LabelUnauthenticated = "unauthenticated"
)

// DefaultK is a query's k when the file gives none (HippoRAG2's top-5).
const DefaultK = 5

// MaxK bounds k as the snapshot loader does.
const MaxK = snapshot.MaxK

var (
	nodeSpec  = spec{known: []string{"id", "kind", "text", "writer", "trust"}, required: []string{"id", "kind", "text"}}
	edgeSpec  = spec{known: []string{"id", "src", "dst", "weight", "kind", "rel", "writer", "sources", "declared"}, required: []string{"src", "dst", "weight", "sources"}}
	querySpec = spec{known: []string{"id", "text", "k", "reset", "dense", "selected"}, required: []string{"id", "text", "reset"}}
)

// ReadNodes parses a nodes file and checks each row on its own (ids unique,
// names and kinds valid). file names the input in errors.
func ReadNodes(file string, r io.Reader, f Format) ([]Node, error) {
	var out []Node
	first := map[string]int{}
	err := readRows(file, r, f, nodeSpec, func(rw row) error {
		n, err := parseNode(rw)
		if err != nil {
			return err
		}
		if l, dup := first[n.ID]; dup {
			return rw.at.errf("id", "node %q already defined on line %d", n.ID, l)
		}
		first[n.ID] = n.Line
		out = append(out, n)
		return nil
	})
	return out, err
}

func parseNode(rw row) (Node, error) {
	n := Node{Line: rw.at.line}
	var err error
	if n.ID, err = rw.str("id", true); err != nil {
		return n, err
	}
	if reason := nameProblem(n.ID); reason != "" {
		return n, rw.at.errf("id", "%q: %s", short(n.ID), reason)
	}
	if n.Kind, err = rw.enum("kind", true); err != nil {
		return n, err
	}
	if n.Kind != snapshot.NodePassage && n.Kind != snapshot.NodeEntity {
		return n, rw.at.errf("kind", "%q: want passage or entity", short(n.Kind))
	}
	if n.Text, err = rw.str("text", true); err != nil {
		return n, err
	}
	if len(n.Text) > record.MaxContentBytes {
		return n, rw.at.errf("text", "%d bytes, limit %d", len(n.Text), record.MaxContentBytes)
	}
	if n.Writer, err = rw.enum("writer", false); err != nil {
		return n, err
	}
	if n.Writer != "" {
		if n.Kind != snapshot.NodePassage {
			return n, rw.at.errf("writer", "only passages have a writer (entities are not signed records)")
		}
		if reason := principalProblem(n.Writer); reason != "" {
			return n, rw.at.errf("writer", "%q: %s", short(n.Writer), reason)
		}
	}
	t, err := trustText(rw)
	if err != nil {
		return n, err
	}
	if t != "" {
		if n.Kind != snapshot.NodePassage {
			return n, rw.at.errf("trust", "only passages carry a trust label")
		}
		tr, ok := parseTrust(t)
		if !ok {
			return n, rw.at.errf("trust", "%q: want 0..3 or trusted, derived-trusted, derived-untrusted, external", short(t))
		}
		n.Trust = &tr
	}
	return n, nil
}

// trustText reads the trust field as text; JSONL may give it as a number.
func trustText(rw row) (string, error) {
	if c, ok := rw.get("trust"); ok && c.isJSON && !strings.HasPrefix(strings.TrimSpace(string(c.raw)), `"`) {
		v, _, err := rw.integer("trust")
		return strconv.Itoa(v), err
	}
	return rw.enum("trust", false)
}

func parseTrust(s string) (record.Trust, bool) {
	switch strings.ToLower(s) {
	case "0", "trusted":
		return record.Trusted, true
	case "1", "derived-trusted":
		return record.DerivedTrusted, true
	case "2", "derived-untrusted":
		return record.DerivedUntrusted, true
	case "3", "external":
		return record.External, true
	}
	return 0, false
}

// ReadEdges parses an edges file and checks each row on its own. Whether
// the nodes and sources it names exist is checked by Validate.
func ReadEdges(file string, r io.Reader, f Format) ([]Edge, error) {
	var out []Edge
	first := map[string]int{}
	err := readRows(file, r, f, edgeSpec, func(rw row) error {
		e, err := parseEdge(rw)
		if err != nil {
			return err
		}
		if e.ID != "" {
			if l, dup := first[e.ID]; dup {
				return rw.at.errf("id", "edge %q already defined on line %d", short(e.ID), l)
			}
			first[e.ID] = e.Line
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

func parseEdge(rw row) (Edge, error) {
	e := Edge{Line: rw.at.line}
	var err error
	if e.ID, err = rw.str("id", false); err != nil {
		return e, err
	}
	if len(e.ID) > 256 {
		return e, rw.at.errf("id", "%d bytes, limit 256", len(e.ID))
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"src", &e.Src}, {"dst", &e.Dst}} {
		if *f.dst, err = rw.str(f.name, true); err != nil {
			return e, err
		}
		if reason := nameProblem(*f.dst); reason != "" {
			return e, rw.at.errf(f.name, "%q: %s", short(*f.dst), reason)
		}
	}
	w, ok, err := rw.number("weight")
	if err != nil {
		return e, err
	}
	if !ok {
		return e, rw.at.errf("weight", "missing (required)")
	}
	if w < 0 {
		return e, rw.at.errf("weight", "%v is negative; weights are non-negative", w)
	}
	e.Weight = w
	if e.Kind, err = rw.enum("kind", false); err != nil {
		return e, err
	}
	switch e.Kind {
	case "":
		e.Kind = record.KindEdge
	case record.KindEdge, record.KindMerge, record.KindRelation:
	default:
		return e, rw.at.errf("kind", "%q: want edge, merge or relation", short(e.Kind))
	}
	if e.Rel, err = rw.str("rel", false); err != nil {
		return e, err
	}
	if e.Rel != "" {
		if reason := nameProblem(e.Rel); reason != "" {
			return e, rw.at.errf("rel", "%q: %s (relation names are printable ASCII without spaces; use _ )", short(e.Rel), reason)
		}
	}
	if e.Writer, err = rw.enum("writer", false); err != nil {
		return e, err
	}
	if e.Writer != "" {
		if reason := principalProblem(e.Writer); reason != "" {
			return e, rw.at.errf("writer", "%q: %s", short(e.Writer), reason)
		}
	}
	src, present, err := rw.list("sources")
	if err != nil {
		return e, err
	}
	if !present {
		// A forgotten column must not silently turn every write into a
		// no-source write; an explicit empty list or cell says so.
		return e, rw.at.errf("sources", "missing: give [] (or an empty CSV cell) for a no-source write")
	}
	e.Sources = src
	if e.Declared, err = rw.enum("declared", false); err != nil {
		return e, err
	}
	switch e.Declared {
	case "", LabelAuthenticated, LabelUnauthenticated:
	default:
		return e, rw.at.errf("declared", "%q: want authenticated, unauthenticated or empty", short(e.Declared))
	}
	return e, nil
}

// ReadQueries parses a queries file and checks each row on its own.
func ReadQueries(file string, r io.Reader, f Format) ([]Query, error) {
	var out []Query
	first := map[string]int{}
	err := readRows(file, r, f, querySpec, func(rw row) error {
		q, err := parseQuery(rw)
		if err != nil {
			return err
		}
		if l, dup := first[q.ID]; dup {
			return rw.at.errf("id", "query %q already defined on line %d", short(q.ID), l)
		}
		first[q.ID] = q.Line
		out = append(out, q)
		return nil
	})
	return out, err
}

func parseQuery(rw row) (Query, error) {
	q := Query{Line: rw.at.line, K: DefaultK}
	var err error
	if q.ID, err = rw.str("id", true); err != nil {
		return q, err
	}
	if len(q.ID) > 256 {
		return q, rw.at.errf("id", "%d bytes, limit 256", len(q.ID))
	}
	if q.Text, err = rw.str("text", true); err != nil {
		return q, err
	}
	k, ok, err := rw.integer("k")
	if err != nil {
		return q, err
	}
	if ok {
		if k < 1 || k > MaxK {
			return q, rw.at.errf("k", "%d is outside 1..%d", k, MaxK)
		}
		q.K = k
	}
	var present bool
	if q.Reset, present, err = rw.scores("reset"); err != nil {
		return q, err
	}
	if !present || len(q.Reset) == 0 {
		return q, rw.at.errf("reset", "missing or empty: the reset vector needs at least one node with positive mass")
	}
	sum := 0.0
	for id, v := range q.Reset {
		if v < 0 {
			return q, rw.at.errf("reset", "mass %v for %q is negative", v, short(id))
		}
		sum += v
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return q, rw.at.errf("reset", "masses sum to %v; want a positive finite total", sum)
	}
	if q.Dense, _, err = rw.scores("dense"); err != nil {
		return q, err
	}
	// Unlike sources, an empty selected cell means "not recorded".
	if _, ok := rw.get("selected"); ok {
		if q.Selected, _, err = rw.list("selected"); err != nil {
			return q, err
		}
	}
	return q, nil
}

// nameProblem and principalProblem are the record format's own rules, so
// an import fails early on what the decoder would later reject.
func nameProblem(s string) string { return record.NameProblem(s) }

func principalProblem(s string) string { return record.PrincipalProblem(s) }
