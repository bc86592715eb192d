package watch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// idIndexes are the UNIQUE indexes the incremental check finds rows by;
// the snapshot schema declares each (evidence/snapshot).
var idIndexes = [][2]string{{"entries", "eid"}, {"writes", "wid"}, {"tombstones", "target"}, {"principals", "rid"}}

// maxIncrementalLeaves bounds the new leaves a round hands to the
// incremental check (it holds their bytes, about 100 bytes a leaf); a
// round over more checks the whole store.
const maxIncrementalLeaves = 1 << 20

// checkSnapshot checks the snapshot in a round that saw new leaves: by
// the incremental path (incrementalRound) when the state has marks from
// an earlier round and nl holds the round's proved new leaves, else, and
// when the incremental path cannot read the store by index, by the
// whole-store path (snapshotRound), saying why in the outcome's note.
func checkSnapshot(ctx context.Context, t Target, st *State, size uint64, nl *verify.NewLeaves) (snapshotOutcome, error) {
	var why string
	switch {
	case st.Snapshot == nil || st.Snapshot.Marks == nil:
		why = "the first round with this snapshot"
	case nl == nil:
		why = fmt.Sprintf("more than %d new leaves, or a new leaf that did not prove", maxIncrementalLeaves)
	default:
		o, fallback, err := incrementalRound(ctx, t, st, *nl)
		if err != nil || fallback == "" {
			return o, err
		}
		why = fallback
	}
	o, err := snapshotRound(ctx, t, st, size)
	o.note = "snapshot: the whole store was checked (" + why + ")"
	return o, err
}

// incrementalRound checks the records of the round's new leaves and the
// rows the store appended since the state's marks (verify.CheckNew),
// through one read transaction on the live snapshot, and replays the
// stored queries a new structural write can reach (replayReached). A
// non-empty fallback says why the store cannot be checked this way; the
// caller then checks it whole.
func incrementalRound(ctx context.Context, t Target, st *State, nl verify.NewLeaves) (o snapshotOutcome, fallback string, err error) {
	snap, err := loader.OpenLive(ctx, t.Snapshot)
	if err != nil {
		return o, "", err
	}
	live := true
	closeLive := func() {
		if live {
			snap.Close()
			live = false
		}
	}
	defer closeLive()
	for _, ix := range idIndexes {
		ok, err := snap.HasUniqueIndex(ctx, ix[0], ix[1])
		if err != nil {
			return o, "", err
		}
		if !ok {
			return o, fmt.Sprintf("table %s has no unique index on %s, so its new rows cannot be found by id", ix[0], ix[1]), nil
		}
	}
	marks := st.Snapshot.Marks
	nc, err := verify.CheckNew(ctx, verify.Options{Snap: snap, Snapshot: t.Snapshot, Log: t.Log, TrustRoots: t.TrustRoots, LogOptions: t.LogOptions}, nl, marks)
	if errors.Is(err, verify.ErrTooManyNew) || errors.Is(err, verify.ErrUnclaimed) {
		return o, err.Error(), nil
	}
	if err != nil {
		return o, "", err
	}
	o.findings = append(o.findings, nc.HeldBack...)
	for _, f := range nc.Report.Findings {
		if f.Severity == finding.SevError {
			o.findings = append(o.findings, f)
		}
	}
	o.marks = verify.Marks{}
	for k, m := range nc.Marks {
		o.marks[k] = m
	}
	newQueries, qMark, err := newStoredQueries(ctx, snap, marks, nl.Size)
	if err != nil {
		return o, "", err
	}
	o.marks["queries"] = qMark
	o.rowsRead, o.checked, o.context = snap.RowsRead(), nc.Checked, nc.Context
	closeLive() // the replay reads a later state through its own handle; this transaction ends here
	o.note = fmt.Sprintf("snapshot: %d new records checked (%d rows read, registry and cited records included)", nc.Checked, o.rowsRead)
	need := replayNeed{writes: nc.NewWrites, queries: newQueries, all: nc.NewTombstones > 0 || nc.NewPrincipals > 0}
	o.diverged = previouslyDiverged(st)
	if len(need.writes) == 0 && len(need.queries) == 0 && !need.all {
		return o, "", nil
	}
	r, err := replayReached(ctx, t, st, nl.Size, need)
	if err != nil {
		return o, "", err
	}
	o.findings = append(o.findings, r.flips...)
	o.diverged, o.replayed, o.replayRows = r.diverged, r.replayed, r.rowsRead
	o.note += fmt.Sprintf("; new structure: the replay graph was built from %s and %d stored queries replayed", r.from, r.replayed)
	return o, "", nil
}

// newStoredQueries returns the ids of the stored queries past the
// queries mark that the checkpoint of size covers, and the queries mark
// for the next round (before the first one it does not cover yet).
func newStoredQueries(ctx context.Context, snap *loader.Snapshot, marks verify.Marks, size uint64) ([]string, int64, error) {
	m, ok := marks["queries"]
	if !ok {
		m = math.MinInt64
	}
	rows, err := snap.KeysAfter(ctx, "queries", m)
	if err != nil {
		return nil, 0, err
	}
	next, held := m, int64(math.MaxInt64)
	var ids []string
	for _, r := range rows {
		next = max(next, r.Seq)
		if r.Leaf >= 0 && uint64(r.Leaf) >= size {
			held = min(held, r.Seq)
			continue
		}
		ids = append(ids, r.ID)
	}
	if held != math.MaxInt64 {
		next = min(next, held-1)
	}
	return ids, next, nil
}

// replayNeed is what a round's new rows ask of replay: the new
// structural writes, the new stored queries, and whether every query must
// be replayed (a new registry event can change the label of an older
// write; a new tombstone changes the graph where its target was).
type replayNeed struct {
	writes, queries []string
	all             bool
}

// reached is what replayReached found: the flips, the new diverged set,
// how many queries it replayed and what the graph was built from (for
// the advance message).
type reached struct {
	flips    []finding.Finding
	diverged []string
	replayed int
	from     string
	// rowsRead counts the rows the live handle read (0 when the graph
	// came from the copy).
	rowsRead int64
}

// replayReached builds the replay graph of the store as it stands before
// the checkpoint of size and replays the queries need reaches
// (reachedQueries). The graph comes from a live handle that hides the
// rows past the checkpoint (loader.OpenLiveBefore, the rows snapshotRound
// holds back): the structural tables, the registry and the cited entries
// by their UNIQUE index, through the provenance pass, so the round reads
// the structure and not every entry. Where the pass declines (it cannot
// decide a label without the whole store), the graph comes from a
// verified copy of the store, as a whole-store round builds it.
func replayReached(ctx context.Context, t Target, st *State, size uint64, need replayNeed) (reached, error) {
	r := reached{diverged: previouslyDiverged(st)}
	rp, qs, err := liveReplayer(ctx, t, size, &r)
	if errors.Is(err, assemble.ErrPassDeclined) {
		r.from = "a copy of the whole store (" + err.Error() + ")"
		c, cerr := liveCopy(ctx, t, size)
		if cerr != nil {
			return reached{}, cerr
		}
		defer c.close()
		qs = c.session.ReplayQueries()
		rp, err = c.session.Replayer(ctx)
	}
	if err != nil {
		return reached{}, err
	}
	if !need.all {
		qs = reachedQueries(rp, qs, need)
	}
	if len(qs) == 0 {
		return r, nil
	}
	r.flips, r.diverged, err = replayQueries(ctx, rp, qs, r.diverged)
	r.replayed = len(qs)
	return r, err
}

// liveReplayer builds the replayer and the stored queries from the live
// handle before leaf size (replayReached), filling r's from and rowsRead.
// The handle, and its read transaction, is closed before it returns: the
// replay reads nothing more from the store, and a read transaction held
// open keeps a writer's WAL from being checkpointed. An error wrapping
// assemble.ErrPassDeclined says the graph needs the whole store.
func liveReplayer(ctx context.Context, t Target, size uint64, r *reached) (*replay.Replayer, []replay.Query, error) {
	snap, err := loader.OpenLiveBefore(ctx, t.Snapshot, size)
	if err != nil {
		return nil, nil, err
	}
	// The pass finds entries by the eid index: checked on this handle's
	// own read transaction, since the store may have changed its schema
	// since the round's first handle checked idIndexes.
	if ok, err := snap.HasUniqueIndex(ctx, "entries", "eid"); err != nil || !ok {
		snap.Close()
		if err != nil {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("%w: table entries has no unique index on eid", assemble.ErrPassDeclined)
	}
	s, err := assemble.OpenOn(ctx, assemble.Options{Snapshot: t.Snapshot, Log: t.Log, LogKey: t.LogKey, TrustRoots: t.TrustRoots, LogOptions: t.LogOptions, Title: t.Snapshot, EntriesByIndex: true}, snap)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	rp, err := s.PassReplayer(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.rowsRead = snap.RowsRead()
	r.from = fmt.Sprintf("the store's structure (%d rows read, the cited entries by index)", r.rowsRead)
	return rp, s.ReplayQueries(), nil
}

// reachedQueries keeps the new stored queries and the queries a new
// structural write can flip: those with a seed in a connected component
// of G (edges taken as undirected, every edge of G, whether or not it
// carries walk weight) that holds an endpoint of a new write and at least
// one unauthenticated edge.
//
// Why this is exact. Replay's PPR moves mass only along edges, both ways,
// and puts the mass of dangling nodes back by the reset vector (replay's
// solve: restart = d * dangling mass + (1 - d), spread over the seeds),
// so a query's scores on G and on G_auth are fixed by the components of
// its seeds and are 0 elsewhere; G_auth keeps every node and drops only
// unauthenticated edges. A component without a new write's endpoint holds
// exactly the edges it held before the round (a new edge inside it would
// be such an endpoint), so its scores, and any node-order tie among them,
// are as before. A component without an unauthenticated edge is the same
// in G and G_auth, so the query's two selections agree there. A query
// neither touches is therefore as it was at the last round, diverged or
// not. Labels of older edges change only through the registry or a
// tombstone, which replay every query (replayNeed.all), and when an
// entry lands after a write that cites it (docs/WATCH.md says so).
func reachedQueries(rp *replay.Replayer, qs []replay.Query, need replayNeed) []replay.Query {
	g := rp.Graph()
	parent := make([]int32, len(g.Nodes()))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i := range g.EdgeCount() {
		a, b := g.EdgeEnds(i)
		if ra, rb := find(int32(a)), find(int32(b)); ra != rb {
			parent[ra] = rb
		}
	}
	unauth := map[int32]bool{}
	for i := range g.EdgeCount() {
		if !rp.Authenticated(i) {
			a, _ := g.EdgeEnds(i)
			unauth[find(int32(a))] = true
		}
	}
	touched := map[int32]bool{}
	for _, w := range need.writes {
		if i, ok := g.EdgeIndex(w); ok {
			a, _ := g.EdgeEnds(i)
			if r := find(int32(a)); unauth[r] {
				touched[r] = true
			}
		}
	}
	var out []replay.Query
	for _, q := range qs {
		keep := slices.Contains(need.queries, q.ID)
		for seed := range q.Reset {
			if keep {
				break
			}
			if j, ok := g.NodeIndex(seed); ok && touched[find(int32(j))] {
				keep = true
			}
		}
		if keep {
			out = append(out, q)
		}
	}
	return out
}
