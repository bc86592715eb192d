package timeline_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/replay"
)

// TestAsRanReplayMatchesFull: NewAsRanReplay, which never holds the write
// events, places every query and every edge as NewReplay over the full
// Build does, on random streams where queries, entries and checkpoints
// fall among logged and unlogged writes by leaf and by time, with
// duplicated write rows and ties.
func TestAsRanReplayMatchesFull(t *testing.T) {
	t.Parallel()
	kinds := []timeline.Kind{timeline.KindEntry, timeline.KindQuery, timeline.KindCheckpoint, timeline.KindAction, timeline.KindPrincipal}
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		nEdges := 1 + r.IntN(60)
		nodes := []replay.Node{{ID: "E", Kind: replay.KindEntity}, {ID: "P", Kind: replay.KindPassage}}
		var edges []replay.Edge
		for i := range nEdges {
			edges = append(edges, replay.Edge{ID: fmt.Sprintf("w%d", i), Src: "E", Dst: "P", Weight: 1})
		}
		g, err := replay.NewGraph(nodes, edges, replay.DropSelfLoops)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := replay.NewReplayer(g, replay.Config{})
		if err != nil {
			t.Fatal(err)
		}
		leaf := func(n int) int64 { return int64(r.IntN(n)) - int64(r.IntN(2)) } // some -1: placed by time
		var rows []int                                                           // write rows: each edge at least once, some twice
		for i := range nEdges {
			rows = append(rows, i)
			if r.IntN(5) == 0 {
				rows = append(rows, i)
			}
		}
		r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		span := 2*len(rows) + 10
		var places []timeline.WritePlace
		var writeEv []timeline.Event
		for _, e := range rows {
			p := timeline.WritePlace{Leaf: leaf(span), TS: int64(r.IntN(40)), Edge: int32(e)}
			places = append(places, p)
			writeEv = append(writeEv, timeline.Event{Kind: timeline.KindWrite, ID: edges[e].ID, Leaf: p.Leaf, TS: p.TS})
		}
		var others []timeline.Event
		nq := 0
		for range 1 + r.IntN(80) {
			e := timeline.Event{Kind: kinds[r.IntN(len(kinds))], Leaf: leaf(span), TS: int64(r.IntN(40))}
			switch e.Kind {
			case timeline.KindQuery:
				e.ID = fmt.Sprintf("q%d", nq)
				nq++
			case timeline.KindCheckpoint:
				e.Size, e.Leaf = uint64(r.IntN(span)), -1
			default:
				e.ID = fmt.Sprintf("x%d", r.IntN(10))
			}
			others = append(others, e)
		}
		at := r.IntN(len(others) + 1)
		all := slices.Concat(others[:at], writeEv, others[at:])
		full, err := timeline.NewReplay(rp, timeline.Build(all))
		if err != nil {
			t.Fatal(err)
		}
		asRan, err := timeline.NewAsRanReplay(rp, slices.Clone(others), at, places)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(asRan.Timeline().Events); got != len(others) {
			t.Fatalf("seed %d: %d events kept, want %d", seed, got, len(others))
		}
		check := func(what string, cf, ca timeline.Cut) {
			if cf.Desc != ca.Desc || cf.Placed != ca.Placed {
				t.Fatalf("seed %d: %s: cut %+v, full %+v", seed, what, ca, cf)
			}
			for e := range nEdges {
				if full.Present(e, cf) != asRan.Present(e, ca) {
					t.Fatalf("seed %d: %s: edge %d present %v, full %v", seed, what, e, asRan.Present(e, ca), full.Present(e, cf))
				}
			}
		}
		for i := range nq {
			id := fmt.Sprintf("q%d", i)
			cf, err1 := full.Timeline().Before(timeline.KindQuery, id)
			ca, err2 := asRan.Timeline().Before(timeline.KindQuery, id)
			if err1 != nil || err2 != nil {
				t.Fatalf("seed %d: %v, %v", seed, err1, err2)
			}
			check(id, cf, ca)
		}
		check("end", full.Timeline().End(), asRan.Timeline().End())
		if _, err := asRan.FirstFlip(t.Context(), replay.Query{ID: "q0"}, timeline.FlipOptions{}); err != timeline.ErrQueriesOnly {
			t.Fatalf("seed %d: FirstFlip on an as-ran replay: %v", seed, err)
		}
	}
}
