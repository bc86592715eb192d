package inspect

import (
	"context"
	"fmt"

	"github.com/memscope/memscope/finding"
	"github.com/memscope/memscope/record"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/snapshot"
	"github.com/memscope/memscope/verify"
)

// ReplayGraph builds replay's graph from the snapshot, with each write's
// provenance taken from the verification report: a write's label follows
// its own signature and writer, never its endpoints.
func (s *Session) ReplayGraph(rep *verify.Report) (*replay.Graph, error) {
	declared, err := s.declaredLabels()
	if err != nil {
		return nil, err
	}
	nodes := make([]replay.Node, 0, len(s.Nodes))
	for _, n := range s.Nodes {
		rn := replay.Node{ID: n.ID, Kind: n.Kind, Label: n.Label, Authenticated: true}
		if n.Kind == snapshot.NodePassage {
			rn.Authenticated = s.passageAuthenticated(n.EID, rep, declared)
		}
		nodes = append(nodes, rn)
	}
	problems := s.sourceProblems(rep)
	edges := make([]replay.Edge, 0, len(s.Writes))
	seen := make(map[string]bool, len(s.Writes))
	for _, w := range s.Writes {
		// A duplicated write row (DUPLICATE_ID in verify) enters the graph
		// once: the first row, as a store keyed by write id would keep it.
		if seen[w.ID] {
			continue
		}
		seen[w.ID] = true
		codes := rep.WriteStatus[w.ID]
		prov := replay.Provenance{Writer: w.Writer, SignatureValid: w.Bad == nil, WriterRegistered: true, Channel: rep.Channels[w.Writer], Sources: w.Sources}
		for _, c := range codes {
			if verify.SignatureFailed(c) {
				prov.SignatureValid = false
			}
			if c == finding.WriterUnregistered {
				prov.WriterRegistered = false
			}
		}
		if _, ok := rep.Channels[w.Writer]; !ok {
			prov.WriterRegistered = false
		}
		for _, src := range w.Sources {
			if why, bad := problems(src); bad {
				prov.SourceProblems = append(prov.SourceProblems, src+": "+why)
			}
		}
		if d, ok := declared[w.ID]; ok {
			v := d
			prov.Declared = &v
		}
		edges = append(edges, replay.Edge{ID: w.ID, Src: w.Src, Dst: w.Dst, Weight: w.Weight, Prov: prov})
	}
	return replay.NewGraph(nodes, edges, replay.DropSelfLoops)
}

// passageAuthenticated: the passage's entry verified cleanly and its writer
// registered an authenticated channel.
func (s *Session) passageAuthenticated(eid string, rep *verify.Report, declared map[string]bool) bool {
	if eid == "" {
		return false
	}
	if d, ok := declared[eid]; ok {
		return d
	}
	i, ok := s.Index(eid)
	if !ok {
		return false
	}
	if rep.Entry(eid).Signature == verify.Failed {
		return false
	}
	return rep.Channels[s.Entries[i].Writer] == record.ChannelAuthenticated
}

// Replayer labels the graph with the chosen policy and prepares replays.
func (s *Session) Replayer(ctx context.Context) (*replay.Replayer, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return nil, err
	}
	g, err := s.ReplayGraph(rep)
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
		pol = importedPolicy{pol}
	}
	mode := s.Opts.CulpritMode
	if mode == "" {
		mode = replay.CulpritsFast
	}
	return replay.NewReplayer(g, replay.Config{Policy: pol, K: s.Opts.K, Culprits: true, CulpritMode: mode, Evictions: s.Opts.Evictions, Solve: replay.SolveOptions{Damping: s.Opts.Damping}})
}

// Imported reports whether the store claims (in its unsigned meta table)
// to have been written by memscope import, whose signatures are all the
// importer's own. The claim only ever marks labels as declared.
func (s *Session) Imported() bool { return s.Meta[snapshot.MetaImport] != "" }

// importedPolicy marks every label of an imported store as declared: the
// importer signed the records itself and derived channels from the input's
// declarations, so no label there is verified provenance.
type importedPolicy struct{ inner replay.LabelPolicy }

func (p importedPolicy) Name() string { return p.inner.Name() + " (imported: declared)" }

func (p importedPolicy) Label(e replay.Edge) replay.EdgeLabel {
	l := p.inner.Label(e)
	if !l.Declared {
		l.Declared = true
		l.Rule = "declared by import: " + l.Rule
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
	// The declared label table is an unsigned meta row: it is read only
	// when the user chose the declared policy.
	if s.Opts.ReplayPolicy != replay.PolicyDeclared {
		return nil, nil
	}
	m, err := snapshot.DeclaredLabels(s.Meta)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Opts.Snapshot, err)
	}
	return m, nil
}

// sourceProblems says whether a cited source entry is missing or untrusted
// after verification and lineage (at DefaultTau, fail-open): closure
// min-inheritance makes a write that cites one unauthenticated. Without
// loaded entries every source is reported as unchecked.
func (s *Session) sourceProblems(rep *verify.Report) func(id string) (string, bool) {
	labels, err := s.Labels(DefaultTau, false)
	if err != nil {
		return func(string) (string, bool) { return "entries not loaded: source not checked", true }
	}
	return func(id string) (string, bool) {
		node, ok := s.Lineage.Index(id)
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
