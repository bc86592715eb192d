package storereplay

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/readers/hipporag"
	"github.com/memscope/memscope/replay"
)

// expected_qemb.json is written by testdata/make_query_embeddings.py, which
// follows HippoRAG 2's retrieve() (get_fact_scores, rerank_facts without
// rerank_filter, graph_search_with_fact_entities, dense_passage_retrieval)
// and runs python-igraph's personalized_pagerank on the stored pickles.
type qembExpected struct {
	Queries map[string]map[string]struct {
		Reset map[string]float64 `json:"reset"`
		igraphLists
	} `json:"queries"`
}

// Reset vectors built from query embeddings equal the reference's, and the
// replay's top-5 on G and G_auth equal igraph's, on both stores.
func TestQueryEmbeddingsMatchIgraph(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(fixtures, "expected_qemb.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want qembExpected
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	qfile := filepath.Join(fixtures, "query_embeddings.jsonl")
	qes, err := hipporag.ReadQueryEmbeddings(ctx, qfile)
	if err != nil {
		t.Fatal(err)
	}
	if len(qes) != len(want.Queries) || len(qes) < 2 {
		t.Fatalf("%d queries, reference has %d", len(qes), len(want.Queries))
	}
	diverged := 0
	for _, name := range []string{"clean", "poisoned"} {
		dir := filepath.Join(fixtures, name)
		st, err := hipporag.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		r, err := hipporag.OpenRetrieval(ctx, dir, st)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := EmbeddedQueries(r, qfile, qes)
		if err != nil {
			t.Fatal(err)
		}
		g, pol, err := Graph(st)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := replay.NewReplayer(g, replay.Config{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			ref := want.Queries[q.ID][name]
			if len(q.Reset) != len(ref.Reset) {
				t.Errorf("%s %s: reset has %d nodes, reference %d", name, q.ID, len(q.Reset), len(ref.Reset))
			}
			for id, w := range ref.Reset {
				// numpy scores float32 embeddings in float32; memscope in float64.
				if math.Abs(q.Reset[id]-w) > 1e-6*math.Max(1, w) {
					t.Errorf("%s %s: reset[%s] = %.9f, reference %.9f", name, q.ID, id, q.Reset[id], w)
				}
			}
			row, err := rp.Replay(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			checkList(t, name+" "+q.ID+" G", row.G.Items, ref.G, ref.GScores)
			checkList(t, name+" "+q.ID+" G_auth", row.GAuth.Items, ref.GAuth, ref.GAuthScores)
			if !slices.Equal(ref.G, ref.GAuth) {
				diverged++
			}
		}
	}
	if diverged == 0 {
		t.Error("no query diverges in the reference: the fixture does not exercise G_auth")
	}
}

func checkList(t *testing.T, what string, items []replay.Item, ids []string, scores []float64) {
	t.Helper()
	if len(items) != len(ids) {
		t.Fatalf("%s: %d items, igraph %d", what, len(items), len(ids))
	}
	for i, it := range items {
		if it.NodeID != ids[i] || math.Abs(it.Score-scores[i]) > 1e-6 {
			t.Errorf("%s #%d: %s %.8f, igraph %s %.8f", what, i+1, it.NodeID, it.Score, ids[i], scores[i])
		}
	}
}

func TestQueryEmbeddingFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"dup.jsonl":     `{"id":"a","fact_embedding":[1],"passage_embedding":[1]}` + "\n" + `{"id":"a","fact_embedding":[1],"passage_embedding":[1]}`,
		"empty.jsonl":   `{"id":"a","fact_embedding":[],"passage_embedding":[1]}`,
		"unknown.jsonl": `{"id":"a","reset":{},"fact_embedding":[1],"passage_embedding":[1]}`,
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := hipporag.ReadQueryEmbeddings(context.Background(), p); err == nil {
			t.Errorf("%s was accepted", name)
		}
	}
}
