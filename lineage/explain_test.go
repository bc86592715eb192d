package lineage

import (
	"testing"
)

// Two External roots reach t: x1 through a strong two-step path (bottleneck
// 0.7) and a weaker direct edge (0.2); x2 only through an edge of 0.3.
func explainEntries() []Entry {
	return []Entry{
		{ID: "x1", Writer: "external:a", Recorded: External},
		{ID: "x2", Writer: "external:b", Recorded: External},
		{ID: "m", Writer: "agent:1", Parents: []string{"x1"}, Weights: []float64{0.9}},
		{ID: "t", Writer: "agent:1", Parents: []string{"m", "x1", "x2"}, Weights: []float64{0.7, 0.2, 0.3}},
		{ID: "kid", Writer: "agent:1", Parents: []string{"t"}, Weights: []float64{1}},
	}
}

func TestExplainWidestPath(t *testing.T) {
	g := Build(explainEntries())
	for _, tc := range []struct {
		tau       float64
		label     Trust
		x1Break   int
		x2Break   int
		x1Weights []float64
	}{
		{tau: 0.5, label: DerivedUntrusted, x1Break: -1, x2Break: 0, x1Weights: []float64{0.9, 0.7}},
		{tau: 0.7, label: Trusted, x1Break: 1, x2Break: 0, x1Weights: []float64{0.9, 0.7}},
		{tau: 0.9, label: Trusted, x1Break: 0, x2Break: 0, x1Weights: []float64{0.9, 0.7}},
	} {
		l := mustPropagate(t, g, Options{Tau: tc.tau})
		ex, err := g.Explain("t", l, tc.tau, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Recomputed != tc.label || len(ex.Origins) != 2 {
			t.Fatalf("tau %v: %+v", tc.tau, ex)
		}
		o1, o2 := ex.Origins[0], ex.Origins[1]
		if o1.Ancestor != "x1" || o2.Ancestor != "x2" {
			t.Fatalf("origin order %s, %s", o1.Ancestor, o2.Ancestor)
		}
		if o1.Bottleneck != 0.7 || o2.Bottleneck != 0.3 {
			t.Errorf("bottlenecks %v %v", o1.Bottleneck, o2.Bottleneck)
		}
		if len(o1.Path) != 2 || o1.Path[0].Parent != "x1" || o1.Path[0].Child != "m" || o1.Path[1].Child != "t" {
			t.Fatalf("x1 path %+v", o1.Path)
		}
		for i, w := range tc.x1Weights {
			if o1.Path[i].Weight != w || o1.Path[i].Strong != (w > tc.tau) {
				t.Errorf("tau %v edge %d: %+v", tc.tau, i, o1.Path[i])
			}
		}
		if o1.Break != tc.x1Break || o2.Break != tc.x2Break {
			t.Errorf("tau %v breaks %d %d", tc.tau, o1.Break, o2.Break)
		}
		// Theorem 1 consistency: an unbroken path means the label is untrusted.
		if (o1.Break < 0) != ex.Recomputed.IsUntrusted() {
			t.Errorf("tau %v: break %d but label %s", tc.tau, o1.Break, ex.Recomputed)
		}
	}
	l := mustPropagate(t, g, Options{Tau: 0.5})
	ex, _ := g.Explain("kid", l, 0.5, 1)
	if ex.TotalOrigins != 2 || len(ex.Origins) != 1 || ex.Origins[0].Ancestor != "x1" || len(ex.Origins[0].Path) != 3 {
		t.Errorf("capped explain of kid: %+v", ex)
	}
	if _, err := g.Explain("nope", make([]Trust, g.Len()), 0, 0); err == nil {
		t.Error("unknown id accepted")
	}
	if _, err := g.Explain("t", nil, 0, 0); err == nil {
		t.Error("missing labels accepted")
	}
}

func TestExplainConsistentWithPropagation(t *testing.T) {
	// On random DAGs, an entry is untrusted (and not itself External-written)
	// exactly when some External ancestor's widest path is unbroken.
	r := newRand(7)
	for trial := 0; trial < 100; trial++ {
		es := randomDAG(r, 2+r.IntN(30), 3)
		g := Build(es)
		for _, tau := range []float64{0, 0.3, 0.6} {
			l := mustPropagate(t, g, Options{Tau: tau})
			for i := 0; i < g.Len(); i++ {
				if g.Writer(i) == WriterExternal {
					continue
				}
				ex, err := g.Explain(g.ID(i), l, tau, 0)
				if err != nil {
					t.Fatal(err)
				}
				unbroken := false
				for _, o := range ex.Origins {
					unbroken = unbroken || o.Break < 0
				}
				if unbroken != l[i].IsUntrusted() {
					t.Fatalf("trial %d tau %v %s: label %s, unbroken path %v: %+v", trial, tau, g.ID(i), l[i], unbroken, ex)
				}
			}
		}
	}
}

func TestAncestorsDescendants(t *testing.T) {
	g := Build(explainEntries())
	anc, trunc, err := g.Ancestors("kid", 1, 0)
	if err != nil || len(anc) != 1 || anc[0].ID != "t" || !trunc {
		t.Fatalf("depth 1: %+v %v %v", anc, trunc, err)
	}
	anc, trunc, _ = g.Ancestors("kid", 0, 0)
	ids := map[string]int{}
	for _, a := range anc {
		ids[a.ID] = a.Depth
	}
	if trunc || len(anc) != 4 || ids["m"] != 2 || ids["x1"] != 2 || ids["x2"] != 2 {
		t.Fatalf("all ancestors: %+v", anc)
	}
	anc, trunc, _ = g.Ancestors("kid", 0, 2)
	if len(anc) != 2 || !trunc {
		t.Fatalf("node cap: %+v %v", anc, trunc)
	}
	desc, _, _ := g.Descendants("x1", 0, 0)
	if len(desc) != 3 {
		t.Fatalf("descendants of x1: %+v", desc)
	}
	if _, _, err := g.Descendants("zz", 1, 1); err == nil {
		t.Error("unknown id accepted")
	}
}

func TestNeighbourhood(t *testing.T) {
	g := Build(explainEntries())
	l := mustPropagate(t, g, Options{Tau: 0.5})
	nb, err := g.Neighbourhood("t", 1, 1, 0, l, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if nb.Nodes[nb.Center].ID != "t" || len(nb.Nodes) != 5 {
		t.Fatalf("%+v", nb)
	}
	hidden := map[string]int{}
	for _, n := range nb.Nodes {
		hidden[n.ID] = n.HiddenParents
	}
	// m's parent x1 is in the set (as t's parent); nothing is hidden.
	if hidden["m"] != 0 || hidden["t"] != 0 {
		t.Errorf("hidden %v", hidden)
	}
	strong := 0
	for _, e := range nb.Edges {
		if e.Strong {
			strong++
		}
	}
	// Edges: x1->m 0.9, m->t 0.7, x1->t 0.2, x2->t 0.3, t->kid 1: three strong at 0.5.
	if len(nb.Edges) != 5 || strong != 3 {
		t.Errorf("edges %+v", nb.Edges)
	}
	nb, _ = g.Neighbourhood("kid", 1, 0, 0, l, 0.5)
	if len(nb.Nodes) != 2 || nb.Nodes[nb.Center].ID != "kid" {
		t.Fatalf("%+v", nb)
	}
	for _, n := range nb.Nodes {
		if n.ID == "t" && n.HiddenParents != 3 {
			t.Errorf("t hidden parents %d, want 3", n.HiddenParents)
		}
	}
}
