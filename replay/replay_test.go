package replay

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/diff"
)

var signed = Provenance{Writer: "agent:1", SignatureValid: true, WriterRegistered: true, Channel: ChannelAuthenticated, Sources: []string{"doc"}}
var noSource = Provenance{Writer: "agent:evil", SignatureValid: true, WriterRegistered: true, Channel: ChannelAuthenticated}

// attackGraph: seed entity q reaches p0 directly and p1, p2 through m; p3
// and p4 hang off x, which q only reaches through p2. Unauthenticated
// writes: q-p3 and q-p4 (no-source, weight 60, the paper's attack weight),
// a light parallel m-p2 write, and x2-p5 in a component with no reset mass.
func attackGraph(t *testing.T) (*Graph, []Edge) {
	t.Helper()
	nodes := []Node{
		{ID: "p0", Kind: KindPassage, Authenticated: true},
		{ID: "p1", Kind: KindPassage, Authenticated: true},
		{ID: "p2", Kind: KindPassage, Authenticated: true},
		{ID: "p3", Kind: KindPassage, Authenticated: true},
		{ID: "p4", Kind: KindPassage, Authenticated: true},
		{ID: "p5", Kind: KindPassage, Authenticated: true},
		{ID: "q", Kind: KindEntity}, {ID: "m", Kind: KindEntity}, {ID: "x", Kind: KindEntity}, {ID: "x2", Kind: KindEntity},
	}
	edges := []Edge{
		{ID: "q-p0", Src: "q", Dst: "p0", Weight: 1, Prov: signed},
		{ID: "q-m", Src: "q", Dst: "m", Weight: 1, Prov: signed},
		{ID: "m-p1", Src: "m", Dst: "p1", Weight: 2, Prov: signed},
		{ID: "m-p2", Src: "m", Dst: "p2", Weight: 1, Prov: signed},
		{ID: "p2-x", Src: "p2", Dst: "x", Weight: 1, Prov: signed},
		{ID: "x-p3", Src: "x", Dst: "p3", Weight: 1, Prov: signed},
		{ID: "x-p4", Src: "x", Dst: "p4", Weight: 1, Prov: signed},
		{ID: "atk-p3", Src: "q", Dst: "p3", Weight: 60, Prov: noSource},
		{ID: "atk-p4", Src: "q", Dst: "p4", Weight: 60, Prov: noSource},
		{ID: "light", Src: "m", Dst: "p2", Weight: 0.1, Prov: noSource},
		{ID: "far", Src: "x2", Dst: "p5", Weight: 3, Prov: noSource},
	}
	g, err := NewGraph(nodes, edges, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	return g, edges
}

func TestReplayAttackRow(t *testing.T) {
	g, _ := attackGraph(t)
	r, err := NewReplayer(g, Config{K: 2, Culprits: true})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{ID: "q1", Reset: map[string]float64{"q": 3}}
	row, err := r.Replay(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	// G_auth: q splits its walk between p0 (direct) and m; m prefers p1
	// (weight 2 of 3). So p0 then p1. On G, q sends 120/122 of its walk to
	// p3 and p4, which take the top two.
	if got := row.GAuth.IDs(); !slices.Equal(got, []string{"p0", "p1"}) {
		t.Errorf("G_auth top-2 %v, want [p0 p1]", got)
	}
	if got := row.G.IDs(); !slices.Equal(got, []string{"p3", "p4"}) {
		t.Errorf("G top-2 %v, want [p3 p4]", got)
	}
	if row.Class != diff.Diverge || !row.IFCBlind {
		t.Errorf("class %s ifc-blind %v, want DIVERGE and IFC-blind (all selected passages authenticated)", row.Class, row.IFCBlind)
	}
	c := row.Culprits
	if c == nil {
		t.Fatal("no culprit report")
	}
	// "far" sits in a component without reset mass, so only three writes can matter.
	if c.Candidates != 3 {
		t.Errorf("%d candidates, want 3 (atk-p3, atk-p4, light)", c.Candidates)
	}
	var ids []string
	for _, x := range c.Set {
		ids = append(ids, x.EdgeID)
	}
	// Either attack edge alone still puts its passage in the top 2, so
	// both must go: the 1-minimal set is exactly the two attack writes.
	if !slices.Equal(ids, []string{"atk-p3", "atk-p4"}) || !c.Minimal {
		t.Errorf("culprits %v minimal %v, want [atk-p3 atk-p4] minimal", ids, c.Minimal)
	}
	for _, x := range c.Set {
		if x.Restores {
			t.Errorf("%s restores alone, but the other attack edge should still displace p1", x.EdgeID)
		}
		if x.Label.Rule != RuleNoSource {
			t.Errorf("%s decided by %q, want %q", x.EdgeID, x.Label.Rule, RuleNoSource)
		}
	}
	// Check 1-minimality through an independent path (WhatIf).
	w, err := r.WhatIf(context.Background(), q, BaseG, ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w.VsGAuth.Class != diff.Same {
		t.Errorf("removing the culprit set gives %v, want the G_auth selection", w.Selection.IDs())
	}
	for i := range ids {
		keep := slices.Delete(slices.Clone(ids), i, i+1)
		w, err := r.WhatIf(context.Background(), q, BaseG, keep, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w.VsGAuth.Class == diff.Same {
			t.Errorf("removing only %v already restores: set not 1-minimal", keep)
		}
	}
}

func TestLemma1Constants(t *testing.T) {
	if got := CaptureBound(0.5, 5); math.Abs(got-0.05) > 1e-15 {
		t.Errorf("capture bound %v, want 0.05 (AuthSelect, arXiv:2606.12290, d=0.5, k=5)", got)
	}
	if got := TeleportFloor(0.5, 0.2); math.Abs(got-0.10) > 1e-15 {
		t.Errorf("floor %v, want 0.10 for a uniform 5-seed target", got)
	}
}

func lemmaOf(t *testing.T, r *Replayer, reset map[string]float64) map[string]Lemma1 {
	t.Helper()
	row, err := r.Replay(context.Background(), Query{ID: "l", Reset: reset})
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]Lemma1{}
	for _, l := range row.Targets {
		found[l.NodeID] = l
	}
	return found
}

// The capture bound comes from the query's own seeds: a uniform 5-seed
// reset reproduces the paper's 0.05, while the same target under a query
// whose seed mass is concentrated on one other node is evictable.
func TestLemma1FromResetMasses(t *testing.T) {
	g, _ := attackGraph(t)
	r, err := NewReplayer(g, Config{})
	if err != nil {
		t.Fatal(err)
	}
	uniform := lemmaOf(t, r, map[string]float64{"q": 1, "m": 1, "p0": 1, "x": 1, "x2": 1})
	if l := uniform["p0"]; math.Abs(l.CaptureBound-CaptureBound(0.5, 5)) > 1e-15 || math.Abs(l.Floor-0.1) > 1e-15 || l.Evictable {
		t.Errorf("uniform seeds, p0: %+v, want floor 0.1 above bound 0.05", l)
	}
	if l, ok := uniform["p1"]; !ok || l.Floor != 0 || !l.Evictable {
		t.Errorf("uniform seeds, p1: %+v (present %v), want floor 0 and evictable", l, ok)
	}
	conc := lemmaOf(t, r, map[string]float64{"q": 4, "p0": 1})
	if l := conc["p0"]; math.Abs(l.Floor-0.1) > 1e-15 || math.Abs(l.CaptureBound-0.2) > 1e-15 || l.Seed != "q" || !l.Evictable {
		t.Errorf("concentrated seed, p0: %+v, want floor 0.1 below bound 0.25*0.8 from q", l)
	}
	// A target that is the only seed has no other seed to be out-captured by.
	alone := lemmaOf(t, r, map[string]float64{"p0": 1})
	if l := alone["p0"]; l.CaptureBound != 0 || l.Evictable {
		t.Errorf("sole seed p0: %+v, want bound 0, not evictable", l)
	}
}

// cleanGraph is attackGraph's authenticated part: no attack writes.
func cleanGraph(t *testing.T, extra ...Edge) *Graph {
	t.Helper()
	full, edges := attackGraph(t)
	var keep []Edge
	for _, e := range edges {
		if len(e.Prov.Sources) > 0 {
			keep = append(keep, e)
		}
	}
	g, err := NewGraph(full.Nodes(), append(keep, extra...), DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The eviction probe's weight is checked against independent replays: a
// graph with that edge a little heavier evicts the target, a little
// lighter does not. Margins are score minus the (k+1)-th.
func TestEvictionProbe(t *testing.T) {
	g := cleanGraph(t)
	r, err := NewReplayer(g, Config{K: 2, Evictions: true})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{ID: "e", Reset: map[string]float64{"q": 3, "m": 1}}
	row, err := r.Replay(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, l := range row.Targets {
		if l.RankG < 0 {
			continue
		}
		if want := l.ScoreG - row.G.Next.Score; math.Abs(l.Margin-want) > 1e-15 || l.Margin <= 0 {
			t.Errorf("%s: margin %v, want %v", l.NodeID, l.Margin, want)
		}
		ev := l.Eviction
		if ev == nil || !ev.Found {
			continue
		}
		found++
		probe := func(w float64) bool {
			pg := cleanGraph(t, Edge{ID: "probe", Src: ev.Seed, Dst: ev.Sink, Weight: w, Prov: noSource})
			rr, err := NewReplayer(pg, Config{K: 2})
			if err != nil {
				t.Fatal(err)
			}
			row, err := rr.Replay(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			return !slices.Contains(row.G.IDs(), l.NodeID)
		}
		if !probe(ev.Weight*1.01) || probe(ev.Weight*0.95) {
			t.Errorf("%s: probe %s->%s weight %g is not the eviction threshold", l.NodeID, ev.Seed, ev.Sink, ev.Weight)
		}
		if ev.Weight <= 0 || ev.Weight >= MaxProbeWeight {
			t.Errorf("%s: probe weight %g outside (0, %g)", l.NodeID, ev.Weight, MaxProbeWeight)
		}
	}
	if found == 0 {
		t.Fatalf("no selected target is evictable by one edge: %+v", row.Targets)
	}
}

func TestRank1Changed(t *testing.T) {
	g, _ := attackGraph(t)
	r, _ := NewReplayer(g, Config{K: 2})
	row, err := r.Replay(context.Background(), Query{ID: "r", Reset: map[string]float64{"q": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !row.Rank1Changed || row.G.Items[0].NodeID == row.GAuth.Items[0].NodeID {
		t.Errorf("rank 1 %s on G vs %s on G_auth, flag %v", row.G.Items[0].NodeID, row.GAuth.Items[0].NodeID, row.Rank1Changed)
	}
	same, err := NewReplayer(cleanGraph(t), Config{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	row, _ = same.Replay(context.Background(), Query{ID: "s", Reset: map[string]float64{"q": 3}})
	if row.Rank1Changed {
		t.Error("a graph without unauthenticated writes flags a rank-1 change")
	}
}

func TestWhatIfBothBases(t *testing.T) {
	g, _ := attackGraph(t)
	r, _ := NewReplayer(g, Config{K: 2})
	q := Query{ID: "w", Reset: map[string]float64{"q": 1}}
	w, err := r.WhatIf(context.Background(), q, BaseGAuth, nil, []string{"atk-p3", "atk-p4"})
	if err != nil {
		t.Fatal(err)
	}
	if w.VsG.Class != diff.Same {
		t.Errorf("G_auth plus both attack writes gives %v, want G's selection", w.Selection.IDs())
	}
	// Restoring only atk-p3 onto G_auth: p3 takes rank 0 and p0 stays.
	w, err = r.WhatIf(context.Background(), q, BaseGAuth, nil, []string{"atk-p3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Selection.IDs(); got[0] != "p3" || w.VsGAuth.Class != diff.Diverge {
		t.Errorf("G_auth + atk-p3: %v (%s), want p3 first and a divergence", got, w.VsGAuth.Class)
	}
	if _, err := r.WhatIf(context.Background(), q, BaseG, []string{"nope"}, nil); err == nil || !strings.Contains(err.Error(), `unknown edge "nope"`) {
		t.Errorf("unknown edge: %v", err)
	}
}

func TestRecordedSelection(t *testing.T) {
	g, _ := attackGraph(t)
	r, _ := NewReplayer(g, Config{K: 2})
	row, err := r.Replay(context.Background(), Query{ID: "r", Reset: map[string]float64{"q": 1}, Recorded: []string{"p3", "p4"}})
	if err != nil {
		t.Fatal(err)
	}
	if row.Recorded.Mismatch {
		t.Errorf("recording equal to the replay flagged as mismatch")
	}
	row, err = r.Replay(context.Background(), Query{ID: "r", Reset: map[string]float64{"q": 1}, Recorded: []string{"p0", "ghost"}})
	if err != nil {
		t.Fatal(err)
	}
	if !row.Recorded.Mismatch || !slices.Equal(row.Recorded.Unknown, []string{"ghost"}) {
		t.Errorf("recorded check %+v, want a mismatch naming ghost as unknown", row.Recorded)
	}
	if _, err := r.Replay(context.Background(), Query{ID: "dup", Reset: map[string]float64{"q": 1}, Recorded: []string{"p0", "p0"}}); err == nil || !strings.Contains(err.Error(), `"dup"`) {
		t.Errorf("repeated recorded id: %v, want an error naming the query", err)
	}
}

func TestImmuneSelectorsHoldWhilePPRDiverges(t *testing.T) {
	g, _ := attackGraph(t)
	r, _ := NewReplayer(g, Config{K: 2})
	// Dense pool: p2 and p1 (p2 ahead). From q, p1 and p2 are both two hops
	// on G_auth; no write touches them, so node-distance keeps dense order.
	q := Query{ID: "i", Reset: map[string]float64{"q": 1}, DenseScores: map[string]float64{"p0": 0.1, "p1": 0.7, "p2": 0.8, "p3": 0.2, "p4": 0.3}}
	row, err := r.Replay(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if row.Class != diff.Diverge {
		t.Fatalf("PPR class %s, want DIVERGE", row.Class)
	}
	if len(row.Immune) != 2 {
		t.Fatalf("%d immune rows, want 2", len(row.Immune))
	}
	for _, im := range row.Immune {
		if im.Class != diff.Same {
			t.Errorf("%s: class %s on the attack graph, want SAME", im.Selector, im.Class)
		}
		if got := im.G.IDs(); !slices.Equal(got, []string{"p2", "p1"}) {
			t.Errorf("%s: %v, want [p2 p1]", im.Selector, got)
		}
	}
}

// An unauthenticated write that shortens one pool member's distance to the
// center reorders node-distance but cannot change its set.
func TestNodeDistanceReordersOnly(t *testing.T) {
	nodes := []Node{{ID: "a", Kind: KindPassage}, {ID: "b", Kind: KindPassage}, {ID: "c", Kind: KindPassage}, {ID: "q", Kind: KindEntity}, {ID: "m", Kind: KindEntity}}
	edges := []Edge{
		{ID: "qm", Src: "q", Dst: "m", Weight: 1, Prov: signed},
		{ID: "ma", Src: "m", Dst: "a", Weight: 1, Prov: signed},
		{ID: "mb", Src: "m", Dst: "b", Weight: 1, Prov: signed},
		{ID: "qc", Src: "q", Dst: "c", Weight: 1, Prov: signed},
		{ID: "atk", Src: "q", Dst: "a", Weight: 60, Prov: noSource},
	}
	g, err := NewGraph(nodes, edges, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewReplayer(g, Config{K: 2})
	row, err := r.Replay(context.Background(), Query{ID: "n", Reset: map[string]float64{"q": 1}, DenseScores: map[string]float64{"a": 0.5, "b": 0.9, "c": 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	nd := row.Immune[1]
	if nd.Selector != SelectorNodeDistance || nd.Class != diff.Reorder {
		t.Fatalf("%s class %s, want node-distance REORDER", nd.Selector, nd.Class)
	}
	if !slices.Equal(nd.GAuth.IDs(), []string{"b", "a"}) || !slices.Equal(nd.G.IDs(), []string{"a", "b"}) {
		t.Errorf("node-distance G_auth %v G %v, want [b a] and [a b]", nd.GAuth.IDs(), nd.G.IDs())
	}
}

func TestReplayAllMatchesSequentialAndNamesBadQuery(t *testing.T) {
	g, _ := attackGraph(t)
	r, _ := NewReplayer(g, Config{K: 3, Culprits: true})
	var qs []Query
	for i, seed := range []string{"q", "m", "x", "p2", "p5"} {
		reset := map[string]float64{"q": float64(i)}
		reset[seed]++
		qs = append(qs, Query{ID: string(rune('a' + i)), Reset: reset})
	}
	rows, err := r.ReplayAll(context.Background(), qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		one, err := r.Replay(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one.G.IDs(), rows[i].G.IDs()) || !slices.Equal(one.GAuth.IDs(), rows[i].GAuth.IDs()) || one.QueryID != rows[i].QueryID {
			t.Errorf("query %s: parallel row differs from sequential", q.ID)
		}
	}
	// One unreplayable query fails alone, with its reason; the others stand.
	qs = append(qs[:2], Query{ID: "broken", Reset: map[string]float64{"q": -1}}, qs[2], Query{ID: "ghost", Reset: map[string]float64{"nowhere": 1}})
	rows, err = r.ReplayAll(context.Background(), qs, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		bad := qs[i].ID == "broken" || qs[i].ID == "ghost"
		if bad != (row.Err != nil) || bad != (row.Class == diff.Failed) || row.QueryID != qs[i].ID {
			t.Errorf("row %d (%s): class %s, err %v", i, row.QueryID, row.Class, row.Err)
		}
	}
	if !strings.Contains(rows[2].Err.Error(), `query "broken"`) || !strings.Contains(rows[4].Err.Error(), "nowhere") {
		t.Errorf("reasons: %v; %v", rows[2].Err, rows[4].Err)
	}
}

// Every weight the format allows replays: the smallest subnormal and
// MaxFloat64 give the transitions their ratios say.
func TestExtremeWeightsReplay(t *testing.T) {
	nodes := []Node{{ID: "q", Kind: KindEntity}, {ID: "a", Kind: KindPassage}, {ID: "b", Kind: KindPassage}, {ID: "c", Kind: KindPassage}}
	for _, w := range [][3]float64{{math.MaxFloat64, math.MaxFloat64, 5e-324}, {5e-324, 5e-324, 5e-324}, {1e308, 1e308, 1}} {
		edges := []Edge{{ID: "qa", Src: "q", Dst: "a", Weight: w[0]}, {ID: "qb", Src: "q", Dst: "b", Weight: w[1]}, {ID: "qc", Src: "q", Dst: "c", Weight: w[2]}}
		g, err := NewGraph(nodes, edges, DropSelfLoops)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := NewReplayer(g, Config{K: 3})
		row, err := r.Replay(context.Background(), Query{ID: "t", Reset: map[string]float64{"q": 1}})
		if err != nil {
			t.Fatalf("weights %v: %v", w, err)
		}
		sum := 0.0
		for _, it := range row.G.Items {
			if math.IsNaN(it.Score) || math.IsInf(it.Score, 0) {
				t.Fatalf("weights %v: score %v", w, it.Score)
			}
			sum += it.Score
		}
		if sum <= 0 {
			t.Fatalf("weights %v: no mass reached the passages", w)
		}
		sa, sc := row.G.Items[0].Score, row.G.Items[len(row.G.Items)-1].Score
		if w[0] == w[2] && math.Abs(sa-sc) > 1e-9 {
			t.Errorf("weights %v: equal weights, scores %v and %v", w, sa, sc)
		}
		if w[0] > w[2]*1e6 && !(sa > 10*sc) {
			t.Errorf("weights %v: the heavy edges do not dominate (%v vs %v)", w, sa, sc)
		}
	}
}

func TestTieAtCutoff(t *testing.T) {
	nodes := []Node{{ID: "q", Kind: KindEntity}, {ID: "a", Kind: KindPassage}, {ID: "b", Kind: KindPassage}, {ID: "c", Kind: KindPassage}}
	edges := []Edge{{ID: "qa", Src: "q", Dst: "a", Weight: 2}, {ID: "qb", Src: "q", Dst: "b", Weight: 1}, {ID: "qc", Src: "q", Dst: "c", Weight: 1}}
	g, _ := NewGraph(nodes, edges, DropSelfLoops)
	r, _ := NewReplayer(g, Config{K: 2})
	row, err := r.Replay(context.Background(), Query{ID: "t", Reset: map[string]float64{"q": 1}})
	if err != nil {
		t.Fatal(err)
	}
	// b and c are symmetric: node order picks b, and the cut-off is a tie.
	if !slices.Equal(row.G.IDs(), []string{"a", "b"}) || !row.G.TieAtCutoff {
		t.Errorf("selection %v tie %v, want [a b] with a tie at the cut-off", row.G.IDs(), row.G.TieAtCutoff)
	}
	r3, _ := NewReplayer(g, Config{K: 3})
	row, _ = r3.Replay(context.Background(), Query{ID: "t", Reset: map[string]float64{"q": 1}})
	if row.G.TieAtCutoff || row.G.Next != nil {
		t.Errorf("k=3 over 3 passages: tie %v next %v, want no tie and no next", row.G.TieAtCutoff, row.G.Next)
	}
}

// denseSolve is an independent reference: Gaussian elimination on
// (I - d*M) x = (1-d) r, where M = P^T + r * 1_dangling^T, with self-loops
// dropped and parallel edges summed.
func denseSolve(n int, edges [][3]float64, r []float64, d float64) []float64 {
	A := make([][]float64, n)
	for i := range A {
		A[i] = make([]float64, n)
	}
	for _, e := range edges {
		a, b, w := int(e[0]), int(e[1]), e[2]
		if a == b || w == 0 {
			continue
		}
		A[a][b] += w
		A[b][a] += w
	}
	M := make([][]float64, n+0)
	for i := range M {
		M[i] = make([]float64, n+1)
	}
	for u := 0; u < n; u++ {
		var s float64
		for v := 0; v < n; v++ {
			s += A[u][v]
		}
		for v := 0; v < n; v++ {
			var m float64
			if s > 0 {
				m = A[u][v] / s
			} else {
				m = r[v]
			}
			M[v][u] -= d * m
		}
	}
	for i := 0; i < n; i++ {
		M[i][i] += 1
		M[i][n] = (1 - d) * r[i]
	}
	for c := 0; c < n; c++ {
		p := c
		for i := c + 1; i < n; i++ {
			if math.Abs(M[i][c]) > math.Abs(M[p][c]) {
				p = i
			}
		}
		M[c], M[p] = M[p], M[c]
		for i := 0; i < n; i++ {
			if i == c {
				continue
			}
			f := M[i][c] / M[c][c]
			for j := c; j <= n; j++ {
				M[i][j] -= f * M[c][j]
			}
		}
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = M[i][n] / M[i][i]
	}
	return x
}

func TestRandomGraphsAgreeWithDenseSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 40; trial++ {
		n := 3 + rng.IntN(25)
		nodes := make([]Node, n)
		for i := range nodes {
			kind := KindEntity
			if rng.IntN(2) == 0 {
				kind = KindPassage
			}
			nodes[i] = Node{ID: string(rune('A'+i%26)) + string(rune('0'+i/26)), Kind: kind}
		}
		var edges []Edge
		var raw, rawAuth [][3]float64
		for e := 0; e < rng.IntN(3*n); e++ {
			a, b := rng.IntN(n), rng.IntN(n)
			w := []float64{0, 0.5, 1, 1, 2, 4, 60}[rng.IntN(7)]
			prov := signed
			if rng.IntN(4) == 0 {
				prov = noSource
			} else {
				rawAuth = append(rawAuth, [3]float64{float64(a), float64(b), w})
			}
			edges = append(edges, Edge{ID: "e" + string(rune('0'+e%10)) + string(rune('a'+e/10)), Src: nodes[a].ID, Dst: nodes[b].ID, Weight: w, Prov: prov})
			raw = append(raw, [3]float64{float64(a), float64(b), w})
		}
		reset := map[string]float64{}
		for i := range nodes {
			if rng.IntN(3) == 0 {
				reset[nodes[i].ID] = rng.Float64()
			}
		}
		reset[nodes[0].ID] += 0.5
		g, err := NewGraph(nodes, edges, DropSelfLoops)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := NewReplayer(g, Config{})
		rv, _ := g.ResetVector(reset)
		want := denseSolve(n, raw, rv, 0.5)
		wantAuth := denseSolve(n, rawAuth, rv, 0.5)
		got, err := g.solve(context.Background(), rv, r.cfg.Solve, []*view{r.full, r.auth})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if math.Abs(got[0][i]-want[i]) > 1e-9 || math.Abs(got[1][i]-wantAuth[i]) > 1e-9 {
				t.Fatalf("trial %d node %d: G %v want %v, G_auth %v want %v", trial, i, got[0][i], want[i], got[1][i], wantAuth[i])
			}
		}
	}
}

// A target tied at the cut-off is evicted by any positive weight: the probe
// says so instead of reporting its search floor as a threshold (issue 23,
// item 12).
func TestEvictionProbeTiedTarget(t *testing.T) {
	nodes := []Node{{ID: "q", Kind: KindEntity}, {ID: "a", Kind: KindPassage}, {ID: "b", Kind: KindPassage}, {ID: "c", Kind: KindPassage}}
	edges := []Edge{{ID: "qa", Src: "q", Dst: "a", Weight: 1, Prov: noSource}, {ID: "qb", Src: "q", Dst: "b", Weight: 1, Prov: noSource}, {ID: "qc", Src: "q", Dst: "c", Weight: 1, Prov: noSource}}
	g, err := NewGraph(nodes, edges, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReplayer(g, Config{K: 2, Evictions: true})
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Replay(context.Background(), Query{ID: "tie", Reset: map[string]float64{"q": 1}})
	if err != nil {
		t.Fatal(err)
	}
	tied := 0
	for _, l := range row.Targets {
		ev := l.Eviction
		if l.RankG < 0 || ev == nil {
			continue
		}
		if ev.Found && ev.Weight > 0 && ev.Weight < 1e-5 {
			t.Errorf("%s: threshold %g is the search floor, not a threshold", l.NodeID, ev.Weight)
		}
		if ev.AnyPositive {
			tied++
			if !ev.Found || ev.Weight != 0 {
				t.Errorf("%s: %+v", l.NodeID, ev)
			}
		}
	}
	if tied == 0 {
		t.Fatalf("no tied target evicted at any positive weight: %+v", row.Targets)
	}
}
