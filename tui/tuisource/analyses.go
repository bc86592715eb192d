package tuisource

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/analyses/mwp"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/verify"
)

// setLeaf records that row of the table behind kind claims leaf i.
func (src *Source) setLeaf(i int64, kind tui.LeafKind, row int) {
	src.leaves.set(i, kind, row)
}

// indexLeaves records which leaves the snapshot's small tables claim;
// entry leaves are added as entries load.
func (src *Source) indexLeaves() {
	for i, p := range src.s.PrincipalLeaves {
		src.setLeaf(p.Leaf, tui.LeafRegistry, i)
	}
	for i, t := range src.s.TombstoneLeaves {
		src.setLeaf(t.Leaf, tui.LeafTombstone, i)
	}
	for i := range src.s.WriteCount() {
		src.setLeaf(src.s.WriteLeaf(i), tui.LeafWrite, i)
	}
	// Signed event rows claim kind-tagged leaves; unsigned ones (older
	// stores, imports) claim none.
	for i, q := range src.s.Queries {
		if q.Record.Signed() {
			src.setLeaf(q.Record.LeafIndex, tui.LeafQuery, i)
		}
	}
	for i, a := range src.s.Actions {
		if a.Record.Signed() {
			src.setLeaf(a.Record.LeafIndex, tui.LeafAction, i)
		}
	}
	for i, g := range src.s.GateEvents {
		if g.Record.Signed() {
			src.setLeaf(g.Record.LeafIndex, tui.LeafGate, i)
		}
	}
	for i, n := range src.s.Nodes {
		if n.Record.Signed() {
			src.setLeaf(n.Record.LeafIndex, tui.LeafNode, i)
		}
	}
	src.indexOperatorLeaves()
}

// indexOperatorLeaves records the leaves of the operator's records (meta
// values, checkpoint sightings, vectors); their subjects are kept apart,
// as no session table lists those rows.
func (src *Source) indexOperatorLeaves() {
	claim := func(rr *loader.RowRecord, kind tui.LeafKind, subject string) {
		if rr.Signed() {
			src.opSubjects = append(src.opSubjects, subject)
			src.setLeaf(rr.LeafIndex, kind, len(src.opSubjects)-1)
		}
	}
	ctx := context.Background()
	if meta, err := src.s.Snap.MetaRows(ctx); err == nil {
		for _, m := range meta {
			claim(m.Record, tui.LeafConfig, m.Key)
		}
	}
	for _, c := range src.s.Checkpoints {
		claim(c.Record, tui.LeafSighting, strconv.FormatInt(c.Seq, 10))
	}
	if src.s.Snap.Has(snapshot.VectorTable) {
		if vs, err := src.s.Snap.Vectors(ctx); err == nil {
			for _, v := range vs {
				claim(v.Record, tui.LeafVector, strconv.FormatInt(v.Seq, 10))
			}
		}
	}
}

// parseCheckpoints lists the recorded checkpoints. Before verification
// they are only parsed (signature and consistency Unknown); afterwards each
// row maps verify's verdict.
func (src *Source) parseCheckpoints(rep *verify.Report) []tui.CheckpointRow {
	if rep != nil && len(rep.CheckpointVerdicts) > 0 {
		out := make([]tui.CheckpointRow, 0, len(rep.CheckpointVerdicts))
		for i, cv := range rep.CheckpointVerdicts {
			row := tui.CheckpointRow{Index: int(cv.Seq), Size: cv.Size, Root: cv.Root,
				Signature: status(cv.Signature), Consistent: status(cv.Consistent), Note: cv.Message}
			if i < len(src.s.Checkpoints) && src.s.Checkpoints[i].Seq == cv.Seq {
				row.TimeNS = src.s.Checkpoints[i].SeenAt
			}
			if cv.Signature == verify.NotChecked && cv.Code == "" {
				row.Note = "unanchored: no --log-key"
			}
			out = append(out, row)
		}
		return out
	}
	var out []tui.CheckpointRow
	for _, c := range src.s.Checkpoints {
		row := tui.CheckpointRow{Index: int(c.Seq), TimeNS: c.SeenAt} // numbered as verify names them
		if cp, err := tlog.ParseCheckpoint(c.Note); err != nil {
			row.Note = "unparseable: " + err.Error()
		} else {
			row.Size, row.Root = cp.Size, cp.Root
		}
		out = append(out, row)
	}
	return out
}

// status maps a verify check onto the inspector's tri-state.
func status(c verify.Check) tui.Status {
	switch c {
	case verify.Passed:
		return tui.OK
	case verify.Failed:
		return tui.Failed
	}
	return tui.Unknown
}

// Verify implements tui.Source: loading, integrity, lineage and replay,
// with progress, ending with every finding.
func (src *Source) Verify(ctx context.Context) <-chan tui.Progress {
	ch := make(chan tui.Progress, 64)
	// A load still waiting for the first frame verifies as it loads.
	src.wantVerify.Store(true)
	go func() {
		defer close(ch)
		if src.s.EntryTotal() > bigLoad {
			// The analyses after the load make garbage beside the rows'
			// live heap too: at the default pacing it grew past 500 MB
			// by "verified" at 1M, and the MWP audit's records add to it.
			defer src.gc.hold()()
		}
		send := func(p tui.Progress) {
			select {
			case ch <- p:
			default: // the UI reads one message per command; drop stale progress
				if p.Finished {
					ch <- p
				}
			}
		}
		fail := func(err error) { ch <- tui.Progress{Finished: true, Err: err} }
		// Each report redraws the frame and turns the spinner: two a
		// second show progress without drawing for minutes on end (each
		// frame is CPU time taken from verification's signatures).
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for !isClosed(src.done) {
			select {
			case <-src.done:
			case <-ctx.Done():
				fail(ctx.Err())
				return
			case <-tick.C:
				if n := src.checked.Load(); n > 0 {
					send(tui.Progress{Stage: "signatures and log", Done: int(n), Total: int(src.toCheck.Load())})
				} else if src.riding.Load() {
					// Verification reads the log and the registry before
					// the entries (no count to show yet).
					send(tui.Progress{Stage: "log and registry"})
				} else {
					send(tui.Progress{Stage: "loading entries", Done: src.s.Loaded(), Total: max(src.s.EntryTotal(), src.s.Loaded())})
				}
			}
		}
		if err := src.WaitLoaded(ctx); err != nil {
			fail(err)
			return
		}
		rep, err := src.s.Verify(ctx, func(done, total int) {
			send(tui.Progress{Stage: "signatures and log", Done: done, Total: total})
		})
		if err != nil {
			fail(err)
			return
		}
		findings := append([]finding.Finding{}, rep.Findings...)
		src.mu.Lock()
		src.report = rep
		src.cpStatus = src.parseCheckpoints(rep)
		src.mu.Unlock()
		send(tui.Progress{Stage: "lineage and replay", Done: 0, Total: 1})
		after, err := src.afterVerify(ctx, rep)
		if err != nil {
			fail(err)
			return
		}
		findings = append(append(findings, after.lineage...), after.replay...)
		// "verified" now: the MWP audit reads every record once more
		// (half a minute and 2 GB at a million entries) for findings
		// that memscope verify does not report; they follow.
		select {
		case ch <- tui.Progress{Verified: true, Findings: jumpSubjects(slices.Clone(findings))}:
		case <-ctx.Done():
			return
		}
		audit, err := src.mwpAudit(ctx, rep)
		if err != nil {
			fail(err)
			return
		}
		findings = append(findings, audit...)
		ch <- tui.Progress{Finished: true, Findings: jumpSubjects(findings)}
	}()
	return ch
}

// verifiedSteps are the findings of the steps between verification and
// "verified", in the order the Findings view lists them.
type verifiedSteps struct {
	lineage, replay []finding.Finding
}

// afterVerify runs the steps between verification and "verified": the
// Entries view's status per row, the defence verdicts at the opening tau
// and policy (so that the Actions view only reads them; later pairs:
// RelabelPolicy), the lineage summary and the replay of every query. They
// read the report and the loaded entries and share nothing else, so they
// run side by side: one after another they kept a core idle on the way to
// "verified". The error is the verdicts' (a cancelled ctx).
func (src *Source) afterVerify(ctx context.Context, rep *verify.Report) (verifiedSteps, error) {
	var out verifiedSteps
	// Verification is fed into the lineage graph once, before the steps
	// that read its labels start.
	_, _ = src.s.Labels(assemble.DefaultTau, src.s.Opts.FailClosed)
	if !src.riding.Load() {
		// The store loaded before verification began (a small one), so
		// the labels and gate rows shown were computed from the writers'
		// names alone: verification forces unverified entries External
		// and settles deleted parents, so they are computed again.
		_ = src.relabel(src.currentTau(), src.failClosed())
	}
	var verdictErr error
	var wg sync.WaitGroup
	wg.Go(func() { src.status.Store(src.statusByRow(rep)) })
	wg.Go(func() {
		verdictErr = src.computeVerdicts(ctx, labelKey{tau: src.currentTau(), failClosed: src.failClosed()})
	})
	wg.Go(func() {
		if sum, err := src.s.LineageSummary(assemble.DefaultTau, src.s.Opts.FailClosed); err == nil {
			out.lineage = assemble.LineageFindings(sum)
		}
	})
	wg.Go(func() {
		res, err := src.replay(ctx)
		if err != nil {
			out.replay = []finding.Finding{finding.New(finding.ReplayUnavailable, "replay", err.Error())}
			return
		}
		// Recordings are checked against the graph each query ran on.
		rows := slices.Clone(res.rows)
		if res.ran != nil {
			assemble.ApplyAsRan(res.qs, rows, res.ran)
		}
		out.replay = assemble.ReplayFindings(rows)
	})
	wg.Wait()
	return out, verdictErr
}

// mwpAudit runs the MWP non-formation audit that memscope exposure and
// the report print (it reads the snapshot once more; no draws). It fails
// only when the snapshot cannot be read, as exposure does.
func (src *Source) mwpAudit(ctx context.Context, rep *verify.Report) ([]finding.Finding, error) {
	in, err := mwp.Collect(ctx, src.s.Snap, nil, rep)
	if err != nil {
		return nil, fmt.Errorf("MWP audit: %w", err)
	}
	return mwp.Audit(in).Findings, nil
}

// jumpSubjects gives every finding's subject the form ':' accepts.
func jumpSubjects(fs []finding.Finding) []finding.Finding {
	for i := range fs {
		fs[i].Subject = jumpSubject(fs[i].Subject)
	}
	return fs
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// jumpSubject turns "entry ID" into the bare id the TUI opens.
func jumpSubject(s string) string {
	if rest, ok := strings.CutPrefix(s, "entry "); ok {
		return rest
	}
	return s
}

func (src *Source) statusByRow(rep *verify.Report) *[]tui.Status {
	out := make([]tui.Status, src.s.HeldEntries())
	problems := make([]string, len(out))
	for i := range out {
		e := src.s.EntryAt(i)
		out[i] = tui.OK
		_, flagged := rep.EntryStatus[e.ID]
		_, excluded := rep.InclusionFailures[e.ID]
		if !flagged && !excluded && e.DecodeErr == nil {
			continue // rep.Entry would list no code (most rows: no verdict to build)
		}
		ev := rep.Entry(e.ID)
		codes := ev.Codes
		if ev.Inclusion == verify.Failed && !slices.Contains(codes, ev.InclusionCode) {
			// Inclusion failures are kept apart from the entry's codes (a
			// tile can fail them all); the row must not read "ok".
			codes = append(slices.Clip(codes), ev.InclusionCode)
		}
		if e.DecodeErr != nil || len(codes) > 0 {
			out[i] = tui.Failed
			problems[i] = problemWord(codes, e.DecodeErr != nil)
		}
	}
	src.problems.Store(&problems)
	return &out
}

// problemWords name what is wrong with an entry in the Entries table, most
// serious first: a verifying signature never reads as a generic FAIL.
var problemWords = []struct {
	code finding.Code
	word string
}{
	{finding.RecordMalformed, "MALFORMED"},
	{finding.RowMalformed, "MALFORMED"},
	{finding.SigInvalid, "SIG FAIL"},
	{finding.WriterUnregistered, "WRITER?"},
	{finding.KeyOutsideValidity, "KEY DATE"},
	{finding.RecordNotCanonical, "NOT CANON"},
	{finding.ColumnMismatch, "COLUMNS?"},
	{finding.TombstonedLive, "TOMBSTONED"},
	{finding.RecordNotInLog, "NOT IN LOG"},
	{finding.InclusionFailed, "PROOF FAIL"},
	{finding.HMACWrong, "HMAC?"},
	{finding.HMACMissing, "HMAC?"},
	{finding.ParentMissing, "PARENT?"},
}

func problemWord(codes []finding.Code, undecodable bool) string {
	for _, p := range problemWords {
		for _, c := range codes {
			if c == p.code {
				return p.word
			}
		}
	}
	if undecodable {
		return "MALFORMED"
	}
	if len(codes) > 0 {
		return string(codes[0])
	}
	return ""
}

func (src *Source) replayer(ctx context.Context) (*replay.Replayer, error) {
	src.mu.Lock()
	r, err := src.rp, src.replayErr
	src.mu.Unlock()
	if r != nil || err != nil {
		return r, err
	}
	// The provenance pass labels the edges without waiting for every
	// entry to load and verify; its labels are the full verification's.
	r, err = src.s.ProvenanceReplayer(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, err // cancelled: a later call tries again
	}
	src.mu.Lock()
	src.rp, src.replayErr = r, err
	src.mu.Unlock()
	return r, err
}

// replayed is every stored query replayed on the graph now (rows, as
// ReplayAll gives them) and as it ran (ran; nil when the timeline could
// not be built).
type replayed struct {
	qs   []replay.Query
	rows []replay.Row
	ran  []assemble.AsRanRow
}

// replay replays every query now and as it ran, once per source.
func (src *Source) replay(ctx context.Context) (*replayed, error) {
	src.replayMu.Lock()
	defer src.replayMu.Unlock()
	if src.replayed != nil {
		return src.replayed, nil
	}
	r, err := src.replayer(ctx)
	if err != nil {
		return nil, err
	}
	res := &replayed{qs: src.s.ReplayQueries()}
	if res.rows, err = r.ReplayAll(ctx, res.qs, src.s.Opts.Workers); err != nil {
		return nil, err
	}
	// As it ran needs only the entries that order queries among writes,
	// so it does not wait for loading either.
	if tr, err := src.s.AsRanReplay(ctx, r); err == nil {
		if res.ran, err = assemble.ReplayAsRan(ctx, tr, res.qs, nil); err != nil {
			return nil, err
		}
	} else if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	src.replayed = res
	return res, nil
}

// Replay implements tui.Source.
func (src *Source) Replay(ctx context.Context) (tui.ReplayView, error) {
	res, err := src.replay(ctx)
	if err != nil {
		return tui.ReplayView{}, err
	}
	r, err := src.replayer(ctx)
	if err != nil {
		return tui.ReplayView{}, err
	}
	qs, rows := res.qs, res.rows
	v := tui.ReplayView{Rows: rows, Texts: map[string]string{}, Unauthenticated: map[string][]tui.UnauthEdge{}}
	asRanView(res, &v)
	for i, q := range qs {
		v.Texts[q.ID] = q.Text
		if list := unauthEdges(r, rows[i]); len(list) > 0 {
			v.Unauthenticated[q.ID] = list
		}
	}
	recorded := map[string]bool{}
	v.Nodes, v.Followed = src.selectionContext(rows)
	// The store's own record of which query an action followed wins over
	// the justification look-up.
	for _, a := range src.s.Actions {
		if a.Query != "" {
			if _, seen := recorded[a.Query]; !seen {
				v.Followed[a.Query] = nil
				recorded[a.Query] = true
			}
			v.Followed[a.Query] = append(v.Followed[a.Query], a.ID)
		}
	}
	return v, nil
}

// selectionContext finds, for the story view, the entry and text behind
// every selected passage and the recorded actions a selected passage's
// entry justifies (the action that followed the retrieval). A lookup over
// recorded data, not an analysis: which ids appear in which lists.
func (src *Source) selectionContext(rows []replay.Row) (map[string]tui.NodeInfo, map[string][]string) {
	want := map[string]bool{}
	for _, r := range rows {
		for _, it := range r.G.Items {
			want[it.NodeID] = true
		}
		for _, it := range r.GAuth.Items {
			want[it.NodeID] = true
		}
	}
	nodes := map[string]tui.NodeInfo{}
	for _, n := range src.s.Nodes {
		if !want[n.ID] || n.EID == "" {
			continue
		}
		info := tui.NodeInfo{EntryID: n.EID}
		if i, ok := src.EntryIndex(n.EID); ok {
			if c, err := src.s.Content(context.Background(), i); err == nil {
				info.Text = c
			}
		} else if e, ok := src.s.PassageEntry(n.EID); ok {
			info.Text = e.Content // read by the provenance pass while loading
		}
		nodes[n.ID] = info
	}
	// An action justified by a passage only G selected comes first: that is
	// the action the divergence caused; others follow the whole selection.
	followed := map[string][]string{}
	for _, r := range rows {
		onAuth := map[string]bool{}
		for _, it := range r.GAuth.Items {
			onAuth[it.NodeID] = true
		}
		injected, selected := map[string]bool{}, map[string]bool{}
		for _, it := range r.G.Items {
			if n, ok := nodes[it.NodeID]; ok {
				selected[n.EntryID] = true
				if !onAuth[it.NodeID] {
					injected[n.EntryID] = true
				}
			}
		}
		var first, rest []string
		for _, a := range src.s.Actions {
			if a.Query != "" {
				// The action records the query it followed.
				if a.Query == r.QueryID {
					first = append(first, a.ID)
				}
				continue
			}
			inj, sel := false, false
			for _, j := range a.Justification {
				inj = inj || injected[j]
				sel = sel || selected[j]
			}
			switch {
			case inj:
				first = append(first, a.ID)
			case sel:
				rest = append(rest, a.ID)
			}
		}
		if len(first) > 0 {
			followed[r.QueryID] = first
		} else if len(rest) > 0 {
			followed[r.QueryID] = rest
		}
	}
	return nodes, followed
}

// WhatIf implements tui.Source.
func (src *Source) WhatIf(ctx context.Context, queryID string, remove []string) (replay.WhatIf, error) {
	r, err := src.replayer(ctx)
	if err != nil {
		return replay.WhatIf{}, err
	}
	q, ok := src.s.Query(queryID)
	if !ok {
		return replay.WhatIf{}, fmt.Errorf("no query \"%s\"", queryID)
	}
	return r.WhatIf(ctx, q, replay.BaseG, remove, nil)
}

// Lineage implements tui.Source.
func (src *Source) Lineage(ctx context.Context, id string, tau float64) (tui.LineageView, error) {
	if err := src.WaitLoaded(ctx); err != nil {
		return tui.LineageView{}, err
	}
	labels, err := src.labelsAt(tau)
	if err != nil {
		return tui.LineageView{}, err
	}
	v, err := src.s.EntryLineageWith(id, labels, tau, src.failClosed(), 3, src.glyphs)
	if err != nil {
		return tui.LineageView{}, err
	}
	center := 0
	for i, rid := range v.RowIDs {
		if rid == id {
			center = i
		}
	}
	return tui.LineageView{ID: id, Tau: tau, Rows: v.Rows, RowIDs: v.RowIDs, Center: center, Explanation: v.Explanation, DOT: v.DOT}, nil
}
