package timeline

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/replay"
)

// Replay replays queries on the graph as it stood at a moment: a write is
// part of the graph at a cut when its event comes before the cut.
type Replay struct {
	rp  *replay.Replayer
	tl  *Timeline
	pos []int // stream index of each edge of the replay graph, in edge order
	// queriesOnly: tl holds no write events (NewAsRanReplay), and pos is
	// such that pos[e] < i exactly when write e precedes event i of tl.
	queriesOnly bool
}

// WritePlace is what places one structural write row in the stream: its
// log leaf (-1 when it has none) and recorded time, and the replay graph's
// edge for it (-1: none).
type WritePlace struct {
	Leaf, TS int64
	Edge     int32
}

// ErrQueriesOnly says a replay from NewAsRanReplay was asked for more than
// replaying at the moment an event of its timeline ran.
var ErrQueriesOnly = errors.New("timeline: this replay places queries only (as they ran); build the full timeline for moments, flips and blast radii")

// NewAsRanReplay is NewReplay over Build(all), where all is events with
// one write event per element of writes inserted at index at, without
// holding those write events: at a million writes they were most of an
// as-ran replay's memory. Each write is ordered exactly as Build orders
// it; the timeline then keeps only events, and At, AsRan and Before answer
// as on the full stream for a cut just before any of its events (At at
// End too). Every other question about writes gives ErrQueriesOnly.
func NewAsRanReplay(rp *replay.Replayer, events []Event, at int, writes []WritePlace) (*Replay, error) {
	if at < 0 || at > len(events) {
		return nil, fmt.Errorf("timeline: writes inserted at %d of %d events", at, len(events))
	}
	for i := range events {
		events[i].Placed = placement(&events[i])
	}
	w := len(writes)
	key := func(i int) placeKey {
		switch {
		case i < at:
			return keyOf(&events[i])
		case i < at+w:
			p := &writes[i-at]
			return placeKey{logged: p.Leaf >= 0, pos: 2 * p.Leaf, ts: p.TS}
		}
		return keyOf(&events[i-w])
	}
	order := orderOf(len(events)+w, key)
	g := rp.Graph()
	pos := make([]int, g.EdgeCount())
	for i := range pos {
		pos[i] = -2
	}
	// kept[k] is the input index of the k-th non-write event in order; a
	// write preceded by c of them precedes exactly the events from c on,
	// so pos = c-1 (and a cut at index i keeps it when c <= i).
	kept := make([]int32, 0, len(events))
	for _, in := range order {
		i := int(in)
		switch {
		case i >= at && i < at+w:
			if e := writes[i-at].Edge; e >= 0 && int(e) < len(pos) {
				pos[e] = len(kept) - 1 // the last write row of an edge, as NewReplay takes it
			}
		case i < at:
			kept = append(kept, int32(i))
		default:
			kept = append(kept, int32(i-w))
		}
	}
	for i, p := range pos {
		if p == -2 {
			return nil, fmt.Errorf("timeline: edge \"%s\" is not a write of the timeline", g.EdgeID(i))
		}
	}
	permute(events, kept)
	return &Replay{rp: rp, tl: &Timeline{Events: events}, pos: pos, queriesOnly: true}, nil
}

// NewReplay ties a replayer to the timeline of the same snapshot. Every
// edge of the graph must be a write event of the timeline.
func NewReplay(rp *replay.Replayer, tl *Timeline) (*Replay, error) {
	// Through the graph's own edge index: a map of every write id here
	// would cost as much again as the index (a million writes).
	g := rp.Graph()
	pos := make([]int, g.EdgeCount())
	for i := range pos {
		pos[i] = -1
	}
	for i, e := range tl.Events {
		if e.Kind != KindWrite {
			continue
		}
		if j, ok := g.EdgeIndex(e.ID); ok {
			pos[j] = i // the last write event of an id, as WritePositions gives
		}
	}
	for i, p := range pos {
		if p < 0 {
			return nil, fmt.Errorf("timeline: edge \"%s\" is not a write of the timeline", g.EdgeID(i))
		}
	}
	return &Replay{rp: rp, tl: tl, pos: pos}, nil
}

// Timeline returns the stream the replay follows.
func (r *Replay) Timeline() *Timeline { return r.tl }

// Replayer returns the underlying replayer.
func (r *Replay) Replayer() *replay.Replayer { return r.rp }

// At replays q on G and G_auth as they stood at c. A recorded selection is
// compared with the replay at c.
func (r *Replay) At(ctx context.Context, q replay.Query, c Cut) (replay.Row, error) {
	return r.rp.ReplayPresent(ctx, q, func(e int) bool { return r.Present(e, c) })
}

// Present says whether edge e of the replay graph is part of the graph at c.
func (r *Replay) Present(e int, c Cut) bool { return r.pos[e] < c.Index }

// AsRan replays q on the graph as it stood when q ran. Its recorded
// selection is then compared with what the agent could have seen, so a
// mismatch means the evidence or the replay is wrong, not that the graph
// changed later.
func (r *Replay) AsRan(ctx context.Context, q replay.Query) (replay.Row, Cut, error) {
	c, err := r.tl.Before(KindQuery, q.ID)
	if err != nil {
		return replay.Row{}, Cut{}, err
	}
	row, err := r.At(ctx, q, c)
	return row, c, err
}

// Interval is a stretch of the log during which a query's selection on G
// differed from G_auth's: from the write after which it first differed to
// the write after which it agreed again ("" while it still differs).
type Interval struct {
	From  WriteRef
	Until *WriteRef
}

// WriteRef names a structural write of the stream.
type WriteRef struct {
	ID     string
	Writer string
	Leaf   int64
	TS     int64
	Index  int // stream index
}

// Flip is the answer of FirstFlip for one query.
type Flip struct {
	Query string
	// Found is false when the query's selection never differs at any
	// bisection point (then Write is empty).
	Found bool
	Write WriteRef
	// Confirmed: the selection is the same just before Write and differs
	// right after it (both replayed).
	Confirmed bool
	// Candidates is the number of unauthenticated writes bisected over.
	Candidates int
	// Solves is the number of PPR views the bisection and its confirmation
	// solved (G and G_auth count as two); at most FlipBudget(n).
	Solves int64
	// Scanned says Intervals comes from replaying after every
	// unauthenticated write; otherwise Intervals is nil (not checked).
	Scanned   bool
	Intervals []Interval
	// BisectionAgrees is false when the scan found an earlier flip than the
	// bisection (divergence not monotone over the log); Write is then the
	// scan's earliest.
	BisectionAgrees bool
	// QueriesAffected are the queries that ran after Write and whose
	// selection, replayed as it ran, differed from G_auth's.
	QueriesAffected []string
	// ActionsAffected are the actions after Write whose justification cites
	// an entry shown by a passage that unauthenticated structure brought
	// into an affected query's selection.
	ActionsAffected []string
}

// FlipOptions tune FirstFlip.
type FlipOptions struct {
	// Scan replays after every unauthenticated write to report every
	// interval (2 solves per write). ScanLimit scans automatically up to
	// that many writes (0: DefaultScanLimit; negative: never).
	Scan      bool
	ScanLimit int
	// Queries are every query of the store, for QueriesAffected.
	Queries []replay.Query
	// EntryOf maps a passage node id to the entry id it shows, for
	// ActionsAffected.
	EntryOf map[string]string
	// Now is q's replay on the whole graph when the caller has it already
	// (it saves two solves).
	Now *replay.Row
}

// DefaultScanLimit is the number of unauthenticated writes up to which
// FirstFlip scans every interval without being asked.
const DefaultScanLimit = 64

// differs is the flip predicate: the selected sets differ.
func differs(row replay.Row) bool { return row.Class == diff.Diverge }

// FirstFlip finds the earliest structural write after which q's selection
// on G differs from G_auth's, by bisection over the unauthenticated writes
// in stream order (only they separate G from G_auth). State i is the graph
// just before the i-th unauthenticated write (i = n: now); state 0 has no
// unauthenticated write, so G equals G_auth there without a solve.
func (r *Replay) FirstFlip(ctx context.Context, q replay.Query, opt FlipOptions) (*Flip, error) {
	if r.queriesOnly {
		return nil, ErrQueriesOnly
	}
	g := r.rp.Graph()
	var unauth []int // stream indices of unauthenticated writes, ordered
	for i := range g.EdgeCount() {
		if !r.rp.Authenticated(i) {
			unauth = append(unauth, r.pos[i])
		}
	}
	slices.Sort(unauth)
	n := len(unauth)
	f := &Flip{Query: q.ID, Candidates: n, BisectionAgrees: true}
	if n == 0 {
		return f, nil
	}
	start := r.rp.Solves()
	cutOf := func(i int) int { // state i: just before the i-th unauthenticated write
		if i >= n {
			return len(r.tl.Events)
		}
		return unauth[i]
	}
	state := r.flipState(ctx, q, opt, unauth)
	hiDiff, err := state(cutOf(n))
	if err != nil {
		return nil, err
	}
	if hiDiff {
		lo, hi := 0, n
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			d, err := state(cutOf(mid))
			if err != nil {
				return nil, err
			}
			if d {
				hi = mid
			} else {
				lo = mid
			}
		}
		// The flip lies between state hi-1 (same) and state hi (differs):
		// the (hi-1)-th unauthenticated write, or an authenticated write
		// after it. Confirm the write itself: right after it, it differs.
		w := unauth[hi-1]
		after, err := state(w + 1)
		if err != nil {
			return nil, err
		}
		before, err := state(w)
		if err != nil {
			return nil, err
		}
		f.Found, f.Write, f.Confirmed = true, r.ref(w), after && !before
	}
	f.Solves = r.rp.Solves() - start
	if opt.Scan || n <= scanLimit(opt.ScanLimit) {
		if err := r.scan(ctx, f, q, unauth, state); err != nil {
			return nil, err
		}
	}
	if f.Found {
		if err := r.affected(ctx, f, opt); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// flipState answers, for a cut in the event stream, whether q's selection
// on G differs from its selection on G_auth there (unauth: the stream
// indices of the unauthenticated writes, ordered, at least one).
func (r *Replay) flipState(ctx context.Context, q replay.Query, opt FlipOptions, unauth []int) func(cut int) (bool, error) {
	g := r.rp.Graph()
	// G at a cut depends only on how many writes precede it, and G_auth
	// only on how many authenticated ones do: each side's selection is
	// solved once per count, so cuts with no write between them, and G_auth
	// across a run of unauthenticated writes, cost nothing more.
	auth := make([]bool, len(r.tl.Events))
	for i := range g.EdgeCount() {
		auth[r.pos[i]] = r.rp.Authenticated(i)
	}
	writesBefore := make([]int, len(r.tl.Events)+1)
	authBefore := make([]int, len(r.tl.Events)+1)
	for i, e := range r.tl.Events {
		writesBefore[i+1], authBefore[i+1] = writesBefore[i], authBefore[i]
		if e.Kind == KindWrite {
			writesBefore[i+1]++
			if auth[i] {
				authBefore[i+1]++
			}
		}
	}
	end := len(r.tl.Events)
	onG, onAuth := map[int][]string{}, map[int][]string{}
	if opt.Now != nil {
		onG[writesBefore[end]], onAuth[authBefore[end]] = opt.Now.G.IDs(), opt.Now.GAuth.IDs()
	}
	sel := func(cut int, authOnly bool) ([]string, error) {
		cache, key := onG, writesBefore[cut]
		if authOnly {
			cache, key = onAuth, authBefore[cut]
		}
		if ids, ok := cache[key]; ok {
			return ids, nil
		}
		s, err := r.rp.SelectPresent(ctx, q, func(e int) bool { return r.pos[e] < cut && (!authOnly || r.rp.Authenticated(e)) })
		if err != nil {
			return nil, err
		}
		cache[key] = s.IDs()
		return cache[key], nil
	}
	return func(cut int) (bool, error) {
		if cut <= unauth[0] {
			return false, nil // no unauthenticated write yet: G is G_auth
		}
		g, err := sel(cut, false)
		if err != nil {
			return false, err
		}
		a, err := sel(cut, true)
		if err != nil {
			return false, err
		}
		c, err := diff.ClassifyIDs(a, g)
		return c == diff.Diverge, err
	}
}

func scanLimit(l int) int {
	switch {
	case l == 0:
		return DefaultScanLimit
	case l < 0:
		return -1
	}
	return l
}

// scan replays right after every unauthenticated write and records the
// intervals during which the selection differs.
func (r *Replay) scan(ctx context.Context, f *Flip, q replay.Query, unauth []int, state func(int) (bool, error)) error {
	f.Scanned = true
	var open *Interval
	for i, w := range unauth {
		d, err := state(w + 1)
		if err != nil {
			return err
		}
		next := len(r.tl.Events)
		if i+1 < len(unauth) {
			next = unauth[i+1]
		}
		// Authenticated writes between this one and the next may flip it
		// too: look just before the next unauthenticated write as well.
		dn := d
		if next > w+1 {
			if dn, err = state(next); err != nil {
				return err
			}
		}
		if d && open == nil {
			open = &Interval{From: r.ref(w)}
		}
		if !d && open != nil {
			ref := r.ref(w)
			open.Until = &ref
			f.Intervals = append(f.Intervals, *open)
			open = nil
		}
		if dn != d {
			if dn && open == nil {
				// Differs only after the authenticated writes that follow w.
				open = &Interval{From: r.ref(w)}
			} else if !dn && open != nil {
				ref := r.ref(w)
				open.Until = &ref
				f.Intervals = append(f.Intervals, *open)
				open = nil
			}
		}
	}
	if open != nil {
		f.Intervals = append(f.Intervals, *open)
	}
	if len(f.Intervals) > 0 {
		first := f.Intervals[0].From
		if !f.Found || first.Index < f.Write.Index {
			f.BisectionAgrees = !f.Found
			f.Found, f.Write = true, first
			after, _ := state(first.Index + 1)
			before, _ := state(first.Index)
			f.Confirmed = after && !before
			if err := ctx.Err(); err != nil {
				return err // the two states above were cut short
			}
		}
	}
	return nil
}

func (r *Replay) ref(idx int) WriteRef {
	e := r.tl.Events[idx]
	return WriteRef{ID: e.ID, Writer: e.Principal, Leaf: e.Leaf, TS: e.TS, Index: idx}
}

// affected fills the queries and actions that ran on the flipped selection.
func (r *Replay) affected(ctx context.Context, f *Flip, opt FlipOptions) error {
	brought := map[string]bool{} // entry ids of passages unauthenticated structure brought in
	for _, q := range opt.Queries {
		i, ok := r.tl.Index(KindQuery, q.ID)
		if !ok || i <= f.Write.Index {
			continue
		}
		row, err := r.At(ctx, q, Cut{Index: i})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue // a query that cannot be replayed is not counted
		}
		if !differs(row) {
			continue
		}
		f.QueriesAffected = append(f.QueriesAffected, q.ID)
		for _, it := range row.Changes.Items {
			if it.Change == diff.New {
				if eid := opt.EntryOf[it.ID]; eid != "" {
					brought[eid] = true
				}
			}
		}
	}
	for i := f.Write.Index + 1; i < len(r.tl.Events); i++ {
		e := r.tl.Events[i]
		if e.Kind != KindAction {
			continue
		}
		for _, c := range e.Cites {
			if brought[c] {
				f.ActionsAffected = append(f.ActionsAffected, e.ID)
				break
			}
		}
	}
	return nil
}

// FlipBudget is the most PPR views FirstFlip's bisection and confirmation
// may solve for n unauthenticated writes: two per bisection step
// (ceil(log2 n) steps); one to confirm the write (G right after it; G_auth
// is unchanged by an unauthenticated write, so its selection from the step
// before is reused), or two when the flip is at the first unauthenticated
// write; and two for the whole graph unless the caller passes
// FlipOptions.Now.
func FlipBudget(n int, haveNow bool) int {
	b := 2
	if n > 1 {
		b += 2 * bits.Len(uint(n-1))
	}
	if !haveNow {
		b += 2
	}
	return b
}
