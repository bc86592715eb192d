package storereplay

import (
	"context"
	"reflect"
	"testing"

	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
	"github.com/memscope/memscope/replay"
)

// TestGraphReleasingOnRealStores: on every real graph store, the graph
// GraphReleasing builds (edge ids spelt from their endpoints, the store's
// edges let go) holds exactly the store's nodes and edges (ids, ends,
// weights, sources) with the labels Graph's policy gives them, every id is
// found again, and the store keeps no edges afterwards.
func TestGraphReleasingOnRealStores(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	graphs := 0
	for _, dir := range sharedtest.Cases(t, "") {
		if _, ok := stores.Detect(dir); !ok {
			continue
		}
		st, err := stores.Open(ctx, dir, "")
		if err != nil {
			continue // refused formats are other tests' business
		}
		if ok, _ := stores.Supports(st, storemodel.CmdReplay); !ok || len(st.Edges) == 0 {
			continue
		}
		graphs++
		want := append([]storemodel.Edge(nil), st.Edges...)
		g, pol, err := GraphReleasing(st)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if st.Edges != nil {
			t.Errorf("%s: the store still holds %d edges", dir, len(st.Edges))
		}
		ref, _ := stores.Open(ctx, dir, "")
		g0, pol0, err := Graph(ref)
		if err != nil {
			t.Fatal(err)
		}
		if g.EdgeCount() != len(want) || !reflect.DeepEqual(g.Nodes(), g0.Nodes()) {
			t.Fatalf("%s: %d edges for %d written, or other nodes", dir, g.EdgeCount(), len(want))
		}
		paired := 0
		for i, w := range want {
			e := g.Edge(i)
			if e.ID != w.ID || e.Src != w.Src || e.Dst != w.Dst || e.Weight != w.Weight || !reflect.DeepEqual(e.Prov.Sources, w.Sources) && len(e.Prov.Sources)+len(w.Sources) > 0 {
				t.Fatalf("%s: edge %d is %+v, the store wrote %+v", dir, i, e, w)
			}
			if !reflect.DeepEqual(e, g0.Edge(i)) || pol.Label(e).Authenticated != pol0.Label(g0.Edge(i)).Authenticated {
				t.Fatalf("%s: edge %d differs from Graph's", dir, i)
			}
			if j, ok := g.EdgeIndex(w.ID); !ok || j != i {
				t.Fatalf("%s: edge id %q found at %d, %v; want %d", dir, w.ID, j, ok, i)
			}
			if w.ID == storemodel.PairID(w.Src, w.Dst) {
				paired++
			}
		}
		rp, err := replay.NewReplayer(g, replay.Config{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		rp0, err := replay.NewReplayer(g0, replay.Config{Policy: pol0})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(rp.Labels(), rp0.Labels()) || !reflect.DeepEqual(rp.Labels(), replay.LabelEdges(g0, pol0)) {
			t.Errorf("%s: labels differ", dir)
		}
		t.Logf("%s: %d edges, %d named by their endpoints", dir, len(want), paired)
	}
	if graphs == 0 {
		t.Fatal("no real graph store replays: the test checked nothing")
	}
}
