package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// Sizes of the imported store the mid-phase Ctrl-C test replays: a
// HippoRAG-like graph (passages mentioning skewed entities, fact edges)
// with no-source writes of weight 60 into passages, so that every query's
// replay runs a culprit search of many PPR solves: the replay and
// exposure phases last seconds even on a quiet machine.
const (
	bigPassages = 2000
	bigEntities = 8000
	bigEdges    = 40_000
	bigNoSource = 120
	bigQueries  = 24
)

// writeBigImport writes the nodes, edges and queries files (JSONL) of that
// graph into dir, deterministically.
func writeBigImport(t *testing.T, dir string) (nodes, edges, queries string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(2026, 11))
	entity := func() string { return fmt.Sprintf("e%d", rng.IntN(rng.IntN(bigEntities)+1)) }
	passage := func() string { return fmt.Sprintf("p%d", rng.IntN(bigPassages)) }
	write := func(name string, rows func(emit func(any))) string {
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		enc := json.NewEncoder(w)
		rows(func(v any) {
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
		})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nodes = write("nodes.jsonl", func(emit func(any)) {
		for i := 0; i < bigPassages; i++ {
			emit(map[string]any{"id": fmt.Sprintf("p%d", i), "kind": "passage", "text": fmt.Sprintf("passage %d", i), "writer": "tool:corpus"})
		}
		for i := 0; i < bigEntities; i++ {
			emit(map[string]any{"id": fmt.Sprintf("e%d", i), "kind": "entity", "text": fmt.Sprintf("entity %d", i)})
		}
	})
	edges = write("edges.jsonl", func(emit func(any)) {
		for i := 0; i < bigEdges; i++ {
			src := passage()
			e := map[string]any{"src": entity(), "dst": src, "weight": 1, "sources": []string{src}, "writer": "agent:indexer"}
			if i%3 != 0 {
				e["dst"] = entity()
				e["weight"] = 1 + rng.IntN(4)
			}
			emit(e)
		}
		for i := 0; i < bigNoSource; i++ {
			emit(map[string]any{"src": entity(), "dst": passage(), "weight": 60, "sources": []string{}, "writer": "agent:peer"})
		}
	})
	queries = write("queries.jsonl", func(emit func(any)) {
		for q := 0; q < bigQueries; q++ {
			reset := map[string]float64{}
			for s := 0; s < 5; s++ {
				reset[entity()] += 0.2 + rng.Float64()
			}
			for p := 0; p < bigPassages; p += 7 {
				reset[fmt.Sprintf("p%d", p)] += 0.05 * rng.Float64()
			}
			emit(map[string]any{"id": fmt.Sprintf("q%d", q), "text": fmt.Sprintf("question %d", q), "reset": reset})
		}
	})
	return nodes, edges, queries
}
