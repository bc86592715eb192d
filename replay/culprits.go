package replay

import (
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

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
	Candidates int       `json:"candidates"`
	Set        []Culprit `json:"set"`
	// Restores: removing Set from G restores the G_auth selection. False
	// only when even removing every candidate does not (possible when the
	// G_auth cut-off is a near-tie); Set is then empty.
	Restores bool `json:"restores"`
	// Minimal: the search finished within its budget, so Set is
	// 1-minimal. False: the budget or the time ran out; Set still restores
	// G_auth but may shrink.
	Minimal   bool        `json:"minimal"`
	OutOfTime bool        `json:"out_of_time"` // the time budget, not the solve budget, ran out
	Mode      CulpritMode `json:"mode"`
	Solves    int         `json:"solves"` // PPR solves spent
	Sweeps    int         `json:"sweeps"` // Gauss-Seidel sweeps over the graph spent by those solves
	// PushWork counts the adjacency entries the tests' local pushes went
	// through (one sweep goes through every entry once), plus two passes
	// for the residuals of G's and G_auth's scores the pushes start from.
	PushWork int64 `json:"push_work"`
}

// Culprit is one write of the culprit set with the effect of removing it
// from G on its own.
type Culprit struct {
	EdgeID string    `json:"edge_id"`
	Src    string    `json:"src"`
	Dst    string    `json:"dst"`
	Weight float64   `json:"weight"`
	Label  EdgeLabel `json:"label"`
	// Alone is the selection on G without this write only. Its ranking is
	// exact; its scores are certified only to the precision that decides
	// the ranking (see selectFrom), not to the full solve tolerance.
	Alone    Selection   `json:"alone"`
	Changes  diff.Result `json:"changes"`  // G (before) against G without this write (after)
	Restores bool        `json:"restores"` // removing it alone restores the G_auth selection
}

func (r *Replayer) culprits(ctx context.Context, reset []float64, k int, onG, onAuth []float64, row Row) (*Culprits, error) {
	g := r.g
	deadline := time.Now().Add(r.cfg.CulpritTime)
	cands := r.reachableUnauth(reset)
	// Put the writes that move the most walk mass on G first, so ddmin's
	// first halves tend to hold the culprits and it converges in fewer
	// solves, and so the fast search's shortest restoring prefix is short.
	flow := r.walkFlow(cands, onG)
	sort.SliceStable(cands, func(i, j int) bool { return flow[cands[i]] > flow[cands[j]] })
	out := &Culprits{Candidates: len(cands), Mode: r.cfg.CulpritMode}
	var wantIdx []int32
	for _, it := range row.GAuth.Items {
		wantIdx = append(wantIdx, g.nodeIndex[it.NodeID])
	}
	var sweeps, work atomic.Int64
	work.Add(2 * int64(len(g.cols))) // the two bases' residuals
	// Each test pushes from G's scores or from G_auth's, whichever view
	// differs from the tested one by less walk mass.
	baseG, baseA := r.pushBases(reset, onG, onAuth)
	var flowAll float64
	for _, e := range cands {
		flowAll += flow[e]
	}
	pushers := make(chan *culpritPusher, 2)
	for range cap(pushers) {
		pushers <- r.pusher(reset)
	}
	// The pushers' scratch (about 64 bytes a node each) is reused by the
	// next row's search.
	defer func() {
		for range cap(pushers) {
			r.prep.pool.Put(<-pushers)
		}
	}()
	t := &tester{budget: r.cfg.CulpritBudget, deadline: deadline, test: func(without []int32) (bool, error) {
		var f float64
		for _, e := range without {
			f += flow[e]
		}
		base := baseG
		if 2*f > flowAll {
			base = baseA
		}
		p := <-pushers
		defer func() { pushers <- p }()
		ok, n, w, err := p.restores(ctx, base, without, cands, wantIdx, k, r.cfg.Solve)
		sweeps.Add(int64(n))
		work.Add(w)
		r.prep.pushed.Add(w)
		return ok, err
	}}
	// Both searches assume the full candidate set restores; check rather
	// than trust.
	ok, err := t.first([][]int32{cands})
	out.Solves = t.solves
	if ok == stopped {
		out.OutOfTime = t.outOfTime
	}
	if err != nil || ok < 0 {
		return out, err
	}
	out.Restores = true
	var set []int32
	var minimal bool
	if r.cfg.CulpritMode == CulpritsFast {
		set, minimal, err = fastReduce(cands, t)
	} else {
		set, minimal, err = ddmin(cands, t)
	}
	out.Solves = t.solves
	if err != nil {
		return nil, err
	}
	out.Minimal = minimal
	out.OutOfTime = t.outOfTime
	sort.Slice(set, func(i, j int) bool { return set[i] < set[j] })
	out.Set = make([]Culprit, len(set))
	errs := make([]error, len(set))
	parallel(len(set), func(i int) {
		e := set[i]
		ed := g.Edge(int(e))
		p := <-pushers
		alone, n, w, err := p.selectWithout(ctx, baseG, []int32{e}, cands, k, r.cfg.Solve)
		work.Add(w)
		r.prep.pushed.Add(w)
		pushers <- p
		sweeps.Add(int64(n))
		if err != nil {
			errs[i] = err
			return
		}
		c := Culprit{EdgeID: ed.ID, Src: ed.Src, Dst: ed.Dst, Weight: ed.Weight, Label: r.labels.at(int(e))}
		c.Alone = alone
		if c.Changes, errs[i] = diff.Compare(row.G.DiffItems(), c.Alone.DiffItems()); errs[i] != nil {
			return
		}
		c.Restores = slices.Equal(c.Alone.IDs(), row.GAuth.IDs())
		out.Set[i] = c
	})
	out.Solves += len(set)
	out.Sweeps = int(sweeps.Load())
	out.PushWork = work.Load()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// walkFlow is, for each candidate edge, the walk mass it moves on G: the
// scores onG of its two ends, each times the edge's share of that end's
// strength.
func (r *Replayer) walkFlow(cands []int32, onG []float64) map[int32]float64 {
	g := r.g
	flow := make(map[int32]float64, len(cands))
	for _, e := range cands {
		ed := g.Edge(int(e))
		a, b := g.nodeIndex[ed.Src], g.nodeIndex[ed.Dst]
		var f float64
		if s := g.strength[a]; s > 0 {
			f += g.walkW[e] * onG[a] / s
		}
		if s := g.strength[b]; s > 0 {
			f += g.walkW[e] * onG[b] / s
		}
		flow[e] = f
	}
	return flow
}

// culpritPrep holds what every culprit search on one Replayer shares:
// G's connected components (candidates are the unauthenticated writes in
// components with reset mass), G_auth's removed edges and strengths, and
// which nodes are passages.
type culpritPrep struct {
	once     sync.Once
	comp     []int32
	authGone []uint64
	authStr  []float64
	isP      []bool
	// pushed counts the adjacency entries every culprit test's pushes
	// went through (a test of cancellation reads it).
	pushed atomic.Int64
	pool   sync.Pool // of *culpritPusher
}

// pusher returns a culprit pusher for a row's reset vector.
func (r *Replayer) pusher(reset []float64) *culpritPusher {
	c := r.culpritPrep()
	p, ok := c.pool.Get().(*culpritPusher)
	if !ok {
		p = newCulpritPusher(r.g, r.cfg.Solve.Damping, c.isP)
	}
	p.setReset(reset)
	return p
}

func (r *Replayer) culpritPrep() *culpritPrep {
	c := &r.prep
	c.once.Do(func() {
		g := r.g
		n := len(g.nodes)
		c.comp = make([]int32, n)
		for i := range c.comp {
			c.comp[i] = -1
		}
		var stack []int32
		for s := range n {
			if c.comp[s] >= 0 {
				continue
			}
			c.comp[s] = int32(s)
			stack = append(stack[:0], int32(s))
			for len(stack) > 0 {
				v := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, u := range g.cols[g.offsets[v]:g.offsets[v+1]] {
					if c.comp[u] < 0 {
						c.comp[u] = int32(s)
						stack = append(stack, u)
					}
				}
			}
		}
		c.authGone = edgeBits(g, r.unauth)
		c.authStr = g.strengthWithout(c.authGone, r.unauth)
		c.isP = make([]bool, n)
		for _, v := range g.passages {
			c.isP[v] = true
		}
	})
	return c
}

// pushBases are the two solved views culprit tests push from: G, and G
// minus every unauthenticated write (G_auth).
func (r *Replayer) pushBases(reset, onG, onAuth []float64) (*pushBase, *pushBase) {
	g, c := r.g, r.culpritPrep()
	bs := g.newPushBases(reset, r.cfg.Solve.Damping, [2][]float64{onG, onAuth}, [2]*view{r.full, r.auth},
		[2][]uint64{nil, c.authGone}, [2][]float64{g.strength, c.authStr})
	return bs[0], bs[1]
}

// tester runs culprit tests (one PPR solve each) within a solve budget and
// a deadline, two at a time on two cores. The budget counts the tests a
// one-at-a-time search would have run (spent), so it stops where the old
// search stopped; solves counts every test run, speculative ones included.
type tester struct {
	test      func(without []int32) (bool, error)
	budget    int
	deadline  time.Time
	spent     int
	solves    int
	outOfTime bool
}

// exhausted says whether the budget or the deadline is spent.
func (t *tester) exhausted() bool {
	if t.spent >= t.budget {
		return true
	}
	if time.Now().After(t.deadline) {
		t.outOfTime = true
		return true
	}
	return false
}

// stopped is first's answer when the budget or the deadline ran out first.
const stopped = -2

// first tests the sets in order and returns the index of the first that
// passes, -1 when none does, or stopped. Sets are tested in pairs on two goroutines when there are
// two cores; the answer is the same as testing one by one (the first pass
// in order wins), only a speculative second solve may be spent.
func (t *tester) first(sets [][]int32) (int, error) {
	width := min(2, runtime.GOMAXPROCS(0))
	for i := 0; i < len(sets); i += width {
		if t.exhausted() {
			return stopped, nil
		}
		n := min(width, len(sets)-i, t.budget-t.spent)
		ok := make([]bool, n)
		errs := make([]error, n)
		parallel(n, func(j int) { ok[j], errs[j] = t.test(sets[i+j]) })
		t.solves += n
		for j := 0; j < n; j++ {
			t.spent++
			if errs[j] != nil {
				return -1, errs[j]
			}
			if ok[j] {
				return i + j, nil
			}
		}
	}
	return -1, nil
}

// parallel runs fn(0..n-1), on as many goroutines as there are cores.
func parallel(n int, fn func(i int)) {
	if n <= 1 || runtime.GOMAXPROCS(0) == 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}

// fastReduce finds the shortest prefix of cands (ordered by walk mass)
// whose removal restores the selection, then drops single writes until a
// full pass drops none: at that point the set is 1-minimal, as ddmin's is.
// The prefix search gallops (1, 2, 4, ... writes) because the culprits are
// usually among the heaviest few, then bisects; it tests two cut points per
// round, one per core. It assumes that removing more of the heaviest writes
// never undoes a restoration; where that fails the reduction still keeps
// only restoring sets, so the answer restores either way.
func fastReduce(cands []int32, t *tester) (set []int32, minimal bool, err error) {
	lo, hi := 0, len(cands) // removing cands[:hi] restores; cands[:lo] is not known to
	// try tests the prefixes of the given lengths (ascending, inside
	// (lo, hi)) and narrows lo and hi; false when the budget ran out.
	try := func(cuts []int) (bool, error) {
		sets := make([][]int32, len(cuts))
		for i, c := range cuts {
			sets[i] = cands[:c]
		}
		i, err := t.first(sets)
		switch {
		case err != nil:
			return false, err
		case i == stopped:
			return false, nil
		case i >= 0:
			hi = cuts[i]
			if i > 0 {
				lo = cuts[i-1]
			}
		default:
			lo = cuts[len(cuts)-1]
		}
		return true, nil
	}
	for step := 1; hi == len(cands) && 2*step < len(cands); step *= 4 {
		if ok, err := try([]int{step, 2 * step}); err != nil || !ok {
			return cands[:hi], false, err
		}
	}
	for hi-lo > 1 {
		a := lo + (hi-lo+2)/3
		b := lo + 2*(hi-lo+1)/3
		cuts := []int{a}
		if b > a && b < hi {
			cuts = append(cuts, b)
		}
		if ok, err := try(cuts); err != nil || !ok {
			return cands[:hi], false, err
		}
	}
	set = append([]int32(nil), cands[:hi]...)
	for {
		dropped := false
		// Least walk mass first: the likeliest to be unnecessary. The
		// trials of one pass are tested two at a time; the first that
		// restores is taken and the pass goes on from there.
		for i := len(set) - 1; i >= 0 && len(set) > 1; {
			var trials [][]int32
			for j := i; j >= 0 && len(trials) < 2; j-- {
				trials = append(trials, append(append([]int32(nil), set[:j]...), set[j+1:]...))
			}
			j, err := t.first(trials)
			if err != nil {
				return nil, false, err
			}
			if j == stopped {
				return set, false, nil
			}
			if j >= 0 {
				set, dropped = trials[j], true
				i -= j + 1
				continue
			}
			i -= len(trials)
		}
		if !dropped {
			return set, true, nil
		}
	}
}

// reachableUnauth returns the unauthenticated walk-carrying edges inside the
// connected components of G that contain reset support.
func (r *Replayer) reachableUnauth(reset []float64) []int32 {
	g, c := r.g, r.culpritPrep()
	held := make(map[int32]bool)
	for v, m := range reset {
		if m > 0 {
			held[c.comp[v]] = true
		}
	}
	var out []int32
	for _, e := range r.unauth {
		a, b := g.ends[e][0], g.ends[e][1]
		if g.carriesWalk(int(e), a, b) && held[c.comp[a]] {
			out = append(out, e)
		}
	}
	return out
}

// ddmin reduces cands (for which the test is assumed true) to a 1-minimal
// subset for which the test is still true (Zeller and Hildebrandt's delta
// debugging, complement-and-subset form). When the tester's budget or
// deadline runs out it reports minimal=false with the smallest passing set
// found so far.
func ddmin(cands []int32, t *tester) (set []int32, minimal bool, err error) {
	c := append([]int32(nil), cands...)
	if len(c) == 0 {
		return c, true, nil
	}
	n := 2
	for len(c) >= 2 {
		if n > len(c) {
			n = len(c)
		}
		if t.exhausted() {
			return c, false, nil
		}
		parts := split(c, n)
		reduced := false
		i, err := t.first(parts)
		if err != nil {
			return nil, false, err
		}
		if i == stopped {
			return c, false, nil
		}
		if i >= 0 {
			c, n, reduced = parts[i], 2, true
		}
		if !reduced && n > 2 {
			if t.exhausted() {
				return c, false, nil
			}
			comps := make([][]int32, len(parts))
			for j := range parts {
				comps[j] = complement(parts, j)
			}
			i, err := t.first(comps)
			if err != nil {
				return nil, false, err
			}
			if i == stopped {
				return c, false, nil
			}
			if i >= 0 {
				c, n, reduced = comps[i], max(n-1, 2), true
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
