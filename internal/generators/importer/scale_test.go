package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/loader"
)

// TestWriteScaleGraph writes a deterministic graph the size of the Debian
// package knowledge graph the scale issue measured (133,436 nodes, 1.35M
// structural writes, 50 queries) as importer input, for whole-program
// measurements (docs/PERFORMANCE.md):
//
//	MEMSCOPE_SCALE_GRAPH_OUT=/tmp/kg go test ./importer -run TestWriteScaleGraph
//	memscope import --nodes /tmp/kg/nodes.csv --edges /tmp/kg/edges.csv --queries /tmp/kg/queries.jsonl --out /tmp/kg/store
//
// The files are about 110 MB, so they are generated, never committed.
// MEMSCOPE_SCALE_GRAPH_DIV=N writes a graph of the same shape N times
// smaller (every count divided by N, the 50 queries kept), for quick
// iteration on what the full size measures.
// Shape: 33,436 passages (a package description each) and 100,000 entities
// (names, keywords); every write cites the passage it was extracted from;
// about 0.2% of writes come from an unauthenticated tool, so G and G_auth
// differ.
func TestWriteScaleGraph(t *testing.T) {
	out := os.Getenv("MEMSCOPE_SCALE_GRAPH_OUT")
	if out == "" {
		t.Skip("set MEMSCOPE_SCALE_GRAPH_OUT to write the scale graph there")
	}
	div := 1
	if d := os.Getenv("MEMSCOPE_SCALE_GRAPH_DIV"); d != "" {
		var err error
		if div, err = strconv.Atoi(d); err != nil || div < 1 {
			t.Fatalf("MEMSCOPE_SCALE_GRAPH_DIV=%q: want a positive integer", d)
		}
	}
	var (
		passages = 33436 / div
		entities = 100000 / div
		edges    = 1350000 / div
	)
	const queries = 50
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 133436))
	create := func(name string) (*bufio.Writer, func()) {
		f, err := os.OpenFile(filepath.Join(out, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		return w, func() {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	nw, closeNodes := create("nodes.csv")
	fmt.Fprintln(nw, "id,kind,text,writer,trust")
	for i := range passages {
		fmt.Fprintf(nw, "p%d,passage,\"Package %d: a tool that depends on libraries %d and %d.\",tool:corpus,\n", i, i, rng.IntN(entities), rng.IntN(entities))
	}
	for i := range entities {
		fmt.Fprintf(nw, "e%d,entity,entity %d,,\n", i, i)
	}
	closeNodes()
	ew, closeEdges := create("edges.csv")
	fmt.Fprintln(ew, "id,src,dst,weight,kind,rel,writer,sources,declared")
	for i := range edges {
		p := rng.IntN(passages)
		src, rel := fmt.Sprintf("e%d", rng.IntN(entities)), "depends_on"
		dst := fmt.Sprintf("e%d", rng.IntN(entities))
		if i%3 == 0 {
			dst, rel = fmt.Sprintf("p%d", p), "mentions"
		}
		writer := "agent:indexer"
		if rng.IntN(500) == 0 {
			writer = "tool:scraper"
		}
		fmt.Fprintf(ew, "w%d,%s,%s,%d,relation,%s,%s,p%d,\n", i, src, dst, 1+rng.IntN(4), rel, writer, p)
	}
	closeEdges()
	qw, closeQueries := create("queries.jsonl")
	enc := json.NewEncoder(qw)
	for i := range queries {
		reset := map[string]float64{}
		for range 5 {
			reset[fmt.Sprintf("e%d", rng.IntN(entities))] = 1
		}
		if err := enc.Encode(map[string]any{"id": fmt.Sprintf("q%d", i), "text": fmt.Sprintf("Which packages does query %d reach?", i), "k": 5, "reset": reset}); err != nil {
			t.Fatal(err)
		}
	}
	closeQueries()
}

// TestLargeImportStaysReadable: an import whose edge-id map would exceed
// the meta value limit readers enforce (the Debian-KG-sized import wrote a
// snapshot no reader opened; later ones left the map out) keeps every id,
// in the signed import notes, and verifies.
func TestLargeImportStaysReadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nodes := "id,kind,text,writer,trust\np0,passage,Passage zero.,tool:corpus,\ne0,entity,entity zero,,\n"
	var edges strings.Builder
	edges.WriteString("id,src,dst,weight,kind,rel,writer,sources,declared\n")
	for i := range 1500 {
		fmt.Fprintf(&edges, "an-edge-id-long-enough-to-matter-%d,e0,p0,1,relation,mentions,agent:indexer,p0,\n", i)
	}
	for name, body := range map[string]string{"nodes.csv": nodes, "edges.csv": edges.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "store")
	man, err := Import(context.Background(), Options{Nodes: filepath.Join(dir, "nodes.csv"), Edges: filepath.Join(dir, "edges.csv"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Import.Warnings) != 0 {
		t.Errorf("warnings %q", man.Import.Warnings)
	}
	snap, err := loader.Open(filepath.Join(out, "snapshot.db"))
	if err != nil {
		t.Fatalf("the imported snapshot does not open: %v", err)
	}
	defer snap.Close()
	_, ids := readNotes(t, snap)
	if len(ids) != 1500 {
		t.Errorf("%d import ids kept, want 1500", len(ids))
	}
	if j, _ := json.Marshal(ids); len(j) <= snapshot.MaxMetaValue {
		t.Errorf("the ids take %d bytes of JSON: not over the meta limit, the test proves nothing", len(j))
	}
	if rep := verifyImported(t, out); !rep.OK || len(rep.Findings) != 0 {
		t.Errorf("verify: ok=%v findings=%v", rep.OK, rep.Findings)
	}
}
