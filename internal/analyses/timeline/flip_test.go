package timeline_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/replay"
)

// byWriter labels a write authenticated when its writer is "good".
type byWriter struct{}

func (byWriter) Name() string { return "by-writer" }
func (byWriter) Label(e replay.Edge) replay.EdgeLabel {
	return replay.EdgeLabel{Authenticated: e.Prov.Writer == "good", Rule: "test"}
}

// flapping builds a graph whose top-1 from entity E flips with the log:
// the honest edge selects P1; u1 (unauthenticated) pulls P2 ahead; u2 puts
// P1 back on top; u3 touches an unrelated passage; u4 pulls P3 ahead.
func flapping(t *testing.T) (*timeline.Replay, replay.Query) {
	t.Helper()
	nodes := []replay.Node{{ID: "E", Kind: replay.KindEntity}}
	for i := 1; i <= 5; i++ {
		nodes = append(nodes, replay.Node{ID: fmt.Sprintf("P%d", i), Kind: replay.KindPassage, Authenticated: true})
	}
	edges := []replay.Edge{
		{ID: "a1", Src: "E", Dst: "P1", Weight: 1, Prov: replay.Provenance{Writer: "good"}},
		{ID: "u1", Src: "E", Dst: "P2", Weight: 5, Prov: replay.Provenance{Writer: "bad"}},
		{ID: "a2", Src: "E", Dst: "P5", Weight: 0.5, Prov: replay.Provenance{Writer: "good"}},
		{ID: "u2", Src: "E", Dst: "P1", Weight: 10, Prov: replay.Provenance{Writer: "bad"}},
		{ID: "u3", Src: "P4", Dst: "P5", Weight: 1, Prov: replay.Provenance{Writer: "bad"}},
		{ID: "u4", Src: "E", Dst: "P3", Weight: 50, Prov: replay.Provenance{Writer: "bad"}},
	}
	g, err := replay.NewGraph(nodes, edges, replay.DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: byWriter{}, K: 1})
	if err != nil {
		t.Fatal(err)
	}
	var ev []timeline.Event
	for i, e := range edges {
		a := e.Prov.Writer == "good"
		ev = append(ev, timeline.Event{Kind: timeline.KindWrite, ID: e.ID, Leaf: int64(i), TS: int64(i), Principal: e.Prov.Writer, Authenticated: &a})
	}
	tr, err := timeline.NewReplay(rp, timeline.Build(ev))
	if err != nil {
		t.Fatal(err)
	}
	return tr, replay.Query{ID: "q", Reset: map[string]float64{"E": 1}, K: 1}
}

func TestFirstFlipNotMonotone(t *testing.T) {
	tr, q := flapping(t)
	// Bisection alone lands on a later flip: states before u3 and before
	// u4 agree, so it answers u4.
	f, err := tr.FirstFlip(context.Background(), q, timeline.FlipOptions{ScanLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Found || f.Write.ID != "u4" || !f.Confirmed || f.Scanned || f.Intervals != nil {
		t.Fatalf("bisection: %+v", f)
	}
	if f.Solves > int64(timeline.FlipBudget(4, false)) {
		t.Fatalf("%d solves, budget %d", f.Solves, timeline.FlipBudget(4, false))
	}
	// The scan sees every interval and corrects the answer.
	f, err = tr.FirstFlip(context.Background(), q, timeline.FlipOptions{Scan: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Write.ID != "u1" || f.BisectionAgrees || !f.Confirmed {
		t.Fatalf("scan: write %s agrees %v confirmed %v", f.Write.ID, f.BisectionAgrees, f.Confirmed)
	}
	if len(f.Intervals) != 2 || f.Intervals[0].From.ID != "u1" || f.Intervals[0].Until == nil || f.Intervals[0].Until.ID != "u2" ||
		f.Intervals[1].From.ID != "u4" || f.Intervals[1].Until != nil {
		t.Fatalf("intervals %+v", f.Intervals)
	}
}

// The scanned intervals agree with a direct replay after every leaf, for
// two reset vectors.
func TestFirstFlipIntervalsMatchReplay(t *testing.T) {
	tr, q := flapping(t)
	for _, reset := range []map[string]float64{{"E": 1}, {"P4": 1, "E": 0.2}} {
		q.Reset = reset
		f, err := tr.FirstFlip(context.Background(), q, timeline.FlipOptions{Scan: true})
		if err != nil {
			t.Fatal(err)
		}
		checkIntervals(t, tr, q, f)
	}
}

func checkIntervals(t *testing.T, tr *timeline.Replay, q replay.Query, f *timeline.Flip) {
	t.Helper()
	for leaf := int64(0); leaf < 6; leaf++ {
		c, err := tr.Timeline().AfterLeaf(leaf)
		if err != nil {
			t.Fatal(err)
		}
		row, err := tr.At(context.Background(), q, c)
		if err != nil {
			t.Fatal(err)
		}
		inside := false
		for _, in := range f.Intervals {
			if leaf >= in.From.Leaf && (in.Until == nil || leaf < in.Until.Leaf) {
				inside = true
			}
		}
		if (row.Class == "DIVERGE") != inside {
			t.Fatalf("leaf %d: class %s, intervals %+v", leaf, row.Class, f.Intervals)
		}
	}
}
