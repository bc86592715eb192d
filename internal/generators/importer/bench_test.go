package importer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/generators/graphfile"
)

// synthetic writes a HippoRAG2-sized graph (BRIEF: HotpotQA has 794
// passages and 9,690 nodes) with edgesPerNode structural writes per node.
func synthetic(passages, nodes, edges int) (nodesCSV, edgesCSV []byte) {
	var n, e bytes.Buffer
	n.WriteString("id,kind,text,writer\n")
	for i := 0; i < nodes; i++ {
		if i < passages {
			fmt.Fprintf(&n, "p%d,passage,\"Passage %d says something about entity %d and entity %d.\",tool:corpus\n", i, i, i*7%nodes, i*13%nodes)
		} else {
			fmt.Fprintf(&n, "e%d,entity,Entity number %d,\n", i, i)
		}
	}
	e.WriteString("src,dst,weight,kind,rel,writer,sources,declared\n")
	id := func(i int) string {
		if i < passages {
			return fmt.Sprintf("p%d", i)
		}
		return fmt.Sprintf("e%d", i)
	}
	for i := 0; i < edges; i++ {
		a := passages + i%(nodes-passages)
		b := (i * 7919) % nodes
		fmt.Fprintf(&e, "%s,%s,%d,relation,related_to,agent:indexer,p%d|p%d,\n", id(a), id(b), 1+i%4, i%passages, (i+1)%passages)
	}
	return n.Bytes(), e.Bytes()
}

func BenchmarkReadEdgesCSV(b *testing.B) {
	_, edges := synthetic(794, 9690, 100000)
	b.SetBytes(int64(len(edges)))
	for b.Loop() {
		if _, err := graphfile.ReadEdges("edges.csv", bytes.NewReader(edges), graphfile.CSV); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/row")
}

func BenchmarkReadEdgesJSONL(b *testing.B) {
	_, edgesCSV := synthetic(794, 9690, 100000)
	rows, err := graphfile.ReadEdges("edges.csv", bytes.NewReader(edgesCSV), graphfile.CSV)
	if err != nil {
		b.Fatal(err)
	}
	var t testing.T
	edges := encodeJSONL(&t, rows)
	b.SetBytes(int64(len(edges)))
	for b.Loop() {
		if _, err := graphfile.ReadEdges("edges.jsonl", bytes.NewReader(edges), graphfile.JSONL); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/row")
}

// BenchmarkImportHotpotScale imports a HotpotQA-sized graph end to end:
// parse, validate, sign every record, write the snapshot and the log.
func BenchmarkImportHotpotScale(b *testing.B) {
	const passages, nodes, edges = 794, 9690, 30000
	dir := b.TempDir()
	nb, eb := synthetic(passages, nodes, edges)
	np, ep := filepath.Join(dir, "nodes.csv"), filepath.Join(dir, "edges.csv")
	if err := os.WriteFile(np, nb, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(ep, eb, 0o644); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		if _, err := Import(context.Background(), Options{Nodes: np, Edges: ep, Out: out}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(passages+edges), "us/record")
}
