package replay

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// Lemma1 is AuthSelect's (arXiv:2606.12290) Lemma 1 diagnostic for one target passage, from the
// query's own reset masses. The teleport floor (1-d)*r(target) is mass no
// edge write can take away. A wrong sink fed by one injected edge from a
// seed s captures about (1-d)*d*r(s) (s keeps at least its own floor
// (1-d)*r(s) and passes a share d of it on; an edge far heavier than s's
// clean edges takes nearly all of that share). The capture bound is that
// mass for the strongest seed other than the target. With a uniform k-seed
// reset (r(s) = 1/k) this is the paper's constant (1-d)*d/k = 0.05 at
// d = 0.5, k = 5; a query whose seed mass is concentrated allows more, one
// spread over many seeds less. A target whose floor is below the bound can
// be pushed out of (or joined in) the top-k by structure alone.
type Lemma1 struct {
	NodeID       string  `json:"node_id"`
	ResetMass    float64 `json:"reset_mass"`    // normalised reset mass r(target)
	Floor        float64 `json:"floor"`         // (1-d) * r(target)
	CaptureBound float64 `json:"capture_bound"` // (1-d) * d * r(strongest other seed)
	Seed         string  `json:"seed"`          // that seed ("" when the reset has no other node)
	Evictable    bool    `json:"evictable"`     // Floor < CaptureBound
	ScoreG       float64 `json:"score_g"`
	ScoreGAuth   float64 `json:"score_g_auth"`
	// RankG is the 0-based rank on G, -1 when not selected there. Margin
	// is the target's score on G minus the best passage outside the top-k
	// on G (the (k+1)-th); NaN when the target is not selected on G or no
	// passage is left out.
	RankG  int     `json:"rank_g"`
	Margin float64 `json:"margin"`
	// Eviction is the smallest single-edge probe that evicts the target,
	// set only when Config.Evictions is on and the target is selected on G.
	Eviction *Eviction `json:"eviction"`
}

// Eviction is the result of the single-edge probe for one selected target:
// one added no-source edge Seed -> Sink of weight Weight makes the target
// leave the top-k on G. Found is false when no probe up to MaxProbeWeight
// evicts it.
type Eviction struct {
	Found  bool    `json:"found"`
	Weight float64 `json:"weight"`
	// AnyPositive: the lightest probe tried (minProbeWeight) already
	// evicts the target, which is then tied at (or within a hair of) the
	// cut-off: any positive weight evicts it, and Weight is 0 rather than
	// the search's floor.
	AnyPositive bool   `json:"any_positive"`
	Seed        string `json:"seed"`
	Sink        string `json:"sink"`
	Solves      int    `json:"solves"` // PPR solves spent
}

// MaxProbeWeight caps the probe edge's weight: twice the heaviest attack
// edge AuthSelect (arXiv:2606.12290) reports (120), far above clean edges (median 1, max 4).
const MaxProbeWeight = 240.0

// Probe search breadth: the strongest seeds and the best excluded passages.
const (
	probeSeeds = 3
	probeSinks = 3
	probeSteps = 24 // bisection steps on a log scale: ~1e-4 relative
	// minProbeWeight is the bisection's lower end: a probe this light that
	// evicts means any positive weight does (Eviction.AnyPositive).
	minProbeWeight = 1e-6
)

// CaptureBound is the paper's constant one-hop capture bound (1-d)*d/k
// for a uniform k-seed reset.
func CaptureBound(damping float64, k int) float64 {
	if k <= 0 {
		return 0
	}
	return (1 - damping) * damping / float64(k)
}

// SeedCapture is the one-hop capture a single injected edge from a seed of
// reset mass r can feed a sink: (1-d)*d*r.
func SeedCapture(damping, r float64) float64 { return (1 - damping) * damping * r }

// TeleportFloor is the mass (1-d)*r a target keeps whatever edges are written.
func TeleportFloor(damping, reset float64) float64 { return (1 - damping) * reset }

// TopSeeds are the two nodes with the largest reset mass (ties by node
// order), -1 where there is none: all CaptureBoundFor needs of a reset.
func TopSeeds(reset []float64) (first, second int) {
	first, second = -1, -1
	for i, m := range reset {
		switch {
		case !(m > 0):
		case first < 0 || m > reset[first]:
			first, second = i, first
		case second < 0 || m > reset[second]:
			second = i
		}
	}
	return first, second
}

// CaptureBoundFor is Lemma 1's capture bound for target under a
// normalised reset whose TopSeeds are first and second: (1-d) d r(s) for
// the strongest seed s other than the target, and s (-1 and bound 0 when
// the target is the only seed). It is the one rule for whether a target
// is evictable (Evictable) that replay's Lemma 1 rows and exposure's
// anchored targets share (docs/REPLAY.md, docs/EXPOSURE.md).
func CaptureBoundFor(damping float64, reset []float64, first, second, target int) (float64, int) {
	s := first
	if s == target {
		s = second
	}
	if s < 0 {
		return 0, -1
	}
	return SeedCapture(damping, reset[s]), s
}

// Evictable says whether structure alone can push a target with this
// teleport floor out of (or into) the top-k: its floor is below the
// capture bound. Not evictable is what exposure calls anchored.
func Evictable(floor, bound float64) bool { return floor < bound }

// seedOrder lists node indices with positive reset mass, largest first
// (ties by node order).
func seedOrder(reset []float64) []int32 {
	var s []int32
	for i, m := range reset {
		if m > 0 {
			s = append(s, int32(i))
		}
	}
	sort.SliceStable(s, func(a, b int) bool { return reset[s[a]] > reset[s[b]] })
	return s
}

func (r *Replayer) lemma1(q Query, reset []float64, k int, onG, onAuth []float64, row Row) []Lemma1 {
	d := r.cfg.Solve.Damping
	first, second := TopSeeds(reset)
	rankG := map[string]int{}
	for i, it := range row.G.Items {
		rankG[it.NodeID] = i
	}
	seen := map[string]bool{}
	var out []Lemma1
	add := func(id string) {
		i, ok := r.g.nodeIndex[id]
		if !ok || seen[id] || r.g.nodes[i].Kind != KindPassage {
			return
		}
		seen[id] = true
		l := Lemma1{NodeID: id, ResetMass: reset[i], Floor: TeleportFloor(d, reset[i]), ScoreG: onG[i], ScoreGAuth: onAuth[i], RankG: -1, Margin: math.NaN()}
		if bound, s := CaptureBoundFor(d, reset, first, second, int(i)); s >= 0 {
			l.Seed, l.CaptureBound = r.g.nodes[s].ID, bound
		}
		l.Evictable = Evictable(l.Floor, l.CaptureBound)
		if rk, ok := rankG[id]; ok {
			l.RankG = rk
			if row.G.Next != nil {
				l.Margin = onG[i] - row.G.Next.Score
			}
		}
		out = append(out, l)
	}
	for _, it := range row.GAuth.Items {
		add(it.NodeID)
	}
	for _, it := range row.G.Items {
		add(it.NodeID)
	}
	for _, id := range q.Recorded {
		add(id)
	}
	return out
}

// evictions runs the single-edge probe for every target selected on G: for
// the strongest seeds and the best passages left out of the top-k, add one
// no-source edge seed -> sink and bisect (on a log scale, up to
// MaxProbeWeight) for the smallest weight that takes the target out of the
// top-k. Each step is one PPR solve on G plus the probe.
func (r *Replayer) evictions(ctx context.Context, reset []float64, k int, onG []float64, row Row, targets []Lemma1) error {
	sel := map[int32]bool{}
	for _, it := range row.G.Items {
		sel[r.g.nodeIndex[it.NodeID]] = true
	}
	var sinks []int32
	for _, p := range r.g.topK(func(i int32) float64 { return onG[i] }, r.g.passages, k+probeSinks).Items {
		if i := r.g.nodeIndex[p.NodeID]; !sel[i] {
			sinks = append(sinks, i)
		}
	}
	seeds := seedOrder(reset)
	if len(seeds) > probeSeeds {
		seeds = seeds[:probeSeeds]
	}
	type pair struct{ s, c int32 }
	probes := map[pair]*probeGraph{}
	for ti := range targets {
		t := &targets[ti]
		if t.RankG < 0 {
			continue
		}
		target := r.g.nodeIndex[t.NodeID]
		ev := &Eviction{}
		t.Eviction = ev
		for _, s := range seeds {
			for _, c := range sinks {
				if ev.AnyPositive {
					break // nothing lighter exists
				}
				if s == c {
					continue
				}
				pg := probes[pair{s, c}]
				if pg == nil {
					var err error
					if pg, err = r.newProbe(s, c); err != nil {
						return err
					}
					probes[pair{s, c}] = pg
				}
				evicted := func(w float64) (bool, error) {
					ev.Solves++
					return pg.evicts(ctx, r, reset, onG, k, target, w)
				}
				hi := MaxProbeWeight
				if ev.Found {
					hi = ev.Weight // only a lighter probe can improve
				}
				ok, err := evicted(hi)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				lo := minProbeWeight
				if ok, err := evicted(lo); err != nil {
					return err
				} else if ok {
					// Tied at the cut-off: no threshold to bisect for.
					ev.Found, ev.AnyPositive, ev.Weight, ev.Seed, ev.Sink = true, true, 0, r.g.nodes[s].ID, r.g.nodes[c].ID
					break
				}
				for step := 0; step < probeSteps; step++ {
					mid := math.Sqrt(lo * hi)
					ok, err := evicted(mid)
					if err != nil {
						return err
					}
					if ok {
						hi = mid
					} else {
						lo = mid
					}
				}
				ev.Found, ev.Weight, ev.Seed, ev.Sink = true, hi, r.g.nodes[s].ID, r.g.nodes[c].ID
			}
		}
	}
	return nil
}

// probeGraph is G plus one extra edge whose weight can be changed in place.
type probeGraph struct {
	g     *Graph
	slots []int32 // the probe's CSR entries
	ends  [2]int32
	base  [2]float64 // the ends' strengths without the probe
}

func (r *Replayer) newProbe(s, c int32) (*probeGraph, error) {
	b, err := NewGraphBuilder(r.g.nodes, r.g.EdgeCount()+1, r.g.selfLoops)
	for i := 0; err == nil && i < r.g.EdgeCount(); i++ {
		err = b.Add(r.g.Edge(i))
	}
	if err == nil {
		err = b.Add(Edge{ID: "\x00probe", Src: r.g.nodes[s].ID, Dst: r.g.nodes[c].ID, Weight: 1})
	}
	var g *Graph
	if err == nil {
		g, err = b.Graph()
	}
	if err != nil {
		return nil, fmt.Errorf("replay: eviction probe: %w", err)
	}
	pg := &probeGraph{g: g, ends: [2]int32{s, c}, base: [2]float64{g.strength[s] - 1, g.strength[c] - 1}}
	last := int32(g.EdgeCount() - 1)
	for p, e := range g.edgeOf {
		if e == last {
			pg.slots = append(pg.slots, int32(p))
		}
	}
	return pg, nil
}

// evicts sets the probe's weight to w and says whether the target is then
// outside the top-k on G. The solve starts from G's scores (the probe
// graph has G's nodes in G's order) and stops once the selection is
// certain (selectFrom).
func (pg *probeGraph) evicts(ctx context.Context, r *Replayer, reset, onG []float64, k int, target int32, w float64) (bool, error) {
	for _, p := range pg.slots {
		pg.g.weights[p] = w
	}
	for j, v := range pg.ends {
		pg.g.strength[v] = pg.base[j] + w
	}
	sel, _, err := pg.g.selectFrom(ctx, reset, r.cfg.Solve, pg.g.newView(nil), onG, k)
	if err != nil {
		return false, err
	}
	for _, it := range sel.Items {
		if it.NodeID == pg.g.nodes[target].ID {
			return false, nil
		}
	}
	return true, nil
}
