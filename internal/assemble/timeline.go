package assemble

import (
	"context"
	"fmt"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
)

// Timeline builds the snapshot's ordered stream of events (after Load).
// With a replayer, structural writes carry its authentication label.
// A checkpoint whose note cannot be parsed is placed by the time the
// store saw it.
func (s *Session) Timeline(rp *replay.Replayer) (*timeline.Timeline, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	content := func(i int, e *Entry) string { return e.Content }
	if s.Opts.LazyContent {
		// Read back in windows, in row order: one pass over the table.
		const window = 4096
		var got []string
		from := -1
		content = func(i int, e *Entry) string {
			if i < from || i >= from+len(got) {
				from = i - i%window
				var err error
				if got, err = s.Contents(context.Background(), from, min(from+window, s.HeldEntries())); err != nil {
					got = nil
					return "(content not read: " + err.Error() + ")"
				}
			}
			return got[i-from]
		}
	}
	return s.timeline(rp, entryList{s.HeldEntries(), s.EntryAt}, true, content), nil
}

// timeline builds the stream; without summaries (for replaying as of a
// query only) the events carry no text, which a million writes would
// otherwise format.
func (s *Session) timeline(rp *replay.Replayer, entries entryList, summaries bool, content func(i int, e *Entry) string) *timeline.Timeline {
	ev, _ := s.events(rp, entries, summaries, content, true)
	return timeline.Build(ev)
}

// asRanReplay is AsRan's replay over entries (those that can order
// queries among the writes): the writes are placed by their leaf and time
// alone (timeline.NewAsRanReplay), never held as events.
func (s *Session) asRanReplay(rp *replay.Replayer, entries []Entry) (*timeline.Replay, error) {
	ev, at := s.events(rp, entriesOf(entries), false, func(int, *Entry) string { return "" }, false)
	g := rp.Graph()
	places := make([]timeline.WritePlace, s.WriteCount())
	for i := range places {
		places[i] = timeline.WritePlace{Leaf: s.writes.leaf[i], TS: s.writes.ts[i], Edge: -1}
		if j, ok := g.EdgeIndex(s.WriteID(i)); ok {
			places[i].Edge = int32(j)
		}
	}
	return timeline.NewAsRanReplay(rp, ev, at, places)
}

// entryList is n entries, read one at a time (the session's rows, or a
// slice of them).
type entryList struct {
	n  int
	at func(i int) Entry
}

func entriesOf(es []Entry) entryList {
	return entryList{len(es), func(i int) Entry { return es[i] }}
}

// events are the timeline's events in the order Build takes them; without
// writes, at is where the write events would have gone.
func (s *Session) events(rp *replay.Replayer, entries entryList, summaries bool, content func(i int, e *Entry) string, writes bool) (ev []timeline.Event, at int) {
	var auth map[string]bool
	// Replaying as of a query reads positions only: no labels on events.
	if rp != nil && summaries {
		g := rp.Graph()
		auth = make(map[string]bool, g.EdgeCount())
		for i := range g.EdgeCount() {
			auth[g.EdgeID(i)] = rp.Authenticated(i)
		}
	}
	n := len(s.PrincipalEvents) + entries.n + len(s.TombstoneRecs) + len(s.Queries) + len(s.Actions) + len(s.GateEvents) + len(s.Checkpoints)
	if writes {
		n += s.WriteCount()
	}
	ev = make([]timeline.Event, 0, n)
	for _, p := range s.PrincipalEvents {
		ev = append(ev, timeline.Event{Kind: timeline.KindPrincipal, ID: p.ID, Leaf: p.Leaf, TS: p.TS, Principal: p.Principal,
			Summary: fmt.Sprintf("%s %s (%s)", p.Op, p.Principal, p.Channel)})
	}
	for i := range entries.n {
		e := entries.at(i)
		ev = append(ev, timeline.Event{Kind: timeline.KindEntry, ID: e.ID, Leaf: e.Leaf, TS: e.TS, Principal: e.Writer,
			Summary: Preview(content(i, &e), 60)})
	}
	at = len(ev)
	for i := range s.WriteCount() {
		if !writes {
			break
		}
		w := s.WriteAt(i)
		e := timeline.Event{Kind: timeline.KindWrite, ID: w.ID, Leaf: w.Leaf, TS: w.TS, Principal: w.Writer, Cites: w.Sources}
		if summaries {
			e.Summary = fmt.Sprintf("%s %s -[%s %g]-> %s", w.Kind, w.Src, w.Rel, w.Weight, w.Dst)
		}
		if a, ok := auth[w.ID]; ok {
			e.Authenticated = &a
		}
		ev = append(ev, e)
	}
	for _, t := range s.TombstoneRecs {
		ev = append(ev, timeline.Event{Kind: timeline.KindTombstone, ID: t.Target, Leaf: t.Leaf, TS: t.TS, Principal: t.Writer,
			Summary: "deletes " + t.Target + ": " + t.Reason, Cites: []string{t.Target}})
	}
	for _, q := range s.Queries {
		leaf, who := signedPlace(q.Record)
		ev = append(ev, timeline.Event{Kind: timeline.KindQuery, ID: q.ID, Leaf: leaf, TS: q.TS, Principal: who, Summary: Preview(q.Text, 60)})
	}
	for _, a := range s.Actions {
		state := "not dispatched"
		if a.Dispatched {
			state = "dispatched"
		}
		leaf, who := signedPlace(a.Record)
		ev = append(ev, timeline.Event{Kind: timeline.KindAction, ID: a.ID, Leaf: leaf, TS: a.TS, Principal: who,
			Summary: fmt.Sprintf("%s (%s) citing %s", a.Tool, state, strings.Join(a.Justification, ",")), Cites: a.Justification})
	}
	for _, g := range s.GateEvents {
		leaf, who := signedPlace(g.Record)
		ev = append(ev, timeline.Event{Kind: timeline.KindGate, ID: g.ID, Leaf: leaf, TS: g.TS, Principal: who,
			Summary: fmt.Sprintf("%s %s: %s", g.Verdict, g.CandidateEID, g.Reason), Cites: []string{g.CandidateEID}})
	}
	for i, c := range s.Checkpoints {
		e := timeline.Event{Kind: timeline.KindCheckpoint, ID: fmt.Sprintf("checkpoint %d", i+1), Leaf: -1, TS: c.SeenAt}
		if cp, err := tlog.ParseCheckpoint(c.Note); err == nil {
			e.Size = cp.Size
			e.Summary = fmt.Sprintf("tree size %d (signature not checked here)", cp.Size)
		} else {
			e.Summary = "unparsable note: " + err.Error()
		}
		ev = append(ev, e)
	}
	return ev, at
}

// TimeReplay ties the replayer to the snapshot's timeline, for replays as
// of a moment and the first-flip search.
func (s *Session) TimeReplay(rp *replay.Replayer) (*timeline.Replay, error) {
	tl, err := s.Timeline(rp)
	if err != nil {
		return nil, err
	}
	return timeline.NewReplay(rp, tl)
}

// AsRanReplay ties the replayer to a timeline that places every query
// among the writes exactly as TimeReplay's does, for replaying each query
// as it ran. Without loaded entries (after the provenance pass) it holds
// only the entries that can change that order (see asRanEntries): use it
// for AsRan and At at a query's cut, not for counts or moments.
func (s *Session) AsRanReplay(ctx context.Context, rp *replay.Replayer) (*timeline.Replay, error) {
	if s.needLoaded() == nil {
		if s.Opts.LazyContent {
			// As the provenance pass does (asRanEntries), keep only the
			// entries that can change where a query falls among the
			// writes, without their text: the whole store's timeline was
			// most of the inspector's peak memory at a million entries.
			return s.asRanReplay(rp, s.orderingEntries())
		}
		return s.TimeReplay(rp)
	}
	p, err := s.provenancePass(ctx)
	if err != nil {
		return nil, err
	}
	ordering, err := s.passOrdering(ctx, p)
	if err != nil {
		return nil, err
	}
	return s.asRanReplay(rp, ordering)
}

// PassageEntries maps each passage node to the entry it shows.
func (s *Session) PassageEntries() map[string]string {
	m := map[string]string{}
	for _, n := range s.Nodes {
		if n.EID != "" {
			m[n.ID] = n.EID
		}
	}
	return m
}

// AsRanRow is one query replayed on the graph as it stood when it ran.
type AsRanRow struct {
	// Placed: the query has a place in the timeline and was replayed.
	Placed bool
	Row    replay.Row
	Cut    timeline.Cut
	Err    error
}

// ReplayAsRan replays each query that need accepts (every query when need
// is nil) and that the timeline places, as it ran: once, for both the
// recorded-selection check (ApplyAsRan) and the views that show the past.
// A cancelled ctx ends it with ctx's error.
func ReplayAsRan(ctx context.Context, tr *timeline.Replay, qs []replay.Query, need func(i int) bool) ([]AsRanRow, error) {
	out := make([]AsRanRow, len(qs))
	for i, q := range qs {
		if need != nil && !need(i) {
			continue
		}
		if _, ok := tr.Timeline().Index(timeline.KindQuery, q.ID); !ok {
			continue
		}
		row, cut, err := tr.AsRan(ctx, q)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = AsRanRow{Placed: true, Row: row, Cut: cut, Err: err}
	}
	return out, nil
}

// RecordedAsRan replaces each row's recorded-selection check with the one
// against the graph as it stood when the query ran, for every query placed
// in the timeline (rows[i] is the replay of qs[i]). Comparing with the
// final graph would report every query that ran before a later write; as it
// ran, a mismatch means the evidence or the replay is wrong. A query that
// cannot be replayed as it ran gets a failed row with the reason; the other
// rows stand.
func RecordedAsRan(ctx context.Context, tr *timeline.Replay, qs []replay.Query, rows []replay.Row) error {
	ran, err := ReplayAsRan(ctx, tr, qs, func(i int) bool { return recordedCheck(qs[i], rows[i]) })
	if err != nil {
		return err
	}
	ApplyAsRan(qs, rows, ran)
	return nil
}

// recordedCheck: the row's recorded selection is checked as it ran (a
// query that failed to replay keeps its own row and reason).
func recordedCheck(q replay.Query, row replay.Row) bool {
	return q.Recorded != nil && row.Err == nil
}

// ApplyAsRan is RecordedAsRan with the as-ran replays already made (ran
// from ReplayAsRan over the same queries).
func ApplyAsRan(qs []replay.Query, rows []replay.Row, ran []AsRanRow) {
	for i, q := range qs {
		if !recordedCheck(q, rows[i]) || !ran[i].Placed {
			continue
		}
		if err := ran[i].Err; err != nil {
			// One query that cannot be replayed as it ran fails alone.
			rows[i] = replay.Row{QueryID: q.ID, K: q.K, Class: diff.Failed, Err: fmt.Errorf("as it ran: %w", err)}
			continue
		}
		rows[i].Recorded = ran[i].Row.Recorded
	}
}

// signedPlace is where a signed event row sits in the log and who signed
// it; an unsigned row (older stores, imports) is placed by its recorded
// time and names no principal. A wrong leaf or signer is verify's finding.
func signedPlace(rr *loader.RowRecord) (int64, string) {
	if !rr.Signed() || rr.Err != nil {
		return -1, ""
	}
	return rr.LeafIndex, rr.Writer
}

// orderingEntries are the loaded entries asRanEntries would read: those
// whose claimed leaf is at or before the last write's.
func (s *Session) orderingEntries() []Entry {
	last := int64(-1)
	for i := range s.WriteCount() {
		last = max(last, s.WriteLeaf(i))
	}
	var out []Entry
	for i := range s.HeldEntries() {
		if e := s.EntryAt(i); e.Leaf >= 0 && e.Leaf <= last {
			out = append(out, e)
		}
	}
	return out
}
