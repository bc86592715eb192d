package leiden

import (
	"context"
	"testing"
)

// Zachary's karate club (34 members, 78 ties), 1-indexed adjacency as
// published; its best known modularity partition scores 0.4198 (Brandes
// et al., "On modularity clustering", 2008).
var karate = map[int][]int{
	1: {2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 18, 20, 22, 32}, 2: {3, 4, 8, 14, 18, 20, 22, 31},
	3: {4, 8, 9, 10, 14, 28, 29, 33}, 4: {8, 13, 14}, 5: {7, 11}, 6: {7, 11, 17}, 7: {17}, 9: {31, 33, 34},
	10: {34}, 14: {34}, 15: {33, 34}, 16: {33, 34}, 19: {33, 34}, 20: {34}, 21: {33, 34}, 23: {33, 34},
	24: {26, 28, 30, 33, 34}, 25: {26, 28, 32}, 26: {32}, 27: {30, 34}, 28: {34}, 29: {32, 34},
	30: {33, 34}, 31: {33, 34}, 32: {33, 34}, 33: {34},
}

func karateGraph(t *testing.T) *Graph {
	var es []Edge
	for a, bs := range karate {
		for _, b := range bs {
			es = append(es, Edge{int32(a - 1), int32(b - 1), 1})
		}
	}
	if len(es) != 78 {
		t.Fatalf("karate has %d edges, want 78", len(es))
	}
	sortEdges(es)
	g, err := NewGraph(34, es)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// connected checks the Leiden guarantee: every community induces a
// connected subgraph.
func connected(g *Graph, member []int32) bool {
	seen := make([]bool, g.n)
	comps := map[int32]int{}
	for s := int32(0); int(s) < g.n; s++ {
		if seen[s] {
			continue
		}
		comps[member[s]]++
		stack := []int32{s}
		seen[s] = true
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			g.Neighbors(v, func(u int32, _ float64) {
				if !seen[u] && member[u] == member[v] {
					seen[u] = true
					stack = append(stack, u)
				}
			})
		}
	}
	for _, n := range comps {
		if n != 1 {
			return false
		}
	}
	return true
}

func TestKarateModularity(t *testing.T) {
	t.Parallel()
	g := karateGraph(t)
	for seed := uint64(0); seed < 20; seed++ {
		m := mustRun(g, Options{Seed: seed})
		if one := Modularity(g, mustRun(g, Options{Seed: seed, Iterations: 1}), 1); one > Modularity(g, m, 1)+1e-12 {
			t.Errorf("seed %d: iterating lowered modularity", seed)
		}
		q := Modularity(g, m, 1)
		if q < 0.41978 || q > 0.41980+1e-5 {
			t.Errorf("seed %d: modularity %.5f, want the optimum 0.4198", seed, q)
		}
		if !connected(g, m) {
			t.Errorf("seed %d: a community is disconnected: %v", seed, m)
		}
	}
	a, b := mustRun(g, Options{Seed: 7}), mustRun(g, Options{Seed: 7})
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different partitions")
		}
	}
	// Resolution: a large gamma splits into more communities.
	if n1, n2 := countCommunities(mustRun(g, Options{Seed: 1})), countCommunities(mustRun(g, Options{Seed: 1, Resolution: 3})); n2 <= n1 {
		t.Errorf("gamma 3 gives %d communities, gamma 1 %d: want more", n2, n1)
	}
}

// A ring of cliques: every clique is its own community, and a heavy edge
// written into the ring pulls a node across the boundary.
func TestRingOfCliquesAndMoveFrom(t *testing.T) {
	t.Parallel()
	const cliques, size = 8, 5
	var es []Edge
	for c := 0; c < cliques; c++ {
		base := int32(c * size)
		for i := int32(0); i < size; i++ {
			for j := i + 1; j < size; j++ {
				es = append(es, Edge{base + i, base + j, 1})
			}
		}
		es = append(es, Edge{base + size - 1, int32(((c + 1) % cliques) * size), 1})
	}
	g, err := NewGraph(cliques*size, es)
	if err != nil {
		t.Fatal(err)
	}
	m := mustRun(g, Options{Seed: 3})
	for v := range m {
		if m[v] != m[v/size*size] {
			t.Fatalf("node %d not with its clique: %v", v, m)
		}
	}
	if countCommunities(m) != cliques {
		t.Fatalf("%d communities, want %d", countCommunities(m), cliques)
	}
	// Node 2 (clique 0) gets a weight-60 tie into clique 4.
	g2, _ := NewGraph(cliques*size, append(append([]Edge(nil), es...), Edge{2, 21, 60}))
	m2 := append([]int32(nil), m...)
	if !MoveFrom(g2, m2, []int32{2, 21}, 1, 0) {
		t.Fatal("MoveFrom moved nothing")
	}
	if m2[2] != m2[21] {
		t.Errorf("node 2 should join node 21's community: %v", m2)
	}
	for v := range m {
		if v != 2 && v != 21 && m2[v] != m[v] && m2[v] != m2[2] {
			t.Errorf("node %d moved far from the write", v)
		}
	}
	// The overlay gives the same answer as the rebuilt graph.
	m4 := append([]int32(nil), m...)
	MoveFromWith(g, []Edge{{2, 21, 60}}, m4, []int32{2, 21}, 1, 0)
	for v := range m2 {
		if m4[v] != m2[v] {
			t.Fatalf("overlay and rebuilt graph disagree at node %d", v)
		}
	}
	// A light write leaves the partition alone.
	g3, _ := NewGraph(cliques*size, append(append([]Edge(nil), es...), Edge{2, 21, 0.1}))
	m3 := append([]int32(nil), m...)
	MoveFrom(g3, m3, []int32{2, 21}, 1, 0)
	for v := range m {
		if m3[v] != m[v] {
			t.Fatalf("a 0.1 tie moved node %d", v)
		}
	}
}

func TestNewGraphRejectsBadInput(t *testing.T) {
	t.Parallel()
	for _, e := range []Edge{{0, 5, 1}, {-1, 0, 1}, {0, 1, -1}} {
		if _, err := NewGraph(2, []Edge{e}); err == nil {
			t.Errorf("%v: want error", e)
		}
	}
	g, err := NewGraph(3, nil)
	if err != nil || len(mustRun(g, Options{})) != 3 {
		t.Fatal("empty graph must run")
	}
}

// With adds edges without changing g; RunFrom from a fixed point returns
// it, and from the karate optimum on the graph plus a heavy edge between
// the two factions it runs the full algorithm (the result is connected and
// no worse than the start on the new graph).
func TestRunFromAndWith(t *testing.T) {
	t.Parallel()
	g := karateGraph(t)
	part := mustRun(g, Options{Seed: 3})
	again, err := RunFrom(context.Background(), g, part, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if Modularity(g, again, 1) < Modularity(g, part, 1)-1e-12 || !connected(g, again) {
		t.Errorf("RunFrom a converged partition lost modularity: %v -> %v", Modularity(g, part, 1), Modularity(g, again, 1))
	}
	before := g.total
	g2, err := g.With([]Edge{{A: 0, B: 33, Weight: 30}, {A: 1, B: 32, Weight: 30}})
	if err != nil {
		t.Fatal(err)
	}
	if g.total != before || g2.total != before+120 || g2.N() != g.N() {
		t.Fatalf("With: totals %v -> %v (g %v)", before, g2.total, g.total)
	}
	moved, err := RunFrom(context.Background(), g2, part, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !connected(g2, moved) || Modularity(g2, moved, 1) < Modularity(g2, part, 1)-1e-12 {
		t.Errorf("RunFrom on the written graph: connected %v, modularity %v from %v", connected(g2, moved), Modularity(g2, moved, 1), Modularity(g2, part, 1))
	}
	if moved[0] != moved[33] {
		t.Errorf("a weight-30 tie between 1 and 34 did not join their communities: %v", moved)
	}
	if _, err := RunFrom(context.Background(), g, part[:3], Options{}); err == nil {
		t.Error("a start of the wrong length was accepted")
	}
}

// mustRun is Run without a deadline, for tests that only want the partition.
func mustRun(g *Graph, opt Options) []int32 {
	part, err := Run(context.Background(), g, opt)
	if err != nil {
		panic(err)
	}
	return part
}
