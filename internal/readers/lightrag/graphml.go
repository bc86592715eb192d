package lightrag

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
)

// GraphML is read the way LightRAG reads it: networkx.read_graphml
// (networkx/readwrite/graphml.py, GraphMLReader, networkx 3.7rc0.dev0 at
// commit cfc6b79fc53f; the rules have not changed since networkx 2.x).
// That reader builds an ElementTree and asks it for direct children in the
// GraphML namespace, so:
//
//   - only elements in the GraphML namespace count, and only where
//     GraphMLReader looks: <key> under the root, <graph> under the root,
//     <node>, <edge>, <hyperedge> and <data> under a graph, <data> under a
//     node or edge, <graph> under a yEd group node; everything else
//     (an <edge> in a foreign namespace, a <graph> nested in an ordinary
//     node) is ignored by networkx and here, with a deviation;
//   - attributes are read by their unqualified name only
//     (Element.get("source")): a namespaced x:source is another attribute;
//   - read_graphml builds every top-level graph (so an error in any of
//     them is fatal) and returns the first;
//   - a hyperedge, an edge whose directed= contradicts its graph, a data
//     element naming an undeclared key, a key of an unknown type or
//     without a name, a value its key's type cannot parse: networkx raises,
//     LightRAG cannot load the store, and memscope refuses it;
//   - a yEd group node (yfiles.foldertype="group") adds the nodes and
//     edges of its first nested graph to the same graph.
//
// Whatever nx.write_graphml (what LightRAG writes:
// lightrag/kg/networkx_impl.py NetworkXStorage.write_nx_graph) would never
// emit is reported as a Deviation even when networkx reads it.
//
// The document is streamed (encoding/xml's raw tokens, most of them read
// by a faster scanner that yields the same ones: graphmltok.go; namespaces
// resolved here), never held whole: memory is proportional to the graph kept, not
// to the XML.

// NS is the GraphML namespace networkx matches (GraphML.NS_GRAPHML).
const NS = "http://graphml.graphdrawing.org/xmlns"

// Bounds on a GraphML document.
const (
	maxDepth   = 256
	maxKeys    = 1024
	maxDataLen = 8 << 20
	maxAttrs   = 256
	// MaxGraphElements bounds the nodes and edges kept (about 250 bytes
	// each once read into the store model): 1M nodes and 5M edges fit.
	MaxGraphElements = 8_000_000
)

// Attr is one data value of a node or edge by its key's attr.name.
type Attr struct{ Name, Value string }

// Element is a GraphML node or edge with the data values that were kept.
type Element struct {
	ID, Source, Target string
	Data               []Attr
	// srcAt, dstAt: 1 + the position in Graph.Nodes of the node Source
	// (Target) names, 0 when it named none when the edge was read.
	srcAt, dstAt int32
}

// Get returns the value of the named data (the last one, as networkx's
// dict keeps the last).
func (e *Element) Get(name string) (string, bool) {
	for i := len(e.Data) - 1; i >= 0; i-- {
		if e.Data[i].Name == name {
			return e.Data[i].Value, true
		}
	}
	return "", false
}

func (e *Element) set(name, value string) {
	for i := range e.Data {
		if e.Data[i].Name == name {
			e.Data[i].Value = value
			return
		}
	}
	e.Data = append(e.Data, Attr{name, value})
}

// Deviation is something in the document nx.write_graphml never writes:
// networkx reads it as described and so does memscope, but the store is not
// what LightRAG wrote.
type Deviation struct {
	Line    int
	Subject string
	Message string
}

// Graph is a parsed GraphML graph: the first top-level graph, as
// read_graphml returns it. Nodes are in networkx's insertion order, each
// id once (a repeated node's data updates the first, as G.add_node does);
// edges in the order networkx adds them.
type Graph struct {
	Directed   bool
	Nodes      []Element
	Edges      []Element
	Deviations []Deviation
	// NoNamespace: the document had no GraphML namespace and was read as
	// read_graphml's fallback reads it (its literal "<graphml>" replaced by
	// a namespaced header).
	NoNamespace bool
	// Encoding is the encoding the document was read in, as expat takes it
	// from the first bytes and the declaration (graphmlenc.go).
	Encoding string
}

// ParseGraphML reads a whole GraphML document held in memory, keeping every
// data value.
func ParseGraphML(b []byte) (*Graph, error) {
	return ReadGraphML(strings.NewReader(string(b)), nil)
}

// ReadGraphML streams a GraphML document, keeping only the data values
// whose attr.name keep accepts (all when keep is nil). A document type
// declaration (and with it every entity definition, the means of external
// entities and billion-laughs expansion) is refused; encoding/xml expands
// no entity but the five predefined ones anyway.
func ReadGraphML(r io.Reader, keep func(name string) bool) (*Graph, error) {
	return StreamGraphML(r, keep, nil)
}

// StreamGraphML is ReadGraphML handing each edge of the graph read to edge
// as its element ends, instead of keeping it in Graph.Edges, so that a
// caller keeping less than an Element per edge holds less than the parser
// would. Edges come in document order, which is networkx's except inside
// yEd groups (a deviation). The element is the caller's to keep. On
// networkx's header fallback (a second pass) edges of the first pass were
// not handed over: there were none in the GraphML namespace.
func StreamGraphML(r io.Reader, keep func(name string) bool, edge func(*Element) error) (*Graph, error) {
	var withGraph func(*Graph, *Element) error
	if edge != nil {
		withGraph = func(_ *Graph, e *Element) error { return edge(e) }
	}
	return streamGraphML(r, keep, withGraph, streamOptions{})
}

// streamOptions say what a caller of streamGraphML asks beyond
// StreamGraphML.
type streamOptions struct {
	// nodesFirst: stop with errNodesAfterEdges at a node declared after
	// the first edge, or at a yEd group, whose nested edges networkx adds
	// out of document order, so that a caller may act on the graph's
	// nodes when the first edge comes, as it can on what nx.write_graphml
	// writes (every node, then every edge).
	nodesFirst bool
	// reuseEdges: the edge callback keeps nothing of the element it is
	// handed, so one serves every edge.
	reuseEdges bool
}

// errNodesAfterEdges: with nodesFirst, a node (or a yEd group) came after
// an edge.
var errNodesAfterEdges = errors.New("graphml: a node after an edge")

// streamGraphML is StreamGraphML, edge also getting the graph read so far
// (its nodes), with options.
func streamGraphML(r io.Reader, keep func(name string) bool, edge func(*Graph, *Element) error, o streamOptions) (*Graph, error) {
	counted := &headerCounter{r: r}
	g, err := readGraphML(counted, keep, "", edge, o)
	if err != nil {
		return nil, err
	}
	if g != nil {
		return g, nil
	}
	// read_graphml found no graph in the GraphML namespace: it replaces
	// every literal "<graphml>" by a namespaced header and reads again.
	// Replayed here as a default namespace on the second pass, which is the
	// same document only when the root start tag is that one literal.
	if counted.n != 1 || !counted.rootPlain {
		return nil, errors.New("graphml: no graph in the GraphML namespace (" + NS + "): networkx reads none (\"file not successfully read as graphml\")")
	}
	s, ok := r.(io.Seeker)
	if !ok {
		return nil, errors.New("graphml: no graph in the GraphML namespace, and the input cannot be read twice for networkx's header fallback")
	}
	if _, err := s.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("graphml: %w", err)
	}
	g, err = readGraphML(r, keep, NS, edge, o)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errors.New("graphml: no graph even after networkx's header fallback: networkx reads none")
	}
	g.NoNamespace = true
	g.Deviations = append([]Deviation{{Line: 1, Subject: "root", Message: "the root <graphml> declares no namespace: nx.write_graphml always declares " + NS + "; read as read_graphml's header fallback reads it"}}, g.Deviations...)
	return g, nil
}

// headerCounter counts the literal "<graphml>" read_graphml's fallback
// replaces, across read boundaries.
type headerCounter struct {
	r         io.Reader
	n         int
	match     int
	rootPlain bool // set by the parser: the root start tag is a plain <graphml>
}

const plainHeader = "<graphml>"

func (h *headerCounter) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	for i := 0; i < n; i++ {
		if h.match == 0 {
			// Outside a partial match only '<' can start one: skip to it.
			k := bytes.IndexByte(p[i:n], plainHeader[0])
			if k < 0 {
				break
			}
			i += k
		}
		c := p[i]
		switch {
		case c == plainHeader[h.match]:
			h.match++
		case c == plainHeader[0]:
			h.match = 1
		default:
			h.match = 0
		}
		if h.match == len(plainHeader) {
			h.n++
			h.match = 0
		}
	}
	return n, err
}

type frameKind uint8

const (
	fIgnore    frameKind = iota // a subtree GraphMLReader never looks into
	fRoot                       // the document element
	fKey                        // <key> under the root
	fKeyDef                     // <default> under a key
	fGraph                      // a graph networkx builds
	fNode                       // a node of such a graph
	fEdge                       // an edge of such a graph
	fData                       // a data element networkx decodes
	fDataChild                  // an element inside data (a yEd extension)
)

type frame struct {
	kind   frameKind
	prefix string // raw name, to match the end tag (RawToken checks nothing)
	local  string
	nsMark int // namespace bindings to pop at the end tag
	graph  *graphState
	node   int  // fNode: index into the parser's nodes, -1 when not kept
	group  bool // fNode: yfiles.foldertype="group"
	nested bool // fNode: its nested graph was met
	edge   *Element
	data   *dataState
	key    *keyDef
}

type graphState struct {
	keep     bool // part of the graph returned (the first top-level graph)
	directed bool // the top-level graph's edgedefault (a group's nested graph adds to it)
	parent   *graphState
	edges    []Element
	nested   []Element // edges of yEd group graphs, added before this graph's own
}

type dataState struct {
	owner    *Element // nil: graph-level data or not kept
	key      *keyDef
	keyID    string
	text     []byte
	children bool
	line     int
}

type keyDef struct {
	name, typ string // typ: str, int, float, bool
	line      int
	id        string
	def       *strings.Builder
	defSet    bool
}

type binding struct{ prefix, uri string }

type parser struct {
	d         *tokenizer
	keep      func(string) bool
	g         *Graph
	keys      map[string]*keyDef
	nodeIndex map[string]int
	// recent are the last two nodes knownValue found (an edge's source
	// and target), so the edge's ends need no second lookup.
	recent     [2]recentNode
	recentNext int
	keyLens    uint64 // bit n set: a key id of n bytes (n < 64) was declared
	ns         []binding
	stack      []frame
	graphs     int // top-level graphs met
	rootDone   bool
	counted    *headerCounter
	attrBuf    attrs
	onEdge     func(*Graph, *Element) error
	elements   int // nodes and edges kept
	// ends of edges no node had declared when the edge came (in order)
	early   []string
	opts    streamOptions
	edgeMet bool // a kept edge was met
	edgeBuf Element
	dataBuf dataState
}

func readGraphML(r io.Reader, keep func(string) bool, defaultNS string, edge func(*Graph, *Element) error, o streamOptions) (*Graph, error) {
	// The tokenizer reads UTF-8: the document's own encoding is decoded
	// first, as expat decodes it (graphmlenc.go).
	text, enc, err := graphmlText(r)
	if err != nil {
		return nil, fmt.Errorf("graphml: %w", err)
	}
	p := &parser{d: newTokenizer(text, tokBuffer, tokMaxScan), keep: keep, g: &Graph{}, keys: map[string]*keyDef{}, nodeIndex: map[string]int{}, onEdge: edge, opts: o}
	p.d.value = p.knownValue
	p.counted, _ = r.(*headerCounter)
	if defaultNS != "" {
		p.ns = append(p.ns, binding{"", defaultNS})
	}
	for {
		tok, err := p.d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("graphml: %w", err)
		}
		if err := p.token(tok); err != nil {
			return nil, err
		}
	}
	if len(p.stack) != 0 {
		return nil, fmt.Errorf("graphml: line %d: the document ends inside <%s>", p.line(), p.stack[len(p.stack)-1].local)
	}
	if !p.rootDone {
		return nil, errors.New("graphml: no root element")
	}
	if p.graphs == 0 {
		return nil, nil
	}
	p.implicitNodes()
	if p.graphs > 1 {
		p.dev("document", fmt.Sprintf("%d top-level graphs: networkx builds them all and returns the first; only the first is read (nx.write_graphml writes one)", p.graphs))
	}
	p.g.Encoding = enc
	return p.g, nil
}

// implicitNodes adds the ends of edges that no node declares, as
// networkx's add_edges_from does (a node without data).
func (p *parser) implicitNodes() {
	for _, end := range p.early {
		if _, ok := p.nodeIndex[end]; ok {
			continue
		}
		p.nodeIndex[end] = len(p.g.Nodes)
		p.g.Nodes = append(p.g.Nodes, Element{ID: end})
		p.g.Deviations = append(p.g.Deviations, Deviation{Subject: "edge end " + end,
			Message: fmt.Sprintf("endpoint \"%s\" is not a declared node: networkx adds it as a node without data, and so does memscope", end)})
	}
}

func (p *parser) line() int {
	return p.d.Line()
}

func (p *parser) dev(subject, msg string) {
	p.g.Deviations = append(p.g.Deviations, Deviation{Line: p.line(), Subject: subject, Message: msg})
}

func (p *parser) errf(format string, a ...any) error {
	return fmt.Errorf("graphml: line %d: "+format, append([]any{p.line()}, a...)...)
}

func (p *parser) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.Directive:
		return p.errf("a <!DOCTYPE> or other declaration is refused (entities could expand or reach outside the file; networkx writes none)")
	case *xml.StartElement:
		return p.start(*t)
	case *xml.EndElement:
		return p.end(*t)
	case *xml.CharData:
		return p.chars(*t)
	}
	return nil
}

func (p *parser) chars(t []byte) error {
	if len(p.stack) == 0 {
		if len(bytes.TrimSpace(t)) != 0 {
			return p.errf("text outside the document element (not well-formed XML: expat, which networkx uses, refuses it)")
		}
		return nil
	}
	if f := &p.stack[len(p.stack)-1]; f.kind == fData && !f.data.children {
		if len(f.data.text)+len(t) > maxDataLen {
			return p.errf("a data value exceeds %d bytes", maxDataLen)
		}
		if f.data.owner != nil || f.data.key.typ != "str" {
			f.data.text = append(f.data.text, t...)
		}
	} else if f.kind == fKeyDef {
		if f.key.def.Len()+len(t) > maxDataLen {
			return p.errf("a key default exceeds %d bytes", maxDataLen)
		}
		f.key.def.Write(t)
	}
	return nil
}

// resolve returns the namespace of a prefix in scope; ok is false for an
// unbound prefix (expat refuses the document).
func (p *parser) resolve(prefix string) (string, bool) {
	if prefix == "xml" {
		return "http://www.w3.org/XML/1998/namespace", true
	}
	for i := len(p.ns) - 1; i >= 0; i-- {
		if p.ns[i].prefix == prefix {
			return p.ns[i].uri, true
		}
	}
	return "", prefix == ""
}

// attrs are an element's unqualified attributes: what ElementTree's
// get(name) reads.
type attrs []xml.Attr

func (a attrs) get(name string) (string, bool) {
	for _, x := range a {
		if x.Name.Local == name {
			return x.Value, true
		}
	}
	return "", false
}

func (a attrs) str(name string) string {
	v, _ := a.get(name)
	return v
}

// plainAttrs binds the element's namespace declarations and returns its
// unqualified attributes. An attribute given twice, or a prefix not bound,
// makes the document not well-formed for expat: refused.
func (p *parser) plainAttrs(t xml.StartElement) (attrs, error) {
	if len(t.Attr) > maxAttrs {
		return nil, p.errf("<%s> has more than %d attributes", t.Name.Local, maxAttrs)
	}
	plain := p.attrBuf[:0]
	for i, a := range t.Attr {
		for _, b := range t.Attr[:i] {
			if b.Name == a.Name {
				return nil, p.errf("<%s> repeats attribute \"%s\" (not well-formed XML: networkx's parser refuses it)", t.Name.Local, qname(a.Name))
			}
		}
		switch {
		case a.Name.Space == "xmlns":
			p.ns = append(p.ns, binding{a.Name.Local, a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			p.ns = append(p.ns, binding{"", a.Value})
		case a.Name.Space == "":
			plain = append(plain, a)
		}
	}
	for _, a := range t.Attr {
		if a.Name.Space != "" && a.Name.Space != "xmlns" {
			if _, ok := p.resolve(a.Name.Space); !ok {
				return nil, p.errf("attribute \"%s\" uses an unbound prefix (not well-formed XML)", qname(a.Name))
			}
		}
	}
	p.attrBuf = plain
	return plain, nil
}

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func (p *parser) start(t xml.StartElement) error {
	if p.rootDone {
		return p.errf("a second document element <%s> (not well-formed XML)", t.Name.Local)
	}
	if len(p.stack) >= maxDepth {
		return p.errf("elements nest deeper than %d", maxDepth)
	}
	mark := len(p.ns)
	at, err := p.plainAttrs(t)
	if err != nil {
		return err
	}
	space, ok := p.resolve(t.Name.Space)
	if !ok {
		return p.errf("element <%s> uses an unbound prefix (not well-formed XML)", qname(t.Name))
	}
	inNS := space == NS
	f := frame{kind: fIgnore, prefix: t.Name.Space, local: t.Name.Local, nsMark: mark, node: -1}
	if len(p.stack) == 0 {
		f.kind = fRoot
		if p.counted != nil && t.Name.Space == "" && t.Name.Local == "graphml" && len(t.Attr) == 0 {
			p.counted.rootPlain = true
		}
		if !inNS || t.Name.Local != "graphml" {
			p.dev("root", fmt.Sprintf("the document element is <%s> in namespace \"%s\", not <graphml> in %s: networkx does not check it and reads the graphs under it", t.Name.Local, space, NS))
		}
		p.stack = append(p.stack, f)
		return nil
	}
	parent := &p.stack[len(p.stack)-1]
	if err := p.child(parent, &f, t, at, inNS); err != nil {
		return err
	}
	if f.kind != fIgnore && f.kind != fDataChild {
		for _, a := range t.Attr {
			if a.Name.Space != "" && a.Name.Space != "xmlns" {
				p.dev(t.Name.Local, fmt.Sprintf("a namespaced attribute %s=\"%s\": networkx reads only unqualified attributes and ignores it; so does memscope", qname(a.Name), clip(a.Value)))
			}
		}
	}
	p.stack = append(p.stack, f)
	return nil
}

// child decides what a start element is to GraphMLReader given its parent.
func (p *parser) child(parent, f *frame, t xml.StartElement, at attrs, inNS bool) error {
	name := t.Name.Local
	switch parent.kind {
	case fRoot:
		switch {
		case inNS && name == "key":
			return p.key(f, at)
		case inNS && name == "graph":
			p.graphs++
			f.kind, f.graph = fGraph, &graphState{keep: p.graphs == 1, directed: at.str("edgedefault") == "directed"}
			if p.graphs == 1 {
				switch at.str("edgedefault") {
				case "directed":
					p.g.Directed = true
					p.dev("graph", "edgedefault=\"directed\": LightRAG writes an undirected graph; read as a directed graph as networkx does")
				case "undirected":
				default:
					p.dev("graph", fmt.Sprintf("edgedefault=\"%s\" (absent or unknown): nx.write_graphml writes \"undirected\" or \"directed\"; networkx reads an undirected graph", at.str("edgedefault")))
				}
			}
		default:
			p.ignored(t, inNS, "the document element")
		}
	case fKey:
		if inNS && name == "default" {
			f.kind, f.key = fKeyDef, parent.key
			parent.key.defSet = true
			parent.key.def = &strings.Builder{}
		}
	case fGraph:
		switch {
		case inNS && name == "hyperedge":
			return p.errf("a <hyperedge>: networkx raises \"GraphML reader doesn't support hyperedges\", so LightRAG cannot load this store")
		case inNS && name == "node":
			return p.node(parent.graph, f, at)
		case inNS && name == "edge":
			return p.edge(parent.graph, f, at)
		case inNS && name == "data":
			return p.data(f, nil, at)
		default:
			p.ignored(t, inNS, "a graph")
		}
	case fNode, fEdge:
		switch {
		case inNS && name == "data":
			owner := parent.edge
			if parent.kind == fNode {
				owner = nil
				if parent.node >= 0 {
					owner = &p.g.Nodes[parent.node]
				}
			}
			return p.data(f, owner, at)
		case inNS && name == "graph" && parent.kind == fNode && parent.group && !parent.nested:
			parent.nested = true
			outer := p.enclosingGraph()
			f.kind, f.graph = fGraph, &graphState{keep: outer.keep, directed: outer.directed, parent: outer}
			p.dev("node "+p.nodeID(parent), "a yEd group node: networkx adds the nodes and edges of its nested graph to the graph, and so does memscope (nx.write_graphml writes no nesting)")
		case inNS && name == "graph" && parent.kind == fNode:
			p.dev("node "+p.nodeID(parent), "a <graph> nested in a node that is not a yEd group (yfiles.foldertype=\"group\"), or a second one: networkx ignores it and everything in it; not read")
		case inNS && name == "port":
			p.dev(parent.local, "a <port>: networkx warns \"GraphML port tag not supported\" and ignores it")
		default:
			p.ignored(t, inNS, "a "+parent.local)
		}
	case fData, fDataChild:
		f.kind = fDataChild
		if parent.kind == fData {
			parent.data.children = true
		}
	}
	return nil
}

// ignored reports an element GraphMLReader never looks at, when it is one
// a naive reader would take for GraphML.
func (p *parser) ignored(t xml.StartElement, inNS bool, where string) {
	switch t.Name.Local {
	case "graph", "node", "edge", "data", "key", "hyperedge":
		if inNS {
			p.dev(t.Name.Local, fmt.Sprintf("a <%s> directly under %s: networkx does not look for it there and ignores it; not read", t.Name.Local, where))
		} else {
			p.dev(t.Name.Local, fmt.Sprintf("a <%s> outside the GraphML namespace (prefix \"%s\") under %s: networkx ignores it; not read", t.Name.Local, t.Name.Space, where))
		}
	}
}

func (p *parser) enclosingGraph() *graphState {
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].kind == fGraph {
			return p.stack[i].graph
		}
	}
	return nil
}

func (p *parser) nodeID(f *frame) string {
	if f.node >= 0 {
		return p.g.Nodes[f.node].ID
	}
	return "(not kept)"
}

// pyStr is Python's str() of an attribute ElementTree's get returned:
// a missing attribute is None.
func pyStr(at attrs, name string) (string, bool) {
	v, ok := at.get(name)
	if !ok {
		return "None", false
	}
	return v, true
}

func (p *parser) key(f *frame, at attrs) error {
	if p.graphs > 0 {
		// networkx reads every key before any graph; a key after a graph
		// could rename data already streamed past. write_graphml writes
		// keys first.
		return p.errf("a <key> after a <graph>: memscope reads keys first, as nx.write_graphml writes them; refused")
	}
	if len(p.keys) >= maxKeys {
		return p.errf("more than %d keys", maxKeys)
	}
	id, _ := pyStr(at, "id")
	k := &keyDef{id: id, line: p.line(), typ: "str"}
	name, hasName := at.get("attr.name")
	typ, hasType := at.get("attr.type")
	if yt, ok := at.get("yfiles.type"); ok {
		name, hasName, typ, hasType = yt, true, "yfiles", true
		p.dev("key "+id, "a yEd yfiles.type key: networkx names its data after the yfiles type")
	}
	if !hasType {
		typ = "string"
		p.dev("key "+id, "no attr.type: networkx warns and reads it as a string")
	}
	if !hasName {
		return p.errf("key \"%s\" has no attr.name: networkx raises \"Unknown key\"", id)
	}
	switch typ {
	case "string", "yfiles":
	case "int", "long", "integer":
		k.typ = "int"
	case "float", "double":
		k.typ = "float"
	case "boolean":
		k.typ = "bool"
	default:
		return p.errf("key \"%s\" has attr.type \"%s\", which networkx does not know (it raises)", id, typ)
	}
	k.name = name
	if _, dup := p.keys[id]; dup {
		p.dev("key "+id, "key id declared twice: networkx keeps the last declaration")
	}
	p.keys[id] = k
	if len(id) < 64 {
		p.keyLens |= 1 << len(id)
	}
	f.kind, f.key = fKey, k
	return nil
}

func (p *parser) node(gs *graphState, f *frame, at attrs) error {
	id, ok := pyStr(at, "id")
	if !ok {
		p.dev("node", "a node without an id: networkx names it \"None\"")
	}
	f.kind = fNode
	f.group = at.str("yfiles.foldertype") == "group"
	if !gs.keep {
		return nil
	}
	if p.opts.nodesFirst && (p.edgeMet || f.group) {
		return errNodesAfterEdges
	}
	if i, dup := p.nodeIndex[id]; dup {
		f.node = i
		p.dev("node "+id, "the node is written twice: networkx merges the second's data into the first; so does memscope")
		return nil
	}
	f.node = len(p.g.Nodes)
	p.nodeIndex[id] = f.node
	if p.elements++; p.elements > MaxGraphElements {
		return p.errf("more than %d nodes and edges: refused (memory is bounded by the graph kept)", MaxGraphElements)
	}
	p.g.Nodes = append(p.g.Nodes, Element{ID: id})
	return nil
}

func (p *parser) edge(gs *graphState, f *frame, at attrs) error {
	switch d := at.str("directed"); {
	case d == "false" && gs.directed:
		return p.errf("edge %s -- %s: directed=\"false\" in a directed graph: networkx raises, so LightRAG cannot load this store", at.str("source"), at.str("target"))
	case d == "true" && !gs.directed:
		return p.errf("edge %s -- %s: directed=\"true\" in an undirected graph: networkx raises, so LightRAG cannot load this store", at.str("source"), at.str("target"))
	case d != "" && gs.keep:
		p.dev("edge", "a per-edge directed attribute: nx.write_graphml writes none")
	}
	src, okS := pyStr(at, "source")
	dst, okT := pyStr(at, "target")
	if !okS || !okT {
		p.dev(fmt.Sprintf("edge %s -- %s", src, dst), "an edge without an unqualified source or target attribute: networkx names the missing end \"None\"")
	}
	f.kind = fEdge
	si, okSi := p.nodeAt(src)
	di, okDi := p.nodeAt(dst)
	if gs.keep {
		p.edgeMet = true
		if p.elements++; p.elements > MaxGraphElements {
			return p.errf("more than %d nodes and edges: refused (memory is bounded by the graph kept)", MaxGraphElements)
		}
		for _, end := range [2]struct {
			id string
			ok bool
		}{{src, okSi}, {dst, okDi}} {
			if !end.ok {
				p.early = append(p.early, end.id)
			}
		}
	}
	var e *Element
	if p.opts.reuseEdges {
		p.edgeBuf = Element{Data: p.edgeBuf.Data[:0]}
		e = &p.edgeBuf
	} else {
		e = &Element{}
	}
	e.Source, e.Target = src, dst
	if okSi {
		e.Source, e.srcAt = p.g.Nodes[si].ID, int32(si+1)
	}
	if okDi {
		e.Target, e.dstAt = p.g.Nodes[di].ID, int32(di+1)
	}
	if id, ok := at.get("id"); ok {
		e.ID = id
	}
	f.edge = e
	return nil
}

// knownValue is the string the document already holds for an attribute
// value that names a key or a node, so that a million edges naming them
// allocate nothing for it.
func (p *parser) knownValue(b []byte) (string, bool) {
	// Only a value as long as some key id can be one.
	if n := len(b); n >= 64 || p.keyLens&(1<<n) != 0 {
		if k, ok := p.keys[string(b)]; ok {
			return k.id, true
		}
	}
	if i, ok := p.nodeIndex[string(b)]; ok {
		id := p.g.Nodes[i].ID
		p.recent[p.recentNext] = recentNode{id: id, at: i + 1}
		p.recentNext ^= 1
		return id, true
	}
	return "", false
}

type recentNode struct {
	id string
	at int // 1 + position in Graph.Nodes; 0: none
}

// nodeAt is the position of the node named id, looked up in recent first
// (the comparison of a string knownValue returned with itself stops at
// its pointer). nodeIndex only grows, so a recent position stays right.
func (p *parser) nodeAt(id string) (int, bool) {
	for _, r := range p.recent {
		if r.at > 0 && r.id == id {
			return r.at - 1, true
		}
	}
	i, ok := p.nodeIndex[id]
	return i, ok
}

func (p *parser) data(f *frame, owner *Element, at attrs) error {
	id, _ := pyStr(at, "key")
	k, ok := p.keys[id]
	if !ok {
		return p.errf("data names undeclared key \"%s\": networkx raises \"Bad GraphML data: no key\", so LightRAG cannot load this store", id)
	}
	if owner != nil && p.keep != nil && !p.keep(k.name) {
		owner = nil
	}
	// One data element is open at a time (one inside another is a yEd
	// extension's child, not a data element): its state is reused.
	p.dataBuf = dataState{owner: owner, key: k, keyID: id, line: p.line(), text: p.dataBuf.text[:0]}
	f.kind, f.data = fData, &p.dataBuf
	return nil
}

func (p *parser) end(t xml.EndElement) error {
	if len(p.stack) == 0 {
		return p.errf("unexpected end tag </%s>", t.Name.Local)
	}
	f := p.stack[len(p.stack)-1]
	if f.prefix != t.Name.Space || f.local != t.Name.Local {
		return p.errf("element <%s> closed by </%s>", f.local, t.Name.Local)
	}
	p.stack = p.stack[:len(p.stack)-1]
	p.ns = p.ns[:f.nsMark]
	switch f.kind {
	case fRoot:
		p.rootDone = true
	case fKey:
		if f.key.defSet {
			if _, err := convert(f.key.typ, f.key.def.String()); err != nil {
				return fmt.Errorf("graphml: line %d: key \"%s\" default: %v: networkx raises", f.key.line, f.key.id, err)
			}
		}
	case fData:
		return p.endData(f.data)
	case fEdge:
		gs := p.enclosingGraph()
		switch {
		case gs.keep && p.onEdge != nil:
			if err := p.onEdge(p.g, f.edge); err != nil {
				return err
			}
		case gs.keep:
			gs.edges = append(gs.edges, *f.edge)
		}
	case fNode:
		if f.group && !f.nested {
			return p.errf("yEd group node \"%s\" holds no nested <graph>: networkx fails on it", p.nodeID(&f))
		}
	case fGraph:
		p.endGraph(f.graph)
	}
	return nil
}

// endGraph orders a graph's edges as make_graph adds them: a yEd group's
// nested graph is built while its group node is added, so before any edge
// of the enclosing graph.
func (p *parser) endGraph(gs *graphState) {
	if !gs.keep {
		return
	}
	edges := gs.edges
	if len(gs.nested) > 0 {
		edges = append(gs.nested, gs.edges...)
	}
	if gs.parent != nil {
		gs.parent.nested = append(gs.parent.nested, edges...)
		return
	}
	p.g.Edges = edges
}

func (p *parser) endData(ds *dataState) error {
	if ds.children {
		// networkx takes a yEd extension's label, geometry and shape under
		// other names and never stores the key's own name.
		p.dev("data key "+ds.keyID, "data with child elements (a yEd extension): networkx reads only its label, position and shape; not read")
		return nil
	}
	if ds.owner == nil && ds.key.typ == "str" {
		return nil // not kept, and a str never fails to convert
	}
	text := string(ds.text)
	v, err := convert(ds.key.typ, text)
	if err != nil {
		return fmt.Errorf("graphml: line %d: data for key \"%s\" (%s): %v: networkx raises, so LightRAG cannot load this store", ds.line, ds.keyID, ds.key.name, err)
	}
	if ds.owner != nil {
		ds.owner.set(ds.key.name, v)
	}
	return nil
}

// convert is what GraphMLReader.decode_data_elements does to a data text
// with its key's Python type: str, int(), float(), or convert_bool of the
// lowered text. An empty element is "" whatever the type (ElementTree's
// text is None). Numbers are returned in Go's shortest form. Python's int()
// and float() also take underscores between digits and non-ASCII decimal
// digits; memscope takes the underscores and refuses the other digits.
func convert(typ, text string) (string, error) {
	if text == "" || typ == "str" {
		return text, nil
	}
	switch typ {
	case "bool":
		switch strings.ToLower(text) {
		case "true", "1":
			return "True", nil
		case "false", "0":
			return "False", nil
		}
		return "", fmt.Errorf("\"%s\" is not a boolean networkx knows", clip(text))
	case "int":
		s, err := pyNumber(text)
		if err == nil {
			s = strings.TrimPrefix(s, "+")
			if t := strings.TrimPrefix(s, "-"); t == "" || strings.Trim(t, "0123456789") != "" {
				err = fmt.Errorf("\"%s\" is not an integer", clip(text))
			}
		}
		return s, err
	case "float":
		s, err := pyNumber(text)
		if err != nil {
			return "", err
		}
		if strings.ContainsAny(s, "xXpP") {
			return "", fmt.Errorf("\"%s\" is not a Python float", clip(text))
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return "", fmt.Errorf("\"%s\" is not a Python float", clip(text))
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return text, nil
}

// pyNumber strips surrounding whitespace and the underscores Python allows
// between two digits.
func pyNumber(text string) (string, error) {
	s := strings.TrimSpace(text)
	plain := true // most numbers: nothing to strip, nothing to refuse
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] != '_' && s[i] < 0x80
	}
	if plain {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return "", fmt.Errorf("\"%s\" has non-ASCII characters in a number (Python may read them as digits; memscope refuses)", clip(text))
		}
		if c == '_' {
			if i == 0 || i+1 >= len(s) || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
				return "", fmt.Errorf("\"%s\" is not a number", clip(text))
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func clip(s string) string { return finding.Clip(s, 40) }

// value is Get without the presence flag.
func (e *Element) value(name string) string {
	v, _ := e.Get(name)
	return v
}
