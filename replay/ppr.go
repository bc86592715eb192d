package replay

import (
	"fmt"
	"math"
	"sort"
)

// Defaults of the selector as HippoRAG2 runs it.
const (
	DefaultDamping   = 0.5
	DefaultTolerance = 1e-10
	DefaultK         = 5
)

// SolveOptions tunes the PPR solve. Zero values take the defaults.
type SolveOptions struct {
	Damping   float64 // probability of following an edge; 1-Damping restarts by the reset vector
	Tolerance float64 // stop when an iteration moves the scores less than this in L1
}

func (o SolveOptions) normalised() (SolveOptions, error) {
	if o.Damping == 0 {
		o.Damping = DefaultDamping
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if math.IsNaN(o.Damping) || o.Damping < 0 || o.Damping >= 1 {
		return o, fmt.Errorf("replay: damping %v out of range [0, 1)", o.Damping)
	}
	if math.IsNaN(o.Tolerance) || o.Tolerance <= 0 {
		return o, fmt.Errorf("replay: tolerance %v must be positive", o.Tolerance)
	}
	return o, nil
}

// ResetVector validates a reset map (node id -> mass as stored) and returns it
// normalised to sum 1 in node order. Negative, NaN, infinite or all-zero
// masses and unknown node ids are errors.
func (g *Graph) ResetVector(reset map[string]float64) ([]float64, error) {
	r := make([]float64, len(g.nodes))
	var sum float64
	// Iterate in a fixed order so the error named for bad input is stable.
	ids := make([]string, 0, len(reset))
	for id := range reset {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		m := reset[id]
		i, ok := g.nodeIndex[id]
		if !ok {
			return nil, fmt.Errorf("reset vector names unknown node %q", id)
		}
		if math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
			return nil, fmt.Errorf("reset mass of node %q is %v, want a finite non-negative number", id, m)
		}
		r[i] = m
		sum += m
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return nil, fmt.Errorf("reset vector has total mass %v, want a positive finite total", sum)
	}
	for i := range r {
		r[i] /= sum
	}
	return r, nil
}

// view is G minus a set of removed edges, expressed as corrections to G.
type view struct {
	removed []int32   // removed walk-carrying edges, deduplicated
	invS    []float64 // 1/strength per node, 0 for dangling nodes
	dangl   []int32   // nodes with no walk weight left
}

// newView builds the view of G without the given edges (indices into Edges).
func (g *Graph) newView(without []int32) *view {
	n := len(g.nodes)
	v := &view{invS: make([]float64, n)}
	var gone []uint64
	if len(without) > 0 {
		gone = make([]uint64, (len(g.edges)+63)/64)
	}
	touched := map[int32]struct{}{}
	for _, e := range without {
		if gone[e/64]&(1<<(e%64)) != 0 {
			continue
		}
		gone[e/64] |= 1 << (e % 64)
		ed := g.edges[e]
		a, b := g.nodeIndex[ed.Src], g.nodeIndex[ed.Dst]
		if !g.carriesWalk(int(e), a, b) {
			continue
		}
		v.removed = append(v.removed, e)
		touched[a] = struct{}{}
		touched[b] = struct{}{}
	}
	for u := 0; u < n; u++ {
		s := g.strength[u]
		if _, ok := touched[int32(u)]; ok {
			// Recompute exactly rather than subtract, so a node that lost all
			// its edges is exactly dangling.
			s = 0
			for p := g.offsets[u]; p < g.offsets[u+1]; p++ {
				e := g.edgeOf[p]
				if gone[e/64]&(1<<(e%64)) == 0 {
					s += g.weights[p]
				}
			}
		}
		if s > 0 {
			v.invS[u] = 1 / s
		} else {
			v.dangl = append(v.dangl, int32(u))
		}
	}
	return v
}

// PPR solves Personalized PageRank on several views of G at once: views[j]
// lists edge indices removed from G (nil is G itself). It returns one score
// vector per view, in node order, each summing to 1.
func (g *Graph) PPR(reset []float64, opt SolveOptions, views ...[]int) ([][]float64, error) {
	if len(reset) != len(g.nodes) {
		return nil, fmt.Errorf("replay: reset vector has %d entries for %d nodes", len(reset), len(g.nodes))
	}
	vs := make([]*view, len(views))
	for j, w := range views {
		idx := make([]int32, len(w))
		for i, e := range w {
			if e < 0 || e >= len(g.edges) {
				return nil, fmt.Errorf("replay: view %d removes edge index %d, graph has %d edges", j, e, len(g.edges))
			}
			idx[i] = int32(e)
		}
		vs[j] = g.newView(idx)
	}
	return g.solve(reset, opt, vs)
}

func (g *Graph) solve(r []float64, opt SolveOptions, vs []*view) ([][]float64, error) {
	opt, err := opt.normalised()
	if err != nil {
		return nil, err
	}
	n, m := len(g.nodes), len(vs)
	if m == 0 {
		return nil, nil
	}
	d := opt.Damping
	x := make([]float64, n*m)
	next := make([]float64, n*m)
	y := make([]float64, n*m)
	for u := 0; u < n; u++ {
		for j := 0; j < m; j++ {
			x[u*m+j] = r[u]
		}
	}
	// Jacobi iteration contracts by d in L1 (the operator is column
	// stochastic), so this bound is generous; hitting it means a bug.
	maxIter := 1
	if d > 0 {
		maxIter = int(math.Ceil(math.Log(opt.Tolerance/4)/math.Log(d))) + 100
	}
	restart := make([]float64, m)
	delta := make([]float64, m)
	for iter := 0; ; iter++ {
		if iter >= maxIter {
			return nil, fmt.Errorf("replay: PPR did not converge to %g in %d iterations", opt.Tolerance, maxIter)
		}
		for j, v := range vs {
			var dm float64
			for _, u := range v.dangl {
				dm += x[int(u)*m+j]
			}
			restart[j] = d*dm + (1 - d)
			inv := v.invS
			for u := 0; u < n; u++ {
				y[u*m+j] = x[u*m+j] * inv[u]
			}
		}
		switch m {
		case 1:
			g.pull1(next, y, r, d, restart[0])
		case 2:
			g.pull2(next, y, r, d, restart[0], restart[1])
		default:
			g.pullN(next, y, r, d, restart, m)
		}
		for j, v := range vs {
			for _, e := range v.removed {
				ed := &g.edges[e]
				a, b := int(g.nodeIndex[ed.Src]), int(g.nodeIndex[ed.Dst])
				if a == b {
					next[a*m+j] -= d * 2 * ed.Weight * y[a*m+j]
					continue
				}
				next[a*m+j] -= d * ed.Weight * y[b*m+j]
				next[b*m+j] -= d * ed.Weight * y[a*m+j]
			}
		}
		done := true
		for j := range delta {
			delta[j] = 0
		}
		for i := range next {
			delta[i%m] += math.Abs(next[i] - x[i])
		}
		for j := range delta {
			if !(delta[j] < opt.Tolerance) {
				done = false
			}
		}
		x, next = next, x
		if done {
			break
		}
	}
	out := make([][]float64, m)
	for j := range out {
		s := make([]float64, n)
		var sum float64
		for u := 0; u < n; u++ {
			v := x[u*m+j]
			if v < 0 { // cancellation residue of removed edges
				v = 0
			}
			s[u] = v
			sum += v
		}
		for u := range s {
			s[u] /= sum
		}
		out[j] = s
	}
	return out, nil
}

func (g *Graph) pull1(next, y, r []float64, d, c float64) {
	off, cols, w := g.offsets, g.cols, g.weights
	for v := range r {
		var acc float64
		for p := off[v]; p < off[v+1]; p++ {
			acc += w[p] * y[cols[p]]
		}
		next[v] = d*acc + c*r[v]
	}
}

func (g *Graph) pull2(next, y, r []float64, d, c0, c1 float64) {
	off, cols, w := g.offsets, g.cols, g.weights
	for v := range r {
		var a0, a1 float64
		for p := off[v]; p < off[v+1]; p++ {
			u := 2 * int(cols[p])
			wp := w[p]
			a0 += wp * y[u]
			a1 += wp * y[u+1]
		}
		next[2*v] = d*a0 + c0*r[v]
		next[2*v+1] = d*a1 + c1*r[v]
	}
}

func (g *Graph) pullN(next, y, r []float64, d float64, c []float64, m int) {
	off, cols, w := g.offsets, g.cols, g.weights
	acc := make([]float64, m)
	for v := range r {
		for j := range acc {
			acc[j] = 0
		}
		for p := off[v]; p < off[v+1]; p++ {
			u := int(cols[p]) * m
			wp := w[p]
			for j := range acc {
				acc[j] += wp * y[u+j]
			}
		}
		for j := range acc {
			next[v*m+j] = d*acc[j] + c[j]*r[v]
		}
	}
}
