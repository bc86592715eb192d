package storereplay

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/readers/hipporag"
	"github.com/memscope/memscope/replay"
)

const fixtures = "../../../testdata/hipporag"

// expected.json is written by testdata/make_fixtures.py from python-igraph's
// own personalized_pagerank on the pickles it saved.
type igraphLists struct {
	G           []string  `json:"g"`
	GScores     []float64 `json:"g_scores"`
	GAuth       []string  `json:"g_auth"`
	GAuthScores []float64 `json:"g_auth_scores"`
}

type expectedFile struct {
	Injected []string `json:"injected_edges"`
	Payee    string   `json:"payee"`
	Stores   map[string]map[string]json.RawMessage
}

func loadExpected(t *testing.T) expectedFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expectedFile
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func replayStore(t *testing.T, name string) (replay.Row, *replay.Replayer) {
	t.Helper()
	st, err := hipporag.Open(context.Background(), filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	g, pol, err := Graph(st)
	if err != nil {
		t.Fatal(err)
	}
	qf := filepath.Join(fixtures, "queries.jsonl")
	f, err := os.Open(qf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	raw, err := graphfile.ReadQueries(qf, f, graphfile.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := Queries(g, qf, raw)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: pol, Culprits: true})
	if err != nil {
		t.Fatal(err)
	}
	row, err := rp.Replay(context.Background(), qs[0])
	if err != nil {
		t.Fatal(err)
	}
	return row, rp
}

func checkAgainstIgraph(t *testing.T, what string, sel replay.Selection, ids []string, scores []float64) {
	t.Helper()
	if !slices.Equal(sel.IDs(), ids) {
		t.Errorf("%s: memscope selects %v, igraph %v", what, sel.IDs(), ids)
		return
	}
	for i, it := range sel.Items {
		if math.Abs(it.Score-scores[i]) > 1e-8 {
			t.Errorf("%s rank %d: memscope score %.12f, igraph %.12f", what, i+1, it.Score, scores[i])
		}
	}
}

// The AuthSelect attack end to end on a HippoRAG 2 store: two weight-1
// edges appended to graph.pickle pull the payee passage into the top-5.
func TestPoisonedHippoRAG(t *testing.T) {
	t.Parallel()
	exp := loadExpected(t)
	var lists igraphLists
	if err := json.Unmarshal(exp.Stores["poisoned"]["q-born-first"], &lists); err != nil {
		t.Fatal(err)
	}
	row, _ := replayStore(t, "poisoned")
	checkAgainstIgraph(t, "G", row.G, lists.G, lists.GScores)
	checkAgainstIgraph(t, "G_auth", row.GAuth, lists.GAuth, lists.GAuthScores)
	if row.Class != diff.Diverge || !row.IFCBlind {
		t.Errorf("class %s, IFC-blind %v; want DIVERGE and IFC-blind", row.Class, row.IFCBlind)
	}
	if !slices.Contains(row.G.IDs(), exp.Payee) || slices.Contains(row.GAuth.IDs(), exp.Payee) {
		t.Errorf("payee %s: want it selected on G only", exp.Payee)
	}
	if row.Culprits == nil || !row.Culprits.Restores || !row.Culprits.Minimal {
		t.Fatalf("culprits %+v", row.Culprits)
	}
	var got []string
	for _, c := range row.Culprits.Set {
		got = append(got, c.EdgeID)
	}
	sort.Strings(got)
	if !slices.Equal(got, exp.Injected) {
		t.Errorf("culprits %v, want exactly the injected edges %v", got, exp.Injected)
	}
}

// On the clean store both views agree with igraph and with each other.
func TestCleanHippoRAG(t *testing.T) {
	t.Parallel()
	exp := loadExpected(t)
	var lists igraphLists
	if err := json.Unmarshal(exp.Stores["clean"]["q-born-first"], &lists); err != nil {
		t.Fatal(err)
	}
	row, rp := replayStore(t, "clean")
	checkAgainstIgraph(t, "G", row.G, lists.G, lists.GScores)
	checkAgainstIgraph(t, "G_auth", row.GAuth, lists.GAuth, lists.GAuthScores)
	if row.Class != diff.Same {
		t.Errorf("clean store: class %s, want SAME", row.Class)
	}
	// Only the synonym pair is a no-source write in the clean store.
	if n := len(rp.UnauthenticatedEdges()); n != 1 {
		t.Errorf("clean store: %d unauthenticated writes (%v), want the one synonym pair", n, rp.UnauthenticatedEdges())
	}
}
