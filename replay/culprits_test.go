package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/memscope/memscope/diff"
)

// Both search modes find the two attack writes of attackGraph, and say the
// set is 1-minimal.
func TestCulpritModesAgreeOnAttack(t *testing.T) {
	t.Parallel()
	g, _ := attackGraph(t)
	q := Query{ID: "q1", Reset: map[string]float64{"q": 3}}
	for _, mode := range []CulpritMode{CulpritsFast, CulpritsMinimal} {
		r, err := NewReplayer(g, Config{K: 2, Culprits: true, CulpritMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.Replay(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		c := row.Culprits
		if c == nil || c.Mode != mode {
			t.Fatalf("%s: culprits %+v", mode, c)
		}
		var ids []string
		for _, x := range c.Set {
			ids = append(ids, x.EdgeID)
		}
		if !slices.Equal(ids, []string{"atk-p3", "atk-p4"}) || !c.Minimal || !c.Restores {
			t.Errorf("%s: culprits %v minimal %v restores %v, want [atk-p3 atk-p4] minimal restoring", mode, ids, c.Minimal, c.Restores)
		}
		if c.Sweeps <= 0 || c.Solves <= 0 {
			t.Errorf("%s: %d solves, %d sweeps counted", mode, c.Solves, c.Sweeps)
		}
	}
}

func TestCulpritModeNoneSkipsSearch(t *testing.T) {
	t.Parallel()
	g, _ := attackGraph(t)
	r, err := NewReplayer(g, Config{K: 2, Culprits: true, CulpritMode: CulpritsNone})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Replay(context.Background(), Query{ID: "q1", Reset: map[string]float64{"q": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if row.Class != diff.Diverge || row.Culprits != nil {
		t.Errorf("class %s culprits %+v, want DIVERGE and no search", row.Class, row.Culprits)
	}
	if _, err := ParseCulpritMode("exhaustive"); err == nil {
		t.Error("an unknown culprit mode was accepted")
	}
	if _, err := NewReplayer(g, Config{CulpritMode: "exhaustive"}); err == nil {
		t.Error("NewReplayer accepted an unknown culprit mode")
	}
}

// A search out of time returns a restoring set marked not minimal.
func TestCulpritTimeBudget(t *testing.T) {
	t.Parallel()
	g, _ := attackGraph(t)
	r, err := NewReplayer(g, Config{K: 2, Culprits: true, CulpritMode: CulpritsMinimal, CulpritTime: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Replay(context.Background(), Query{ID: "q1", Reset: map[string]float64{"q": 3}})
	if err != nil {
		t.Fatal(err)
	}
	c := row.Culprits
	if c == nil || c.Minimal || !c.OutOfTime {
		t.Fatalf("culprits %+v, want out of time and not minimal", c)
	}
}

// selectFrom stops early only when the ranking is certain: on random graphs,
// from cold and warm starts, its top-k equals the full solve's.
func TestSelectFromEqualsFullSolve(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 200; trial++ {
		n := 8 + rng.IntN(60)
		nodes := make([]Node, n)
		for i := range nodes {
			kind := KindEntity
			if i%2 == 0 {
				kind = KindPassage
			}
			nodes[i] = Node{ID: fmt.Sprintf("n%d", i), Kind: kind}
		}
		var edges []Edge
		for e := 0; e < 3*n; e++ {
			w := []float64{0.5, 1, 1, 2, 4, 60}[rng.IntN(6)]
			prov := signed
			if rng.IntN(5) == 0 {
				prov = noSource
			}
			edges = append(edges, Edge{ID: fmt.Sprintf("e%d", e), Src: nodes[rng.IntN(n)].ID, Dst: nodes[rng.IntN(n)].ID, Weight: w, Prov: prov})
		}
		g, err := NewGraph(nodes, edges, DropSelfLoops)
		if err != nil {
			t.Fatal(err)
		}
		reset := map[string]float64{nodes[1].ID: 1}
		for i := range nodes {
			if rng.IntN(4) == 0 {
				reset[nodes[i].ID] += rng.Float64()
			}
		}
		rv, _ := g.ResetVector(reset)
		var without []int32
		for e := range edges {
			if rng.IntN(6) == 0 {
				without = append(without, int32(e))
			}
		}
		v := g.newView(without)
		full, err := g.solve(context.Background(), rv, SolveOptions{}, []*view{v})
		if err != nil {
			t.Fatal(err)
		}
		onG, _ := g.solve(context.Background(), rv, SolveOptions{}, []*view{g.newView(nil)})
		k := 1 + rng.IntN(5)
		want := g.selectPassages(full[0], k).IDs()
		for _, start := range [][]float64{nil, onG[0]} {
			sel, _, err := g.selectFrom(context.Background(), rv, SolveOptions{}, v, start, k)
			if err != nil {
				t.Fatal(err)
			}
			if got := sel.IDs(); !slices.Equal(got, want) {
				t.Fatalf("trial %d k %d warm %v: early-stopped %v, full solve %v", trial, k, start != nil, got, want)
			}
		}
	}
}

// On the benchmark graph, a warm start from G's scores takes fewer sweeps
// to certify a selection than a cold one: the point of warm starting.
func TestWarmStartSavesSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the 50k-node benchmark graph")
	}
	t.Parallel()
	g, qs := benchGraph(2000, 8000, 70_000, 60)
	rv, _ := g.ResetVector(qs[0].Reset)
	onG, err := g.solve(context.Background(), rv, SolveOptions{}, []*view{g.newView(nil)})
	if err != nil {
		t.Fatal(err)
	}
	// Remove the three heaviest unauthenticated writes.
	var without []int32
	for i, e := range g.Edges() {
		if e.Weight >= 60 && len(without) < 3 {
			without = append(without, int32(i))
		}
	}
	v := g.newView(without)
	_, cold, err := g.selectFrom(context.Background(), rv, SolveOptions{}, v, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	_, warm, err := g.selectFrom(context.Background(), rv, SolveOptions{}, v, onG[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	if warm >= cold {
		t.Errorf("warm start took %d sweeps, cold %d", warm, cold)
	}
}
