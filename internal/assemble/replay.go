package assemble

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// provenanceView is what replay's labels read besides the report: the
// writer of the entry a passage shows, and why a cited source makes a
// write unauthenticated. The full path answers from the loaded entries and
// their lineage, the provenance pass (provenance.go) from the subgraph it
// checked; the labels are built from either by the same code.
type provenanceView struct {
	rep *verify.Report
	// writer is the writer of an entry and the leaf its row claims.
	writer func(eid string) (string, int64, bool)
	source func(id string) (string, bool)
}

// ReplayGraph builds replay's graph from the snapshot, with each write's
// provenance taken from the verification report: a write's label follows
// its own signature and writer, never its endpoints.
func (s *Session) ReplayGraph(rep *verify.Report) (*replay.Graph, error) {
	v := provenanceView{rep: rep, writer: func(eid string) (string, int64, bool) {
		i, ok := s.Index(eid)
		if !ok {
			return "", 0, false
		}
		e := s.EntryAt(i)
		return e.Writer, e.Leaf, true
	}}
	labels, err := s.Labels(DefaultTau, false)
	if err != nil {
		v.source = func(string) (string, bool) { return "entries not loaded: source not checked", true }
	} else {
		v.source = sourceProblems(s.Lineage, labels, rep)
	}
	return s.replayGraph(v)
}

func (s *Session) replayGraph(v provenanceView) (*replay.Graph, error) {
	rep := v.rep
	declared, err := s.declaredLabels()
	if err != nil {
		return nil, err
	}
	nodes := make([]replay.Node, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		rn := replay.Node{ID: n.ID, Kind: n.Kind, Label: n.Label, Authenticated: true}
		if n.Kind == snapshot.NodePassage {
			rn.Authenticated = passageAuthenticated(n.EID, v, declared)
		}
		nodes = append(nodes, rn)
	}
	nodes = append(nodes, unreadNodePlaceholders(s.Nodes, s.unreadNodes, s.writeEndpoints)...)
	// The edges go to the graph one at a time: a million Edge values
	// held together were a third of this command's peak.
	b, err := replay.NewGraphBuilder(nodes, s.WriteCount(), replay.DropSelfLoops)
	if err != nil {
		return nil, err
	}
	if s.writes != nil && b.UseIDs(s.writes.ids) {
		// Every row holds its own id: the graph reads the session's id
		// table, and no id is spelt out (a million 36-byte strings of
		// garbage otherwise). The report lists the few writes with
		// findings; they are found by id once.
		status := map[int32][]finding.Code{}
		for id, codes := range rep.WriteStatus {
			if j, ok := s.writes.ids.Find(id); ok {
				status[int32(j)] = codes
			}
		}
		// Inclusion failures are kept apart from WriteStatus (by id, with
		// the entries'); a write the log does not prove is unverified.
		for id, c := range rep.InclusionFailures {
			if j, ok := s.writes.ids.Find(id); ok {
				status[int32(j)] = append(slices.Clone(status[int32(j)]), c)
			}
		}
		for i := range s.WriteCount() {
			t := s.writes
			w := Write{Src: t.strs[t.src[i]], Dst: t.strs[t.dst[i]], Weight: t.weight[i], Writer: t.strs[t.wrtr[i]], Leaf: t.leaf[i], Bad: t.bad[int32(i)]}
			if lo, hi := t.srcOff[i], t.srcOff[i+1]; hi > lo {
				w.Sources = make([]string, hi-lo)
				for j := range w.Sources {
					w.Sources[j] = t.strs[t.srcs[int(lo)+j]]
				}
			}
			if declared != nil { // the declared policy's table is keyed by id
				w.ID = s.WriteID(i)
			}
			if err := b.Add(writeEdge(v, w, status[int32(i)], declared)); err != nil {
				return nil, err
			}
		}
		return b.Graph()
	}
	for i := range s.WriteCount() {
		w := s.WriteAt(i)
		// A duplicated write row (DUPLICATE_ID in verify) enters the graph
		// once: the first row, as a store keyed by write id would keep it.
		if b.Has(w.ID) {
			continue
		}
		codes := rep.WriteStatus[w.ID]
		if c, ok := rep.InclusionFailures[w.ID]; ok {
			codes = append(slices.Clone(codes), c)
		}
		if err := b.Add(writeEdge(v, w, codes, declared)); err != nil {
			return nil, err
		}
	}
	g, err := b.Graph()
	if err != nil {
		return nil, err
	}
	if s.writes != nil {
		g.ShareIDs(s.writes.ids) // no duplicated row: the ids are held once
	}
	return g, nil
}

// writeEndpoints yields the source and destination of every write row.
func (s *Session) writeEndpoints(yield func(string) bool) {
	for i := range s.WriteCount() {
		w := s.WriteAt(i)
		if !yield(w.Src) || !yield(w.Dst) {
			return
		}
	}
}

// unreadNodes are the node rows the loader could not read: the ids of
// those it lists, and whether it skipped more than it lists (past its cap
// on listed row errors), whose ids are not known.
type unreadNodes struct {
	ids      []string
	unlisted bool
}

// unreadNodeRows reads err (loader.RowErrors) as unreadNodes.
func unreadNodeRows(err error) unreadNodes {
	var re loader.RowErrors
	if !errors.As(err, &re) {
		return unreadNodes{}
	}
	var u unreadNodes
	for _, e := range re {
		if e.Record != "" && !strings.HasPrefix(e.Record, "seq ") {
			u.ids = append(u.ids, e.Record)
		}
	}
	u.unlisted = re.Unlisted() > 0
	return u
}

// unreadNodePlaceholders stands in for node rows that could not be read,
// one entity node each, so that one bad row does not stop every replay
// ("a bad row is a finding and the rest is still analysed"): the writes
// naming the node still enter the graph. When the loader skipped rows it
// does not list, every write endpoint (endpoints) that no row read
// declares gets one. An entity is never selected, so the placeholder shows
// in no top-k; the rows' warnings ("not analysed") and exit status 1 say
// the replay is partial.
func unreadNodePlaceholders(read []loader.Node, unread unreadNodes, endpoints iter.Seq[string]) []replay.Node {
	if len(unread.ids) == 0 && !unread.unlisted {
		return nil
	}
	have := make(map[string]bool, len(read))
	for _, n := range read {
		have[n.ID] = true
	}
	var out []replay.Node
	add := func(id string) {
		if !have[id] {
			have[id] = true
			out = append(out, replay.Node{ID: id, Kind: replay.KindEntity, Label: id + " (node row not read)", Unread: true})
		}
	}
	for _, id := range unread.ids {
		add(id)
	}
	if unread.unlisted {
		for id := range endpoints {
			add(id)
		}
	}
	return out
}

// writeEdge is write w as a replay edge, its provenance from the report
// (codes: w's finding codes) and the view. w.ID may be empty when the
// graph builder takes the ids from the session's table.
func writeEdge(v provenanceView, w Write, codes []finding.Code, declared map[string]bool) replay.Edge {
	rep := v.rep
	prov := replay.Provenance{Writer: w.Writer, SignatureValid: w.Bad == nil, WriterRegistered: true, Channel: ChannelAt(rep, w.Writer, w.Leaf), Sources: w.Sources}
	for _, c := range codes {
		if verify.SignatureFailed(c) {
			prov.SignatureValid = false
		}
		if c == finding.RecordNotInLog || c == finding.InclusionFailed {
			prov.NotInLog = string(c)
		}
		if c == finding.WriterUnregistered {
			prov.WriterRegistered = false
		}
	}
	if _, ok := rep.Channels[w.Writer]; !ok {
		prov.WriterRegistered = false
	}
	for _, src := range w.Sources {
		if why, bad := v.source(src); bad {
			prov.SourceProblems = append(prov.SourceProblems, src+": "+why)
		}
	}
	if d, ok := declared[w.ID]; ok {
		prov.Declared = &d
	}
	return replay.Edge{ID: w.ID, Src: w.Src, Dst: w.Dst, Weight: w.Weight, Prov: prov}
}

// passageAuthenticated: the passage's entry verified cleanly and its writer
// registered an authenticated channel.
func passageAuthenticated(eid string, v provenanceView, declared map[string]bool) bool {
	if eid == "" {
		return false
	}
	if d, ok := declared[eid]; ok {
		return d
	}
	writer, leaf, ok := v.writer(eid)
	if !ok {
		return false
	}
	if VerificationFailure(v.rep, eid) != "" { // signature, registration or inclusion
		return false
	}
	return ChannelAt(v.rep, writer, leaf) == record.ChannelAuthenticated
}

// ChannelAt is the channel writer had when the record at leaf (-1: none)
// was logged: the registration in force at that log position, never a
// later one (verify.Report.ChannelAt; docs/FORMAT.md).
func ChannelAt(rep *verify.Report, writer string, leaf int64) string {
	pos := uint64(verify.NoPosition)
	if leaf >= 0 {
		pos = uint64(leaf)
	}
	return rep.ChannelAt(writer, pos)
}

// Replayer labels the graph with the chosen policy and prepares replays.
//
// With the entries loaded, the labels come from the full verification (run
// now if it has not run). Without them, they come from the provenance pass,
// which gives the same labels without checking every entry
// (provenance.go), or, where that pass cannot decide, from loading and
// verifying everything.
func (s *Session) Replayer(ctx context.Context) (*replay.Replayer, error) {
	return s.replayer(ctx, s.needLoaded() == nil, true)
}

// ProvenanceReplayer is Replayer by the provenance pass even when the
// entries are loaded or loading, so that replay need not wait for the
// verification of every entry (the inspector runs that alongside). It uses
// the full verification when that has already run; where the pass
// declines, it waits for the Load another goroutine runs (it never starts
// one) and verifies.
func (s *Session) ProvenanceReplayer(ctx context.Context) (*replay.Replayer, error) {
	return s.replayer(ctx, false, false)
}

// ErrPassDeclined is the error PassReplayer wraps when the provenance
// pass cannot decide a label as the full verification would.
var ErrPassDeclined = errNeedFull

// PassReplayer is Replayer by the provenance pass alone: where the pass
// declines it loads and verifies nothing and returns an error wrapping
// ErrPassDeclined (a monitor on a live handle then checks a copy).
func (s *Session) PassReplayer(ctx context.Context) (*replay.Replayer, error) {
	if _, err := s.provenancePass(ctx); err != nil {
		return nil, err
	}
	return s.replayer(ctx, false, false)
}

func (s *Session) replayer(ctx context.Context, full, startLoad bool) (*replay.Replayer, error) {
	g, err := s.labelledGraph(ctx, full, startLoad)
	if err != nil {
		return nil, fmt.Errorf("replay graph of %s: %w", s.Opts.Snapshot, err)
	}
	var pol replay.LabelPolicy
	if s.Opts.ReplayPolicy != "" {
		if pol, err = replay.PolicyByName(s.Opts.ReplayPolicy); err != nil {
			return nil, err
		}
	}
	// The meta row saying "imported" is unsigned: it may only weaken a
	// label (mark it declared), never choose the policy. The declared
	// policy, which trusts the importer's unsigned label table, runs only
	// when the user names it.
	if s.Imported() {
		if pol == nil {
			pol, _ = replay.PolicyByName(replay.PolicyDefault)
		}
		pol = importedPolicy{inner: pol, rules: &sync.Map{}}
	}
	mode := s.Opts.CulpritMode
	if mode == "" {
		mode = replay.CulpritsFast
	}
	return replay.NewReplayer(g, replay.Config{Policy: pol, K: s.Opts.K, Culprits: true, CulpritMode: mode, Evictions: s.Opts.Evictions, Solve: replay.SolveOptions{Damping: s.Opts.Damping}})
}

// labelledGraph builds the replay graph by the cheapest sound path.
func (s *Session) labelledGraph(ctx context.Context, full, startLoad bool) (*replay.Graph, error) {
	if rep := s.Report(); rep != nil && s.needLoaded() == nil {
		return s.ReplayGraph(rep)
	}
	if full {
		rep, err := s.Verify(ctx, nil)
		if err != nil {
			return nil, err
		}
		return s.ReplayGraph(rep)
	}
	p, err := s.provenancePass(ctx)
	if err == nil {
		return s.replayGraph(p.view())
	}
	if !errors.Is(err, errNeedFull) {
		return nil, err
	}
	s.FellBack = err.Error()
	if err := s.ensureLoaded(ctx, startLoad); err != nil {
		return nil, err
	}
	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return nil, err
	}
	return s.ReplayGraph(rep)
}

// Imported reports whether the store claims (in its unsigned meta table)
// to have been written by memscope import, whose signatures are all the
// importer's own. The claim only ever marks labels as declared.
func (s *Session) Imported() bool { return s.Meta[snapshot.MetaImport] != "" }

// importedPolicy marks every label of an imported store as declared: the
// importer signed the records itself and derived channels from the input's
// declarations, so no label there is verified provenance.
type importedPolicy struct {
	inner replay.LabelPolicy
	// rules holds each distinct "declared by import: " rule once: a
	// million edges share a handful of rules.
	rules *sync.Map
}

func (p importedPolicy) Name() string { return p.inner.Name() + " (imported: declared)" }

func (p importedPolicy) Label(e replay.Edge) replay.EdgeLabel {
	l := p.inner.Label(e)
	if !l.Declared {
		l.Declared = true
		if strings.Contains(l.Rule, ": ") { // names a source: not shared
			l.Rule = "declared by import: " + l.Rule
		} else {
			r, ok := p.rules.Load(l.Rule)
			if !ok {
				r, _ = p.rules.LoadOrStore(l.Rule, "declared by import: "+l.Rule)
			}
			l.Rule = r.(string)
		}
	}
	return l
}

// ReplayQueries converts the stored queries for replay.
func (s *Session) ReplayQueries() []replay.Query {
	out := make([]replay.Query, len(s.Queries))
	for i, q := range s.Queries {
		out[i] = replay.Query{ID: q.ID, Text: q.Text, Reset: q.Reset, K: q.K, Recorded: q.Selected, DenseScores: q.Dense}
		if s.Opts.K > 0 {
			out[i].K = s.Opts.K
		}
	}
	return out
}

// Query finds a stored query by id.
func (s *Session) Query(id string) (replay.Query, bool) {
	for _, q := range s.ReplayQueries() {
		if q.ID == id {
			return q, true
		}
	}
	return replay.Query{}, false
}

func (s *Session) declaredLabels() (map[string]bool, error) {
	// Declared labels are the input's claims (import notes, or an older
	// import's meta row) whatever signs them: they are read only when the
	// user chose the declared policy.
	if s.Opts.ReplayPolicy != replay.PolicyDeclared {
		return nil, nil
	}
	m, err := s.Snap.DeclaredLabels(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Opts.Snapshot, err)
	}
	return m, nil
}

// sourceProblems says whether a cited source entry is missing or untrusted
// after verification and lineage (labels of g at DefaultTau, fail-open):
// closure min-inheritance makes a write that cites one unauthenticated.
func sourceProblems(g *lineage.Graph, labels []lineage.Trust, rep *verify.Report) func(id string) (string, bool) {
	return func(id string) (string, bool) {
		node, ok := g.Index(id)
		if !ok {
			return "not in the store", true
		}
		if why := VerificationFailure(rep, id); why != "" {
			return "failed verification (" + why + ")", true
		}
		if l := labels[node]; l.IsUntrusted() {
			return l.String() + " after lineage", true
		}
		return "", false
	}
}
