package assemble

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
)

// Descendants lists every entry derived, through any number of lineage
// edges of positive weight, from the given entries (not including them),
// in lineage order.
func (s *Session) Descendants(ids []string) ([]string, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	g := s.Lineage
	seen := make([]bool, g.Len())
	var queue []int
	for _, id := range ids {
		if i, ok := g.Index(id); ok && !seen[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	start := len(queue)
	for k := 0; k < len(queue); k++ {
		for _, c := range g.Children(queue[k]) {
			if c.Weight > 0 && !seen[c.Node] {
				seen[c.Node] = true
				queue = append(queue, c.Node)
			}
		}
	}
	out := make([]string, 0, len(queue)-start)
	for _, i := range queue[start:] {
		out = append(out, g.ID(i))
	}
	return out, nil
}

// EntriesBy lists the entries a principal wrote after from (ns; 0: all).
func (s *Session) EntriesBy(principal string, from int64) []string {
	var out []string
	for i := range s.Loaded() {
		if e := s.EntryAt(i); e.Writer == principal && e.TS > from {
			out = append(out, e.ID)
		}
	}
	return out
}

// LabelChange is an entry whose recomputed trust an assumption changes.
type LabelChange struct {
	Entry       string
	Now, Assume lineage.Trust
}

// VerdictChange is an action whose recomputed gate verdict changes.
type VerdictChange struct {
	Action      string
	Now, Assume string
	Dispatched  bool
}

// ClassChange is a query whose replay class changes.
type ClassChange struct {
	Query       string
	Now, Assume string
}

// Compromise is what changes when a principal is assumed compromised from
// a moment on.
type Compromise struct {
	Principal string
	From      int64
	// Entries and Writes are the principal's records after From, now
	// treated as unauthenticated (entries as External for lineage).
	Entries, Writes []string
	Labels          []LabelChange
	Verdicts        []VerdictChange
	Classes         []ClassChange
}

// compromisedWriter is the writer name lineage sees for an entry assumed
// compromised: an external writer, so its base label is External.
func compromisedWriter(p string) string { return "external:assumed-compromised:" + p }

// AssumeCompromised recomputes lineage labels, gate verdicts and G_auth
// with principal p's entries and structural writes recorded after from
// treated as unauthenticated, and reports every label, verdict and replay
// class that changes. rp is the replayer of the store as verified.
func (s *Session) AssumeCompromised(ctx context.Context, rp *replay.Replayer, tl *timeline.Timeline, p string, from int64, tau float64) (*Compromise, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	c := &Compromise{Principal: p, From: from, Entries: s.EntriesBy(p, from), Writes: tl.WritesBy(p, from)}
	// Lineage: rebuild with the principal's later entries written by an
	// external writer, then compare label by label and verdict by verdict.
	now, err := s.Labels(tau, s.Opts.FailClosed)
	if err != nil {
		return nil, err
	}
	hit := map[string]bool{}
	for _, id := range c.Entries {
		hit[id] = true
	}
	// The entries are read again rather than rebuilt from the graph, which
	// drops parents missing from the store (they still count).
	g := s.Lineage
	entries := make([]lineage.Entry, 0, g.Len())
	err = s.Snap.EachEntry(ctx, func(r *loader.EntryRow) error {
		w := r.Writer
		if r.Entry != nil {
			w = r.Entry.Writer
		}
		if hit[r.EID] {
			w = compromisedWriter(p)
		}
		entries = append(entries, lineageOf(r, w))
		return nil
	})
	if err != nil {
		return nil, err
	}
	ag := lineage.Build(entries)
	if rep := s.Report(); rep != nil {
		// The same verification feeds the what-if graph as the real one.
		ghosts, _ := s.lawfulGhosts(rep)
		ag.Resolve(unverifiedEntries(rep), ghosts)
	}
	assume, err := ag.Propagate(s.propagateOptions(tau, s.Opts.FailClosed))
	if err != nil {
		return nil, err
	}
	for i := 0; i < ag.Len(); i++ {
		j, ok := g.Index(ag.ID(i))
		if ok && now[j] != assume[i] {
			c.Labels = append(c.Labels, LabelChange{Entry: ag.ID(i), Now: now[j], Assume: assume[i]})
		}
	}
	gNow, err := s.GateAudit(now)
	if err != nil {
		return nil, err
	}
	gAssume, err := ag.AuditGate(s.lineageActions(), assume, s.Opts.GatePolicy)
	if err != nil {
		return nil, err
	}
	for i := range gNow {
		if i < len(gAssume) && gNow[i].Verdict != gAssume[i].Verdict {
			c.Verdicts = append(c.Verdicts, VerdictChange{Action: gNow[i].Action, Now: gNow[i].Verdict.String(), Assume: gAssume[i].Verdict.String(), Dispatched: gNow[i].Dispatched})
		}
	}
	// Replay: the same graph with the principal's later writes labelled
	// unauthenticated on top of the verified labels.
	later := map[string]bool{}
	for _, id := range c.Writes {
		later[id] = true
	}
	base := map[string]replay.EdgeLabel{}
	for i := range rp.Graph().EdgeCount() {
		base[rp.Graph().EdgeID(i)] = rp.Label(i)
	}
	arp, err := replay.NewReplayer(rp.Graph(), replay.Config{Policy: assumedPolicy{base: base, later: later, who: p}, K: s.Opts.K,
		Solve: replay.SolveOptions{Damping: s.Opts.Damping}})
	if err != nil {
		return nil, err
	}
	for _, q := range s.ReplayQueries() {
		a, err := rp.ReplayPresent(ctx, q, func(int) bool { return true })
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			continue // a query that cannot be replayed changes nothing here
		}
		b, err := arp.ReplayPresent(ctx, q, func(int) bool { return true })
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			continue
		}
		if a.Class != b.Class {
			c.Classes = append(c.Classes, ClassChange{Query: q.ID, Now: string(a.Class), Assume: string(b.Class)})
		}
	}
	return c, nil
}

// assumedPolicy keeps the verified label of every write except the
// principal's writes after the moment, which become unauthenticated.
type assumedPolicy struct {
	base  map[string]replay.EdgeLabel
	later map[string]bool
	who   string
}

func (p assumedPolicy) Name() string { return "as verified, " + p.who + " assumed compromised" }

func (p assumedPolicy) Label(e replay.Edge) replay.EdgeLabel {
	if p.later[e.ID] {
		return replay.EdgeLabel{Authenticated: false, Rule: fmt.Sprintf("writer %s assumed compromised", p.who)}
	}
	return p.base[e.ID]
}

// Blast is a write's or principal's blast radius with the lineage part.
type Blast struct {
	*timeline.Blast
	// Derived are the entries derived (lineage) from the principal's
	// entries; empty for a single structural write, which has no lineage.
	Entries []string
	Derived []string
}

// BlastRadius of a structural write (by id) or of a principal
// ("principal:NAME": every structural write and entry it made after from).
func (s *Session) BlastRadius(ctx context.Context, tr *timeline.Replay, target string, from int64) (*Blast, error) {
	var writes, entries []string
	if p, ok := strings.CutPrefix(target, "principal:"); ok {
		writes = tr.Timeline().WritesBy(p, from)
		entries = s.EntriesBy(p, from)
	} else {
		writes = []string{target}
	}
	tb := &timeline.Blast{}
	if len(writes) > 0 {
		var err error
		if tb, err = tr.BlastRadius(ctx, writes, s.ReplayQueries(), s.PassageEntries()); err != nil {
			return nil, err
		}
	}
	derived, err := s.Descendants(entries)
	if err != nil {
		return nil, err
	}
	return &Blast{Blast: tb, Entries: entries, Derived: slices.Clone(derived)}, nil
}
