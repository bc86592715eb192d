package equimem

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/memscope/memscope/internal/ctxtest"
)

// A graph small enough to score by hand (|V| = 5, depth max(2, ceil(ln 5))
// = 2). Each write meets every write before it.
//
// Round 0 (writer a):
//
//	w1 x-r->y: empty memory: s_local 0, no path
//	w2 x-s->z: s is unseen so compat(s) is every relation; x's one out-edge
//	           (r) counts: s_local 1; z is new: no path
//	w3 y-r->z: y has no out-edges: s_local 0. Counts so far: x has r and s,
//	           so c(r,r) = c(r,s) = c(s,r) = c(s,s) = 1, every co-occurrence
//	           score is 1/(2*2/5) = 1.25, the median too, compat(r) = {r, s};
//	           the path y-x-z has relations (r, s): s_path 1
//	w4 q-t->y: q has no edges: s_local 0, no path
//
// alpha = 1/4, so rho = 0, 0.25, 0.75, 0. Round 1 (writer b), with out-edges
// x:{r,s}, y:{r}, q:{t} and then z:{r}:
//
//	w5 x-r->q: co-occurrences (r,r) 2/(3*3/5) = 1.11, (r,s) 0.83, (s,s) 1.25,
//	           (t,t) 5, the rest 0: median 0.83, compat(r) = {r, s}; x's r and
//	           s count: s_local 1; the one path x-y-q is (r, t): s_path 0
//	w6 z-r->n: z has no out-edges, n is new: 0 and no path
//	w7 y-r->x: c(r,r) is now 3 (z has r), median 0.625, compat(r) = {r, s};
//	           s_local 1/1; the shortest path is the edge x-y (r): s_path 1
//
// alpha = 2/3, so rho = 2/3, 0, 1.
func TestHandCheckedGraph(t *testing.T) {
	t.Parallel()
	ws := []Write{
		{"w1", "x", "y", "r", "a"}, {"w2", "x", "z", "s", "a"}, {"w3", "y", "z", "r", "a"}, {"w4", "q", "y", "t", "a"},
		{"w5", "x", "q", "r", "b"}, {"w6", "z", "n", "r", "b"}, {"w7", "y", "x", "r", "b"},
	}
	sc, err := Analyze(t.Context(), ws, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ local, path, alpha, rho float64 }{
		{0, 0, 0.25, 0}, {1, 0, 0.25, 0.25}, {0, 1, 0.25, 0.75}, {0, 0, 0.25, 0},
		{1, 0, 2.0 / 3, 2.0 / 3}, {0, 0, 2.0 / 3, 0}, {1, 1, 2.0 / 3, 1},
	}
	for i, w := range want {
		s := sc[i]
		if math.Abs(s.SLocal-w.local) > 1e-6 || math.Abs(s.SPath-w.path) > 1e-9 || math.Abs(s.Alpha-w.alpha) > 1e-9 || math.Abs(s.Rho-w.rho) > 1e-6 {
			t.Errorf("%s: got local %.4f path %.4f alpha %.4f rho %.4f, want %+v", s.ID, s.SLocal, s.SPath, s.Alpha, s.Rho, w)
		}
		if s.Depth != 2 {
			t.Errorf("%s: depth %d, want 2", s.ID, s.Depth)
		}
	}
	if sc[4].Paths != 1 || sc[6].Paths != 1 || sc[5].Paths != 0 {
		t.Errorf("paths: w5 %d w6 %d w7 %d, want 1 0 1", sc[4].Paths, sc[5].Paths, sc[6].Paths)
	}
	tr := Rank(sc, map[string]bool{"w6": true})
	if tr.TopDecile != 1 || tr.Order[0] != "w1" || tr.Culprits != 1 || tr.InDecile != 0 {
		t.Errorf("triage %+v", tr)
	}
	tr = Rank(sc, map[string]bool{"w1": true, "w7": true})
	if tr.InDecile != 1 || tr.Order[len(tr.Order)-1] != "w7" {
		t.Errorf("triage %+v", tr)
	}
}

// Bidirectional BFS finds every shortest path (here two of length 3) and
// nothing longer than the depth bound.
func TestPathsBidirectional(t *testing.T) {
	t.Parallel()
	g := &graph{ids: map[string]int32{}, c: map[[2]int32]int{}, rels: map[string]int32{}}
	for _, e := range [][3]string{{"u", "a", "p"}, {"a", "b", "q"}, {"b", "v", "p"}, {"u", "c", "p"}, {"c", "d", "q"}, {"d", "v", "q"}, {"u", "e", "p"}, {"e", "f", "p"}, {"f", "g", "p"}, {"g", "v", "p"}} {
		g.add(g.node(e[0]), g.node(e[1]), g.rel(e[2]))
	}
	ps, trunc := g.paths(g.node("u"), g.node("v"), 3, 64, 1000)
	if trunc || len(ps) != 2 {
		t.Fatalf("paths %v (truncated %v), want the two of length 3", ps, trunc)
	}
	for _, p := range ps {
		if len(p) != 3 {
			t.Errorf("path %v has length %d", p, len(p))
		}
	}
	if ps, _ := g.paths(g.node("u"), g.node("v"), 2, 64, 1000); len(ps) != 0 {
		t.Errorf("depth 2 finds %v", ps)
	}
	if _, trunc := g.paths(g.node("u"), g.node("v"), 3, 64, 3); !trunc {
		t.Error("a 3-node visit budget must truncate")
	}
	if Depth(37066) != 11 || Depth(3) != 2 {
		t.Errorf("Depth(37066) = %d, Depth(3) = %d", Depth(37066), Depth(3))
	}
}

// TestAnalyzeStopsWhenCancelled: scoring checks its context every few
// hundred writes and returns ctx's error, no scores.
func TestAnalyzeStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	var ws []Write
	for i := 0; i < 2000; i++ {
		ws = append(ws, Write{ID: fmt.Sprint("w", i), Src: fmt.Sprint("n", i%97), Dst: fmt.Sprint("n", (i*7)%89), Rel: fmt.Sprint("r", i%5), Writer: fmt.Sprint("a", i/50)})
	}
	full := ctxtest.New(-1)
	if _, err := Analyze(full, ws, Options{}); err != nil {
		t.Fatal(err)
	}
	if full.Calls() < int64(len(ws)/256) {
		t.Fatalf("%d checks for %d writes", full.Calls(), len(ws))
	}
	tw := ctxtest.New(full.Calls() / 2)
	sc, err := Analyze(tw, ws, Options{})
	if !errors.Is(err, context.Canceled) || sc != nil {
		t.Fatalf("cancelled half way: %d scores, error %v; want none and context.Canceled", len(sc), err)
	}
	if n := tw.AfterTrip(); n != 0 {
		t.Errorf("%d checks after the cancellation, want 0", n)
	}
}
