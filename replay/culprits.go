package replay

import (
	"slices"
	"sort"

	"github.com/memscope/memscope/diff"
)

// Culprits is the result of delta debugging (ddmin) over the unauthenticated
// writes of one row: a set of writes whose removal from G alone restores the
// G_auth selection (same items, same order).
//
// ddmin guarantees 1-minimality when it completes: removing the Set restores
// the G_auth selection, and putting back any single write of the Set breaks
// that again. It does not guarantee the globally smallest such set (that
// search is exponential); a different, smaller set may exist.
type Culprits struct {
	// Candidates is the number of unauthenticated writes that could matter:
	// those in a connected component of G that holds reset mass. Writes
	// elsewhere carry zero walk mass in every subgraph, so leaving them out
	// is exact.
	Candidates int
	Set        []Culprit
	// Restores: removing Set from G restores the G_auth selection. False
	// only when even removing every candidate does not (possible when the
	// G_auth cut-off is a near-tie); Set is then empty.
	Restores bool
	// Minimal: ddmin finished within the budget, so Set is 1-minimal.
	// False: the budget ran out; Set still restores G_auth but may shrink.
	Minimal bool
	Solves  int // PPR solves spent
}

// Culprit is one write of the culprit set with the effect of removing it
// from G on its own.
type Culprit struct {
	EdgeID   string
	Src, Dst string
	Weight   float64
	Label    EdgeLabel
	Alone    Selection   // selection on G without this write only
	Changes  diff.Result // G (before) against G without this write (after)
	Restores bool        // removing it alone restores the G_auth selection
}

func (r *Replayer) culprits(reset []float64, k int, onG []float64, row Row) (*Culprits, error) {
	g := r.g
	cands := r.reachableUnauth(reset)
	// Put the writes that move the most walk mass on G first, so ddmin's
	// first halves tend to hold the culprits and it converges in fewer solves.
	flow := func(e int32) float64 {
		ed := g.edges[e]
		a, b := g.nodeIndex[ed.Src], g.nodeIndex[ed.Dst]
		var f float64
		if s := g.strength[a]; s > 0 {
			f += ed.Weight * onG[a] / s
		}
		if s := g.strength[b]; s > 0 {
			f += ed.Weight * onG[b] / s
		}
		return f
	}
	sort.SliceStable(cands, func(i, j int) bool { return flow(cands[i]) > flow(cands[j]) })
	out := &Culprits{Candidates: len(cands)}
	want := row.GAuth.IDs()
	restores := func(without []int32) (bool, error) {
		out.Solves++
		s, err := g.solve(reset, r.cfg.Solve, []*view{g.newView(without)})
		if err != nil {
			return false, err
		}
		got := g.selectPassages(s[0], k).IDs()
		return slices.Equal(got, want), nil
	}
	// ddmin assumes the full candidate set restores; check rather than trust.
	if ok, err := restores(cands); err != nil || !ok {
		return out, err
	}
	out.Restores = true
	set, minimal, err := ddmin(cands, restores, r.cfg.CulpritBudget-1)
	if err != nil {
		return nil, err
	}
	out.Minimal = minimal
	sort.Slice(set, func(i, j int) bool { return set[i] < set[j] })
	for _, e := range set {
		ed := g.edges[e]
		s, err := g.solve(reset, r.cfg.Solve, []*view{g.newView([]int32{e})})
		if err != nil {
			return nil, err
		}
		out.Solves++
		c := Culprit{EdgeID: ed.ID, Src: ed.Src, Dst: ed.Dst, Weight: ed.Weight, Label: r.labels[e]}
		c.Alone = g.selectPassages(s[0], k)
		if c.Changes, err = diff.Compare(row.G.DiffItems(), c.Alone.DiffItems()); err != nil {
			return nil, err
		}
		c.Restores = slices.Equal(c.Alone.IDs(), want)
		out.Set = append(out.Set, c)
	}
	return out, nil
}

// reachableUnauth returns the unauthenticated walk-carrying edges inside the
// connected components of G that contain reset support.
func (r *Replayer) reachableUnauth(reset []float64) []int32 {
	g := r.g
	seen := make([]bool, len(g.nodes))
	var stack []int32
	for v, m := range reset {
		if m > 0 && !seen[v] {
			seen[v] = true
			stack = append(stack, int32(v))
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for p := g.offsets[v]; p < g.offsets[v+1]; p++ {
			if u := g.cols[p]; !seen[u] {
				seen[u] = true
				stack = append(stack, u)
			}
		}
	}
	var out []int32
	for _, e := range r.unauth {
		ed := g.edges[e]
		a, b := g.nodeIndex[ed.Src], g.nodeIndex[ed.Dst]
		if g.carriesWalk(int(e), a, b) && seen[a] {
			out = append(out, e)
		}
	}
	return out
}

// ddmin reduces cands (for which test is assumed true) to a 1-minimal subset
// for which test is still true (Zeller and Hildebrandt's delta debugging,
// complement-and-subset form). It stops after budget tests and then reports
// minimal=false with the smallest passing set found so far.
func ddmin(cands []int32, test func([]int32) (bool, error), budget int) (set []int32, minimal bool, err error) {
	c := append([]int32(nil), cands...)
	if len(c) == 0 {
		return c, true, nil
	}
	spent := 0
	try := func(s []int32) (bool, error) {
		spent++
		return test(s)
	}
	n := 2
	for len(c) >= 2 {
		if n > len(c) {
			n = len(c)
		}
		parts := split(c, n)
		reduced := false
		for _, p := range parts {
			if spent >= budget {
				return c, false, nil
			}
			ok, err := try(p)
			if err != nil {
				return nil, false, err
			}
			if ok {
				c, n, reduced = p, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range parts {
				if spent >= budget {
					return c, false, nil
				}
				comp := complement(parts, i)
				ok, err := try(comp)
				if err != nil {
					return nil, false, err
				}
				if ok {
					c, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break // every single removal failed: 1-minimal
			}
			n = min(2*n, len(c))
		}
	}
	return c, true, nil
}

func split(c []int32, n int) [][]int32 {
	parts := make([][]int32, 0, n)
	start := 0
	for i := 0; i < n; i++ {
		end := start + (len(c)-start)/(n-i)
		parts = append(parts, c[start:end])
		start = end
	}
	return parts
}

func complement(parts [][]int32, skip int) []int32 {
	var out []int32
	for i, p := range parts {
		if i != skip {
			out = append(out, p...)
		}
	}
	return out
}
