package lightrag

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// build turns the GraphML graph into the store's nodes and edges: the
// listed chunks (sorted, for a stable node order), then the graph's nodes
// in file order with their chunk joins, then the graph's edges in file
// order. On what nx.write_graphml writes (every node before any edge) it
// runs while the file streams, each edge going straight into the store;
// otherwise over the whole parsed graph. Both orders give the same store,
// issues included (they are kept apart until the graph's own deviations,
// which come first, are known).
type build struct {
	st                      *storemodel.Store
	gpath                   string
	chunks, chunkDoc, canon map[string]string
	docs                    *docTables
	nodes                   map[string]int32 // store node ids -> position
	// graphPos is b.nodes of each graph node's id at begin (-1: none),
	// by position in Graph.Nodes: an edge end the parser found needs no
	// lookup by string.
	graphPos []int32
	// The pair ids used: by node positions where that is exact (pairKey),
	// as strings otherwise.
	pairKeys               map[uint64]struct{}
	pairs                  map[string]bool
	lists                  sourceLists
	nodeIssues, edgeIssues []storemodel.Issue
	begun                  bool
	entities               int // graph nodes added
	edges                  int // graph edges met (valid or not)
}

// passages adds the listed chunks as passage nodes.
func (b *build) passages(graphNodes int) {
	ids := make([]string, 0, len(b.chunks))
	for id := range b.chunks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	b.nodes = make(map[string]int32, len(ids)+graphNodes)
	scratch := &storemodel.Store{Root: b.st.Root} // collects the issues
	for _, id := range ids {
		b.nodes[id] = int32(len(b.st.Nodes))
		b.st.Nodes = append(b.st.Nodes, storemodel.Node{ID: id, Kind: storemodel.KindPassage, Label: b.chunks[id], Listed: b.docs.explains(id, b.chunkDoc[id], scratch)})
	}
	b.docs.missingChunks(b.chunks, scratch)
	b.nodeIssues = append(b.nodeIssues, scratch.Issues...)
}

// begin adds the passages and the graph nodes met so far, sizing the
// store's edges for their joins and about edgeHint graph edges. Its
// caller sets begun (the streaming build runs it on the edges' goroutine).
func (b *build) begin(g *Graph, edgeHint int) {
	b.passages(len(g.Nodes))
	joins := 0
	for i := range g.Nodes {
		joins += strings.Count(g.Nodes[i].value("source_id"), Sep) + 1
	}
	b.st.Edges = slices.Grow(b.st.Edges, joins+edgeHint)
	b.pairKeys = make(map[uint64]struct{}, joins+edgeHint)
	b.pairs = map[string]bool{}
	b.addNodes(g)
	b.graphPos = make([]int32, len(g.Nodes))
	for i := range g.Nodes {
		pos, ok := b.nodes[g.Nodes[i].ID]
		if !ok {
			pos = -1
		}
		b.graphPos[i] = pos
	}
	// The nodes' data (source_id, created_at) are in the store now; the
	// parser only needs their ids from here on (a node repeated later,
	// whose data would merge, stops the streaming order).
	for i := range g.Nodes {
		g.Nodes[i].Data = nil
	}
}

// addNodes adds the graph nodes not added yet, with their chunk joins.
func (b *build) addNodes(g *Graph) {
	b.st.Nodes = slices.Grow(b.st.Nodes, len(g.Nodes)-b.entities)
	for _, n := range g.Nodes[b.entities:] {
		if _, dup := b.nodes[n.ID]; n.ID == "" || dup {
			b.nodeIssues = append(b.nodeIssues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: b.gpath, Subject: "node " + n.ID, Message: "empty id, or the id of a chunk; skipped"})
			continue
		}
		b.nodes[n.ID] = int32(len(b.st.Nodes))
		b.st.Nodes = append(b.st.Nodes, storemodel.Node{ID: n.ID, Kind: storemodel.KindEntity, Label: n.ID, CreatedAt: n.value("created_at")})
		for _, c := range split(n.value("source_id")) {
			if _, ok := b.canon[c]; !ok {
				b.nodeIssues = append(b.nodeIssues, storemodel.Issue{Code: finding.SourceMissing, File: b.gpath, Subject: "node " + n.ID,
					Message: fmt.Sprintf("source_id names chunk \"%s\", which is not in %s; no join", c, chunksFile)})
				continue
			}
			id := storemodel.PairID(c, n.ID)
			if !b.used(c, n.ID, id) {
				b.st.Edges = append(b.st.Edges, storemodel.Edge{ID: id, Src: b.canon[c], Dst: n.ID, Weight: 1, Parts: 1, Kind: storemodel.EdgePassage, Sources: b.lists.of(b.canon[c]), Expected: 1})
			}
		}
	}
	b.entities = len(g.Nodes)
}

// isNode says whether an edge end is a node of the store. An end that
// names no node now but is not empty is one the parser adds at the end (a
// node networkx's add_edge creates, or a node declared later, which the
// streaming order refuses): every other graph node, empty ids aside, is a
// store node by then. found says whether b.nodes has it.
func isNode(end string, found bool) bool {
	return found || end != ""
}

// plainID says whether an id can only ever be read back from a pair id
// "A--B" as itself: no "--", no '-' at either end, no '#' (the mark of a
// repeated pair's id). Then "A--B" of two plain ids is no other pair's id,
// repeated or not, and the pair can be tracked by its node positions.
func plainID(s string) bool {
	return s != "" && s[0] != '-' && s[len(s)-1] != '-' && !strings.Contains(s, "--") && strings.IndexByte(s, '#') < 0
}

// used records the pair id of a--b (id) and says whether it was used
// before.
func (b *build) used(a, c, id string) bool {
	i, okA := b.nodes[a]
	j, okC := b.nodes[c]
	return b.usedAt(a, c, id, i, okA, j, okC)
}

// usedAt is used with a's and c's positions looked up already (ok: found).
func (b *build) usedAt(a, c, id string, i int32, okA bool, j int32, okC bool) bool {
	if !okA || !okC || !plainID(a) || !plainID(c) {
		seen := b.pairs[id]
		b.pairs[id] = true
		return seen
	}
	k := uint64(uint32(min(i, j)))<<32 | uint64(uint32(max(i, j)))
	_, seen := b.pairKeys[k]
	b.pairKeys[k] = struct{}{}
	return seen
}

// nodeOf is b.nodes[id], through graphPos when at (1 + the position in
// Graph.Nodes of the node named id) is known.
func (b *build) nodeOf(id string, at int32) (int32, bool) {
	if at > 0 && int(at) <= len(b.graphPos) {
		pos := b.graphPos[at-1]
		return pos, pos >= 0
	}
	pos, ok := b.nodes[id]
	return pos, ok
}

// edge adds a graph edge.
func (b *build) edge(e *rawEdge) {
	i := b.edges
	b.edges++
	subject := func() string { return "edge " + e.src + " -- " + e.dst } // only for an issue
	// Each end is looked up once, for isNode and usedAt.
	ia, okA := b.nodeOf(e.src, e.srcAt)
	ic, okC := b.nodeOf(e.dst, e.dstAt)
	if !isNode(e.src, okA) || !isNode(e.dst, okC) {
		b.edgeIssues = append(b.edgeIssues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: b.gpath, Subject: subject(), Message: "an endpoint is a skipped node; skipped"})
		return
	}
	if e.badWeight != "" {
		b.edgeIssues = append(b.edgeIssues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: b.gpath, Subject: subject() + ", field weight", Message: fmt.Sprintf("\"%s\" is not a finite non-negative number; skipped", e.badWeight)})
		return
	}
	w := e.weight
	id := storemodel.PairID(e.src, e.dst)
	if b.usedAt(e.src, e.dst, id, ia, okA, ic, okC) {
		id = fmt.Sprintf("%s#%d", id, i)
		b.pairs[id] = true
	}
	ed := storemodel.Edge{ID: id, Src: e.src, Dst: e.dst, Weight: w, Parts: 1, Kind: storemodel.EdgeRelation, CreatedAt: e.createdAt}
	ed.Sources = b.lists.split(e.sourceID, b.canon)
	for _, c := range ed.Sources {
		if _, ok := b.canon[c]; !ok {
			b.edgeIssues = append(b.edgeIssues, storemodel.Issue{Code: finding.SourceMissing, File: b.gpath, Subject: subject(),
				Message: fmt.Sprintf("source_id names chunk \"%s\", which is not in %s", c, chunksFile)})
		}
	}
	if len(ed.Sources) == 0 {
		ed.Kind = storemodel.EdgeUnexplained
		b.edgeIssues = append(b.edgeIssues, storemodel.Issue{Code: finding.StoreEdgeUnexplained, File: b.gpath, Subject: subject(),
			Message: fmt.Sprintf("weight %g, empty source_id: a no-source write", w)})
	}
	b.st.Edges = append(b.st.Edges, ed)
}

// finish adds what the parse left (the nodes networkx adds for edge ends
// no node declares, or everything when no edge streamed) and the issues
// in the order a whole-graph pass finds them.
func (b *build) finish(g *Graph) {
	if !b.begun {
		b.begun = true
		b.begin(g, 0)
	}
	b.addNodes(g)
	b.st.Issues = append(append(b.st.Issues, b.nodeIssues...), b.edgeIssues...)
}

// streamGraph builds the store while the GraphML file streams. It returns
// errNodesAfterEdges (wrapped) when the file declares a node after an
// edge; the store is then to be built again by readGraph's whole pass.
// The parse and the edges' build run on two goroutines (edgePipe), in
// file order, so the two halves of the open can use two cores.
func (b *build) streamGraph(ctx context.Context) (*Graph, error) {
	// The edges are counted while the nodes are parsed; the count is
	// needed at the first edge, and its error wins as when it ran first.
	type count struct {
		n   int
		err error
	}
	counted := make(chan count, 1)
	go func() {
		n, err := countEdgeTags(ctx, b.gpath)
		counted <- count{n, err}
	}()
	var hint *count
	waitHint := func() *count {
		if hint == nil {
			c := <-counted
			hint = &c
		}
		return hint
	}
	pipe := newEdgePipe(b)
	g, err := readGraph(ctx, b.gpath, b.st, streamOptions{nodesFirst: true, reuseEdges: true}, func(g *Graph, e *Element) error {
		if !b.begun {
			// The builder adds the nodes before any edge, while the
			// parser goes on with the edges. It sees the nodes met so
			// far: the parser adds none from here on but the ends no
			// node declares, at the end (implicitNodes), past these.
			b.begun = true
			nodes := &Graph{Nodes: g.Nodes[:len(g.Nodes):len(g.Nodes)]}
			pipe.start(func() { b.begin(nodes, waitHint().n) })
		}
		pipe.send(newRawEdge(e))
		return nil
	})
	pipe.wait()
	if c := waitHint(); c.err != nil {
		return nil, c.err
	}
	if err != nil {
		return nil, err
	}
	b.finish(g)
	return g, nil
}

// edgePipe hands the parsed edges, in batches, to one goroutine that adds
// them to the store in the order sent. Only that goroutine touches the
// build's edge state (edges, pairs, pairKeys, edgeIssues, st.Edges) until
// wait returns; the parser keeps to its own (the graph, nodeIssues).
type edgePipe struct {
	b          *build
	batch      []rawEdge
	full, free chan []rawEdge
	done       chan struct{}
	first      func() // run before the first batch
}

// pipeBatch edges go over the channel at a time, with up to pipeDepth
// batches in flight: while the builder adds the nodes (4 CPU-s at 1M
// nodes) the parser reads about a million edges ahead (1M nodes, 5M
// edges: 0.26M edges, some 35 MB).
const (
	pipeBatch = 4096
	pipeDepth = 64
)

func newEdgePipe(b *build) *edgePipe {
	p := &edgePipe{b: b, full: make(chan []rawEdge, pipeDepth), free: make(chan []rawEdge, pipeDepth+2), done: make(chan struct{})}
	p.batch = make([]rawEdge, 0, pipeBatch)
	go p.run()
	return p
}

// start has the builder run f before any edge, and starts it now.
func (p *edgePipe) start(f func()) {
	p.first = f
	p.flush()
}

func (p *edgePipe) flush() {
	p.full <- p.batch
	select {
	case p.batch = <-p.free:
	default:
		p.batch = make([]rawEdge, 0, pipeBatch)
	}
}

func (p *edgePipe) run() {
	defer close(p.done)
	for es := range p.full {
		if p.first != nil {
			p.first()
			p.first = nil
		}
		for i := range es {
			p.b.edge(&es[i])
			if p.b.edges%collectEvery == 0 {
				// The store's edges were sized at the first edge, so the
				// collector's pacing counts them whole from the start and
				// would let the parse's garbage grow to about their size
				// before collecting: collect every so many edges instead.
				runtime.GC()
			}
		}
		clear(es) // let the strings go
		select {
		case p.free <- es[:0]:
		default:
		}
	}
}

func (p *edgePipe) send(e rawEdge) {
	p.batch = append(p.batch, e)
	if len(p.batch) == pipeBatch {
		p.flush()
	}
}

// wait sends what is left and waits until every edge is in the store.
func (p *edgePipe) wait() {
	if len(p.batch) > 0 {
		p.full <- p.batch
	}
	close(p.full)
	<-p.done
}

// collectEvery edges the streaming build collects garbage (a few hundred
// bytes of it an edge). Every 2^19 keeps 1M nodes and 5M edges at 1.73 GB
// (every 2^18: 1.67 GB for 16% more CPU in the open; every 2^20 was over
// 2 GB before the text scan stopped building a string per edge:
// docs/performance-history.md).
const collectEvery = 1 << 19

// wholeGraph builds the store after the whole graph is read, its edges
// kept compactly meanwhile.
func (b *build) wholeGraph(ctx context.Context) (*Graph, error) {
	edges := &rawEdges{}
	g, err := readGraph(ctx, b.gpath, b.st, streamOptions{reuseEdges: true}, func(_ *Graph, e *Element) error {
		r := newRawEdge(e)
		// The stored source_id is most often one chunk's id: keep the
		// chunk table's string and let the parsed copy go.
		if c, ok := b.canon[r.sourceID]; ok {
			r.sourceID = c
		}
		edges.add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.begun = true
	b.begin(g, edges.n)
	for i := 0; i < edges.n; i++ {
		if i > 0 {
			edges.done(i - 1)
		}
		b.edge(edges.at(i))
	}
	b.finish(g)
	return g, nil
}

// countEdgeTags counts "<edge" in the file (bounded by MaxGraphML): about
// the number of edges, to size the store's edges once.
func countEdgeTags(ctx context.Context, path string) (int, error) {
	f, err := evidence.OpenRegular(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > storefile.MaxGraphML {
		return 0, nil // the stream refuses it
	}
	r := io.LimitReader(f, fi.Size())
	tag := []byte("<edge")
	buf := make([]byte, 1<<20)
	n, carry := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k, err := r.Read(buf[carry:])
		chunk := buf[:carry+k]
		n += bytes.Count(chunk, tag)
		// The last len(tag)-1 bytes may begin a tag the next read ends.
		carry = min(len(chunk), len(tag)-1)
		copy(buf, chunk[len(chunk)-carry:])
		if errors.Is(err, io.EOF) {
			// The shortest edge element, <edge source="" target=""/>, has
			// 28 bytes.
			return min(n, MaxGraphElements, int(fi.Size()/28)), nil
		}
		if err != nil {
			return 0, err
		}
	}
}
