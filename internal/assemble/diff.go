package assemble

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
)

// DiffOptions name two snapshots of one store and how to compare them.
type DiffOptions struct {
	A, B   string
	Log    string // the store's log; "" leaves consistency not checked
	LogKey string // note verifier key; "" leaves checkpoint signatures unanchored
	// LogKeyFromEvidence names the file inside the evidence the log key
	// was read from ("" otherwise): reported, as verify does.
	LogKeyFromEvidence string
	// LogOptions bound the log reads (HTTP limits, the command's deadline,
	// redirects), as for verify.
	LogOptions tlog.Options
	// CheckpointA and CheckpointB pick the checkpoint (1-based, in the
	// snapshot's order) each side is taken at: rows logged after it, and
	// unlogged rows recorded after it was seen, are left out. 0 takes the
	// latest checkpoint and every row.
	CheckpointA, CheckpointB int
	K                        int // top-k for the per-query selections (0: each query's own)
}

// QuerySelection is one query's selection on G then (A) and now (B).
type QuerySelection struct {
	Query     string
	Then, Now []string
	Class     string // diff class of then (before) against now (after)
	Problem   string // why a side could not be replayed
}

// DiffResult is the comparison of two snapshots.
type DiffResult struct {
	Consistency diff.Consistency
	Report      *diff.SnapshotReport
	Queries     []QuerySelection
	Findings    []finding.Finding
}

type diffSide struct {
	snap    *loader.Snapshot
	horizon loader.Horizon
	cp      diff.Checkpoint
}

func openSide(ctx context.Context, path string, which int, verifier note.Verifier) (*diffSide, error) {
	snap, err := loader.Open(path)
	if err != nil {
		return nil, err
	}
	side := &diffSide{snap: snap}
	cps, err := snap.Checkpoints(ctx)
	if err != nil {
		side.cp.Problem = err.Error()
		return side, nil
	}
	if which < 0 || which > len(cps) {
		snap.Close()
		return nil, fmt.Errorf("%s has %d checkpoints; checkpoint %d does not exist", path, len(cps), which)
	}
	if len(cps) == 0 {
		side.cp.Problem = "no checkpoint recorded"
		return side, nil
	}
	i := len(cps) - 1
	if which > 0 {
		i = which - 1
	}
	var vs []note.Verifier
	if verifier != nil {
		vs = append(vs, verifier)
	}
	cp, err := tlog.ParseCheckpoint(cps[i].Note, vs...)
	if err != nil {
		side.cp.Problem = fmt.Sprintf("checkpoint %d: %v", i+1, err)
		return side, nil
	}
	side.cp = diff.Checkpoint{Present: true, Size: cp.Size, Root: cp.Root, Signature: cp.Status.String()}
	if verifier != nil && cp.Status == tlog.Unanchored {
		side.cp.Signature = diff.SigNotByPinnedKey
	}
	if which > 0 {
		side.horizon = loader.Horizon{MaxLeaves: cp.Size, MaxTS: cps[i].SeenAt}
		if cp.Size == 0 {
			side.horizon.MaxLeaves = 0
		}
	}
	return side, nil
}

func (d *diffSide) stream(ctx context.Context, table string, fn func(diff.Row) error) error {
	return d.snap.EachKeyed(ctx, table, d.horizon, func(r *loader.KeyedRow) error {
		return fn(diff.Row{Key: r.Key, Bytes: r.Bytes, Signed: r.Signed, Leaf: r.Leaf})
	})
}

// DiffSnapshots compares snapshot A (then) with B (now): the consistency of
// their checkpoints, every row added, removed or changed (streamed to emit
// as found, in bounded memory), and each common query's selection on G
// then and now.
func DiffSnapshots(ctx context.Context, o DiffOptions, emit func(diff.RowChange) error) (*DiffResult, error) {
	var verifier note.Verifier
	if o.LogKey != "" {
		v, err := note.NewVerifier(o.LogKey)
		if err != nil {
			return nil, fmt.Errorf("log key: %w", err)
		}
		verifier = v
	}
	a, err := openSide(ctx, o.A, o.CheckpointA, verifier)
	if err != nil {
		return nil, err
	}
	defer a.snap.Close()
	b, err := openSide(ctx, o.B, o.CheckpointB, verifier)
	if err != nil {
		return nil, err
	}
	defer b.snap.Close()
	res := &DiffResult{}
	var proof diff.ProofSource
	if o.Log != "" {
		r, err := tlog.OpenWith(ctx, o.Log, o.LogOptions)
		if err != nil {
			return nil, err
		}
		proof = r.ConsistencyProof
	}
	var fs []finding.Finding
	res.Consistency, fs = diff.CheckConsistency(ctx, a.cp, b.cp, proof)
	res.Findings = append(res.Findings, fs...)
	if verifier == nil {
		res.Findings = append(res.Findings, finding.New(finding.CheckpointUnanchored, "checkpoints", "no log key given: the checkpoints' signatures were not checked"))
	} else if o.LogKeyFromEvidence != "" {
		res.Findings = append(res.Findings, finding.New(finding.AnchorFromEvidence, "log key", "the log key was read from "+o.LogKeyFromEvidence+", inside the evidence: whoever wrote the evidence chose it, so the checkpoints' signatures prove nothing against them"))
	}
	if res.Report, err = diff.Snapshots(ctx, a.stream, b.stream, loader.KeyedTables, emit); err != nil {
		return nil, err
	}
	res.Findings = append(res.Findings, res.Report.Findings...)
	var bad []finding.Finding
	if res.Queries, bad, err = querySelections(ctx, a, b, o.K); err != nil {
		return nil, err
	}
	res.Findings = append(res.Findings, bad...)
	return res, nil
}

// querySelections replays every query present in both snapshots on each
// snapshot's full graph G (every write counts: what the agent's selector
// would show, without provenance).
func querySelections(ctx context.Context, a, b *diffSide, k int) ([]QuerySelection, []finding.Finding, error) {
	// A malformed query row is a finding and the others are compared: it
	// used to stop the whole diff (exit 2).
	var bad []finding.Finding
	read := func(side string, d *diffSide) ([]loader.Query, error) {
		qs, err := d.snap.Queries(ctx)
		if err != nil && ctx.Err() == nil && rowErrors(side, "queries", err, &bad) {
			err = nil
		}
		return qs, err
	}
	qa, err := read("A", a)
	if err != nil {
		return nil, nil, err
	}
	qb, err := read("B", b)
	if err != nil {
		return nil, nil, err
	}
	inB := map[string]loader.Query{}
	for _, q := range qb {
		if b.horizon.MaxTS == 0 || q.TS <= b.horizon.MaxTS {
			inB[q.ID] = q
		}
	}
	var common []loader.Query
	for _, q := range qa {
		if a.horizon.MaxTS > 0 && q.TS > a.horizon.MaxTS {
			continue
		}
		if _, ok := inB[q.ID]; ok {
			common = append(common, q)
		}
	}
	if len(common) == 0 {
		return nil, bad, nil
	}
	ga, errA := plainReplayer(ctx, a, k, "A", &bad)
	gb, errB := plainReplayer(ctx, b, k, "B", &bad)
	out := make([]QuerySelection, 0, len(common))
	for _, q := range common {
		qs := QuerySelection{Query: q.ID}
		then, err1 := selectOn(ctx, ga, errA, q)
		now, err2 := selectOn(ctx, gb, errB, inB[q.ID])
		if ctx.Err() != nil {
			return nil, nil, ctx.Err() // cancelled, not a problem of the query
		}
		switch {
		case err1 != nil:
			qs.Problem = "A: " + err1.Error()
		case err2 != nil:
			qs.Problem = "B: " + err2.Error()
		default:
			qs.Then, qs.Now = then, now
			c, err := diff.ClassifyIDs(then, now)
			if err != nil {
				qs.Problem = err.Error()
			}
			qs.Class = string(c)
		}
		out = append(out, qs)
	}
	return out, bad, nil
}

// rowErrors adds each malformed row err lists (loader.RowErrors) to bad as
// ROW_MALFORMED, named by side and table, and says whether err was only
// that (the other rows were read).
func rowErrors(side, table string, err error, bad *[]finding.Finding) bool {
	var re loader.RowErrors
	if !errors.As(err, &re) {
		return false
	}
	for _, e := range re {
		*bad = append(*bad, finding.New(finding.RowMalformed, side+": "+table+" "+e.Record, e.Error()))
	}
	return true
}

func selectOn(ctx context.Context, rp *replay.Replayer, err error, q loader.Query) ([]string, error) {
	if err != nil {
		return nil, err
	}
	row, err := rp.ReplayPresent(ctx, replay.Query{ID: q.ID, Reset: q.Reset, K: q.K}, func(int) bool { return true })
	if err != nil {
		return nil, err
	}
	return row.G.IDs(), nil
}

// everyWrite labels every write authenticated: the per-query selections of
// a diff are on G, which needs no labels.
type everyWrite struct{}

func (everyWrite) Name() string { return "every-write (G only)" }
func (everyWrite) Label(replay.Edge) replay.EdgeLabel {
	return replay.EdgeLabel{Authenticated: true, Rule: "G needs no label"}
}

func plainReplayer(ctx context.Context, d *diffSide, k int, side string, bad *[]finding.Finding) (*replay.Replayer, error) {
	nodes, err := d.snap.Nodes(ctx)
	unread := unreadNodeRows(err)
	if err != nil && (ctx.Err() != nil || !rowErrors(side, "nodes", err, bad)) {
		return nil, err
	}
	rn := make([]replay.Node, len(nodes))
	for i, n := range nodes {
		rn[i] = replay.Node{ID: n.ID, Kind: n.Kind, Label: n.Label}
	}
	var edges []replay.Edge
	err = d.snap.EachWrite(ctx, func(w *loader.WriteRow) error {
		if d.horizon.MaxLeaves > 0 && w.LeafIndex >= int64(d.horizon.MaxLeaves) {
			return nil
		}
		e := replay.Edge{ID: w.WID, Src: w.Src, Dst: w.Dst, Weight: w.Weight}
		if w.Write != nil {
			e.Src, e.Dst, e.Weight = w.Write.Src, w.Write.Dst, w.Write.Weight
		}
		edges = append(edges, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rn = append(rn, unreadNodePlaceholders(nodes, unread, func(yield func(string) bool) {
		for _, e := range edges {
			if !yield(e.Src) || !yield(e.Dst) {
				return
			}
		}
	})...)
	g, err := replay.NewGraph(rn, edges, replay.DropSelfLoops)
	if err != nil {
		return nil, err
	}
	return replay.NewReplayer(g, replay.Config{Policy: everyWrite{}, K: k})
}
