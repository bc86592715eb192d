package replay

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// igraphFixture is replay/testdata/igraph_ppr_fixture.json, written by
// replay/testdata/gen_igraph_fixture.py from python3-igraph 0.10.2
// (Debian package), calling personalized_pagerank(directed=False, weights,
// damping, reset, implementation="prpack") exactly as HippoRAG2 does.
type igraphFixture struct {
	IgraphVersion string `json:"igraph_version"`
	Cases         []struct {
		Name    string  `json:"name"`
		Damping float64 `json:"damping"`
		Nodes   []struct {
			ID   string `json:"id"`
			Kind string `json:"kind"`
		} `json:"nodes"`
		Edges []struct {
			ID     string  `json:"id"`
			Src    string  `json:"src"`
			Dst    string  `json:"dst"`
			Weight float64 `json:"weight"`
		} `json:"edges"`
		Reset         map[string]float64 `json:"reset"`
		ExpectDropped map[string]float64 `json:"expected_drop_self_loops"`
		ExpectRaw     map[string]float64 `json:"expected_igraph_raw"`
	} `json:"cases"`
}

func TestPPRAgreesWithIgraphPrpack(t *testing.T) {
	raw, err := os.ReadFile("testdata/igraph_ppr_fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx igraphFixture
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) == 0 {
		t.Fatal("fixture has no cases")
	}
	for _, c := range fx.Cases {
		nodes := make([]Node, len(c.Nodes))
		for i, n := range c.Nodes {
			nodes[i] = Node{ID: n.ID, Kind: n.Kind}
		}
		edges := make([]Edge, len(c.Edges))
		for i, e := range c.Edges {
			edges[i] = Edge{ID: e.ID, Src: e.Src, Dst: e.Dst, Weight: e.Weight}
		}
		for _, mode := range []struct {
			name   string
			loops  SelfLoopMode
			expect map[string]float64
		}{{"drop-self-loops", DropSelfLoops, c.ExpectDropped}, {"self-loops-twice", SelfLoopsTwice, c.ExpectRaw}} {
			g, err := NewGraph(nodes, edges, mode.loops)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			r, err := g.ResetVector(c.Reset)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			scores, err := g.PPR(context.Background(), r, SolveOptions{Damping: c.Damping}, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			var sum float64
			for i, n := range nodes {
				want, ok := mode.expect[n.ID]
				if !ok {
					t.Fatalf("%s: fixture lacks node %s", c.Name, n.ID)
				}
				if got := scores[0][i]; math.Abs(got-want) > 1e-9 {
					t.Errorf("%s/%s: node %s score %.15f, igraph %.15f", c.Name, mode.name, n.ID, got, want)
				}
				sum += scores[0][i]
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("%s/%s: scores sum to %v", c.Name, mode.name, sum)
			}
		}
	}
}

// The two self-loop modes must actually differ on a graph with a self-loop,
// or the fixture would not be testing the choice.
func TestSelfLoopModesDiffer(t *testing.T) {
	nodes := []Node{{ID: "a", Kind: KindPassage}, {ID: "b", Kind: KindPassage}}
	edges := []Edge{{ID: "ab", Src: "a", Dst: "b", Weight: 1}, {ID: "bb", Src: "b", Dst: "b", Weight: 5}}
	score := func(mode SelfLoopMode) float64 {
		g, err := NewGraph(nodes, edges, mode)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := g.ResetVector(map[string]float64{"a": 1})
		s, err := g.PPR(context.Background(), r, SolveOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s[0][1]
	}
	// Two nodes, reset on a, d = 1/2. Dropped loop: b always walks back to a,
	// x_b = d x_a, x_a = 1 - x_b gives x_b = 1/3. Loop counted twice: b keeps
	// 10/11 of its walk, x_b = d x_a + d (10/11) x_b with x_a + x_b = 1.
	if got := score(DropSelfLoops); math.Abs(got-1.0/3) > 1e-10 {
		t.Errorf("dropped loop: x_b = %v, want 1/3", got)
	}
	// Solve x_b = 0.5(1-x_b) + (5/11) x_b: x_b (1 + 0.5 - 5/11) = 0.5.
	want := 0.5 / (1.5 - 5.0/11)
	if got := score(SelfLoopsTwice); math.Abs(got-want) > 1e-10 {
		t.Errorf("loop twice: x_b = %v, want %v", got, want)
	}
}

func TestResetVectorErrors(t *testing.T) {
	g, err := NewGraph([]Node{{ID: "a", Kind: KindPassage}, {ID: "b", Kind: KindEntity}}, nil, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		reset map[string]float64
		want  string
	}{
		{map[string]float64{"a": -1}, `node "a"`},
		{map[string]float64{"a": math.NaN()}, "NaN"},
		{map[string]float64{"a": math.Inf(1)}, "+Inf"},
		{map[string]float64{"a": 0, "b": 0}, "total mass 0"},
		{nil, "total mass 0"},
		{map[string]float64{"zz": 1}, `unknown node "zz"`},
	}
	// Finite masses never overflow the total: two masses of MaxFloat64
	// are half and half (issue 23, item 12).
	if r, err := g.ResetVector(map[string]float64{"a": math.MaxFloat64, "b": math.MaxFloat64}); err != nil || r[g.nodeIndex["a"]] != 0.5 || r[g.nodeIndex["b"]] != 0.5 {
		t.Errorf("reset of two MaxFloat64 masses: %v, %v", r, err)
	}
	if r, err := g.ResetVector(map[string]float64{"a": math.MaxFloat64, "b": 5e-324}); err != nil || r[g.nodeIndex["a"]] != 1 || math.IsNaN(r[g.nodeIndex["b"]]) {
		t.Errorf("reset of MaxFloat64 beside a subnormal: %v, %v", r, err)
	}
	for _, c := range cases {
		_, err := g.ResetVector(c.reset)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("reset %v: error %v, want it to mention %q", c.reset, err, c.want)
		}
	}
}

func TestNewGraphErrors(t *testing.T) {
	p := func(id string) Node { return Node{ID: id, Kind: KindPassage} }
	cases := []struct {
		nodes []Node
		edges []Edge
		want  string
	}{
		{[]Node{p("a"), p("a")}, nil, `node id "a" appears twice`},
		{[]Node{{ID: "a", Kind: "fact"}}, nil, `kind "fact"`},
		{[]Node{{Kind: KindPassage}}, nil, "empty id"},
		{[]Node{p("a")}, []Edge{{ID: "e", Src: "a", Dst: "q", Weight: 1}}, `unknown destination node "q"`},
		{[]Node{p("a")}, []Edge{{ID: "e", Src: "q", Dst: "a", Weight: 1}}, `unknown source node "q"`},
		{[]Node{p("a")}, []Edge{{ID: "e", Src: "a", Dst: "a", Weight: -1}}, `edge "e" has weight -1`},
		{[]Node{p("a")}, []Edge{{ID: "e", Src: "a", Dst: "a", Weight: math.NaN()}}, "NaN"},
		{[]Node{p("a")}, []Edge{{ID: "e", Src: "a", Dst: "a", Weight: 1}, {ID: "e", Src: "a", Dst: "a", Weight: 1}}, `edge id "e" appears twice`},
	}
	for _, c := range cases {
		_, err := NewGraph(c.nodes, c.edges, DropSelfLoops)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to mention %q", err, c.want)
		}
	}
}

// Removing edges through a view must give the same scores as building the
// graph without them, including when a node loses every edge. Both sides
// are converged to 1e-10 in L1, so they agree to about that, not bit for bit.
func TestViewEqualsRebuiltGraph(t *testing.T) {
	nodes := []Node{{ID: "p0", Kind: KindPassage}, {ID: "p1", Kind: KindPassage}, {ID: "e0", Kind: KindEntity}, {ID: "e1", Kind: KindEntity}}
	edges := []Edge{
		{ID: "a", Src: "p0", Dst: "e0", Weight: 1},
		{ID: "b", Src: "e0", Dst: "e1", Weight: 0.3},
		{ID: "c", Src: "e1", Dst: "p1", Weight: 120},
		{ID: "d", Src: "e0", Dst: "p1", Weight: 2},
		{ID: "e", Src: "e1", Dst: "e1", Weight: 7},
	}
	for _, loops := range []SelfLoopMode{DropSelfLoops, SelfLoopsTwice} {
		full, err := NewGraph(nodes, edges, loops)
		if err != nil {
			t.Fatal(err)
		}
		removed := []int{1, 2, 4, 2} // e1 loses everything; duplicate index is harmless
		kept := []Edge{edges[0], edges[3]}
		small, err := NewGraph(nodes, kept, loops)
		if err != nil {
			t.Fatal(err)
		}
		reset := map[string]float64{"e0": 1, "e1": 2}
		r, _ := full.ResetVector(reset)
		both, err := full.PPR(context.Background(), r, SolveOptions{}, nil, removed)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := small.PPR(context.Background(), r, SolveOptions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range nodes {
			if math.Abs(both[1][i]-ref[0][i]) > 1e-9 {
				t.Errorf("loops=%d node %s: view %v, rebuilt %v", loops, nodes[i].ID, both[1][i], ref[0][i])
			}
		}
		single, _ := full.PPR(context.Background(), r, SolveOptions{}, nil)
		for i := range nodes {
			if math.Abs(both[0][i]-single[0][i]) > 1e-9 {
				t.Errorf("joint solve of G differs from a lone solve at %s", nodes[i].ID)
			}
		}
	}
}

// Over-relaxed sweeps (the full-tolerance solves) reach the same scores as
// plain Gauss-Seidel sweeps in fewer sweeps, on G and G_auth of a
// HippoRAG-like graph.
func TestOverRelaxationSameScoresFewerSweeps(t *testing.T) {
	t.Parallel()
	g, qs := benchGraph(2000, 8000, 70_000, 60)
	rp, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	solve := func(r []float64, v *view, omega, tol float64) ([]float64, int) {
		x, y := make([]float64, len(r)), make([]float64, len(r))
		for u := range x {
			x[u], y[u] = r[u], r[u]*v.invS[u]
		}
		for it := 1; ; it++ {
			var dm float64
			for _, u := range v.dangl {
				dm += x[u]
			}
			if g.sweep1(x, y, r, DefaultDamping, DefaultDamping*dm+1-DefaultDamping, v, omega) < tol || it == 1000 {
				return x, it
			}
		}
	}
	for _, q := range qs[:3] {
		r, err := g.ResetVector(q.Reset)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []*view{rp.full, rp.auth} {
			ref, _ := solve(r, v, 1, 1e-14)
			plain, nPlain := solve(r, v, 1, DefaultTolerance)
			sor, nSOR := solve(r, v, sorOmega, DefaultTolerance)
			if nSOR >= nPlain {
				t.Errorf("query %s: %d over-relaxed sweeps, %d plain", q.ID, nSOR, nPlain)
			}
			var errPlain, errSOR float64
			for u := range ref {
				errPlain += math.Abs(plain[u] - ref[u])
				errSOR += math.Abs(sor[u] - ref[u])
			}
			if errSOR > 1e-10 {
				t.Errorf("query %s: over-relaxed L1 error %g (plain %g)", q.ID, errSOR, errPlain)
			}
			t.Logf("query %s: plain %d sweeps (L1 error %.1g), over-relaxed %d (%.1g)", q.ID, nPlain, errPlain, nSOR, errSOR)
		}
	}
}
