package replay

import (
	"context"
	"math"
	"testing"

	"github.com/memscope/memscope/diff"
)

// FuzzReplay builds a graph, provenance and reset vector from arbitrary bytes
// and requires Replay to either return an error or a consistent row: never a
// panic or a hang, scores of each selection in rank order (up to ties), and a class that
// agrees with the two selections.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{4, 1, 0, 1, 3, 0, 2, 2, 200, 1, 3, 0, 60, 2, 1, 1, 0, 5})
	f.Add([]byte{2, 0, 0, 0, 0, 255, 1})
	f.Add([]byte{9, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := int(data[0]%12) + 1
		k := int(data[1] % 4)
		data = data[2:]
		nodes := make([]Node, n)
		for i := range nodes {
			kind := KindEntity
			if i%2 == 0 {
				kind = KindPassage
			}
			nodes[i] = Node{ID: string(rune('a' + i)), Kind: kind, Authenticated: i%3 != 0}
		}
		var edges []Edge
		reset := map[string]float64{}
		for len(data) >= 4 {
			a, b, w, p := int(data[0])%n, int(data[1])%n, float64(data[2]), data[3]
			data = data[4:]
			if p&0x80 != 0 { // a reset entry instead of an edge
				reset[nodes[a].ID] += float64(int(w) - 20)
				continue
			}
			prov := signed
			if p&1 == 1 {
				prov = noSource
			}
			edges = append(edges, Edge{ID: string(rune('A' + len(edges))), Src: nodes[a].ID, Dst: nodes[b].ID, Weight: w, Prov: prov})
		}
		g, err := NewGraph(nodes, edges, SelfLoopMode(len(edges)%2))
		if err != nil {
			t.Fatal(err) // inputs are valid by construction
		}
		r, err := NewReplayer(g, Config{K: k, Culprits: true, CulpritBudget: 50})
		if err != nil {
			t.Fatal(err)
		}
		row, err := r.Replay(context.Background(), Query{ID: "f", Reset: reset, DenseScores: map[string]float64{"a": 1}})
		if err != nil {
			return // bad reset vectors must be errors, and are
		}
		for _, sel := range []Selection{row.G, row.GAuth} {
			for i := 1; i < len(sel.Items); i++ {
				if sel.Items[i].Score > sel.Items[i-1].Score+TieTolerance || math.IsNaN(sel.Items[i].Score) {
					t.Fatalf("selection out of score order: %+v", sel.Items)
				}
			}
		}
		want, _ := diff.ClassifyIDs(row.GAuth.IDs(), row.G.IDs())
		if want != row.Class {
			t.Fatalf("class %s, selections say %s", row.Class, want)
		}
		if row.Culprits != nil && row.Culprits.Restores {
			w, err := r.WhatIf(context.Background(), Query{ID: "f", Reset: reset, K: k}, BaseG, culpritIDs(row.Culprits), nil)
			if err != nil {
				t.Fatal(err)
			}
			if w.VsGAuth.Class != diff.Same {
				t.Fatalf("culprit set %v does not restore G_auth", culpritIDs(row.Culprits))
			}
		}
	})
}

func culpritIDs(c *Culprits) []string {
	var ids []string
	for _, x := range c.Set {
		ids = append(ids, x.EdgeID)
	}
	return ids
}
