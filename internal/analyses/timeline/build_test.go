package timeline_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/memscope/memscope/internal/analyses/timeline"
)

// refBuild is the ordering Build documents, written the plain way (stable
// sorts of copies, then a merge), to hold the in-place Build to it.
func refBuild(events []timeline.Event) []timeline.Event {
	var logged, timed []timeline.Event
	for _, e := range events {
		switch {
		case e.Kind == timeline.KindCheckpoint && e.Size > 0, e.Kind != timeline.KindCheckpoint && e.Leaf >= 0:
			e.Placed = timeline.ByLog
			logged = append(logged, e)
		default:
			e.Placed = timeline.ByTime
			timed = append(timed, e)
		}
	}
	pos := func(e timeline.Event) int64 {
		if e.Kind == timeline.KindCheckpoint {
			return 2*int64(e.Size) - 1
		}
		return 2 * e.Leaf
	}
	sort.SliceStable(logged, func(i, j int) bool {
		if pi, pj := pos(logged[i]), pos(logged[j]); pi != pj {
			return pi < pj
		}
		return logged[i].TS < logged[j].TS
	})
	sort.SliceStable(timed, func(i, j int) bool { return timed[i].TS < timed[j].TS })
	var out []timeline.Event
	i, j := 0, 0
	for i < len(logged) || j < len(timed) {
		if j < len(timed) && (i == len(logged) || timed[j].TS < logged[i].TS) {
			out = append(out, timed[j])
			j++
			continue
		}
		out = append(out, logged[i])
		i++
	}
	return out
}

func TestBuildOrdersInPlaceAsDocumented(t *testing.T) {
	t.Parallel()
	kinds := []timeline.Kind{timeline.KindEntry, timeline.KindWrite, timeline.KindQuery, timeline.KindCheckpoint, timeline.KindAction}
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 1 + r.IntN(400)
		ev := make([]timeline.Event, n)
		for i := range ev {
			e := timeline.Event{Kind: kinds[r.IntN(len(kinds))], ID: fmt.Sprintf("x%d", r.IntN(n)), Leaf: int64(r.IntN(n/2+1)) - int64(r.IntN(3)), TS: int64(r.IntN(50))}
			if e.Kind == timeline.KindCheckpoint {
				e.Size = uint64(r.IntN(n/2 + 1))
			}
			ev[i] = e
		}
		want := refBuild(ev)
		got := timeline.Build(append([]timeline.Event(nil), ev...))
		if !reflect.DeepEqual(got.Events, want) {
			t.Fatalf("seed %d: order differs", seed)
		}
		for i, e := range got.Events {
			j, ok := got.Index(e.Kind, e.ID)
			if !ok || j > i || got.Events[j].ID != e.ID || got.Events[j].Kind != e.Kind {
				t.Fatalf("seed %d: Index(%s, %s) = %d, %v; event at %d", seed, e.Kind, e.ID, j, ok, i)
			}
		}
		if _, ok := got.Index(timeline.KindGate, "x0"); ok {
			t.Fatalf("seed %d: a kind with no events is indexed", seed)
		}
	}
}
