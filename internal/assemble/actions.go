package assemble

import (
	"context"
	"slices"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// recordFailures are the verification codes after which an entry's record
// cannot vouch for itself: MemLineage verifies before labelling, so such an
// entry is External for lineage, the gate and the defences.
var recordFailures = map[finding.Code]bool{
	finding.SigInvalid: true, finding.WriterUnregistered: true, finding.KeyOutsideValidity: true,
	finding.RecordMalformed: true, finding.RecordNotCanonical: true, finding.RecordNotInLog: true, finding.InclusionFailed: true,
}

// VerificationFailure names the codes that make an entry unverified, or ""
// when its record verified.
func VerificationFailure(rep *verify.Report, eid string) string {
	if rep == nil {
		return ""
	}
	var bad []string
	for _, c := range rep.EntryStatus[eid].Codes {
		if recordFailures[c] && !slices.Contains(bad, string(c)) {
			bad = append(bad, string(c))
		}
	}
	// verify's own per-entry verdict adds what EntryStatus does not hold:
	// inclusion failures are kept apart (InclusionFailures), and an entry
	// the log does not prove is as unverified as one whose signature fails.
	v := rep.Entry(eid)
	for _, c := range []finding.Code{v.SignatureCode, v.InclusionCode} {
		if c != "" && !slices.Contains(bad, string(c)) {
			bad = append(bad, string(c))
		}
	}
	return strings.Join(bad, ", ")
}

// ActionVerdicts evaluates every recorded action under each defence at the
// session's lineage threshold (Options.Tau, Options.FailClosed).
func (s *Session) ActionVerdicts(ctx context.Context) ([]defences.Row, error) {
	return s.ActionVerdictsAt(ctx, s.Opts.Tau, s.Opts.FailClosed)
}

// ActionVerdictsAt is ActionVerdicts with the lineage labels taken at tau
// under the given label policy (the inspector's global tau and policy).
func (s *Session) ActionVerdictsAt(ctx context.Context, tau float64, failClosed bool) ([]defences.Row, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return nil, err
	}
	labels, err := s.Labels(tau, failClosed)
	if err != nil {
		return nil, err
	}
	in := defences.Input{Policy: s.Opts.GatePolicy, HMACChecked: rep.HMACChecked, Queries: map[string]*defences.QueryView{}, QueryErr: map[string]string{}}
	if logProvesNoEntry(rep, s.Lineage) {
		in.Unlabelled = noEntryProvedReason
	}
	in.Labels = func(id string) defences.EntryLabel {
		return s.entryLabel(rep, labels, id)
	}
	need := map[string]bool{}
	for _, a := range s.Actions {
		da := defences.Action{ID: a.ID, Tool: a.Tool, Params: a.Params, Justification: a.Justification, Query: a.Query, Dispatched: a.Dispatched, TS: a.TS}
		if a.Sources != nil {
			da.Sources = map[string]defences.Sources{}
			for p, ps := range a.Sources {
				da.Sources[p] = defences.Sources{From: ps.From, Alt: ps.Alt}
			}
		}
		in.Actions = append(in.Actions, da)
		if a.Query != "" {
			need[a.Query] = true
		}
	}
	if len(need) > 0 {
		if err := s.actionQueries(ctx, rep, need, &in); err != nil {
			return nil, err
		}
	}
	return defences.Evaluate(in), nil
}

// entryLabel is what verification and lineage say of one entry.
func (s *Session) entryLabel(rep *verify.Report, labels []lineage.Trust, id string) defences.EntryLabel {
	node, ok := s.Lineage.Index(id)
	if !ok {
		return defences.EntryLabel{Trust: record.External, Why: "not in the store"}
	}
	e := s.EntryAt(s.RowOf(node))
	l := defences.EntryLabel{Known: true, Trust: labels[node]}
	if bad := VerificationFailure(rep, id); bad != "" {
		l.Trust, l.Why = record.External, "failed verification: "+bad
	}
	ch := ChannelAt(rep, e.Writer, e.Leaf)
	l.Authenticated = l.Why == "" && ch == record.ChannelAuthenticated
	switch {
	case l.Why != "":
	case ch == "":
		l.Why = "writer " + e.Writer + " not registered when the entry was logged"
	case ch != record.ChannelAuthenticated:
		l.Why = "writer " + e.Writer + " on an " + ch + " channel when the entry was logged"
	case l.Trust.IsUntrusted():
		l.Why = l.Trust.String() + " after lineage"
	}
	if rep.HMACChecked {
		l.Tag = "valid"
		for _, c := range rep.EntryStatus[id].Codes {
			switch c {
			case finding.HMACMissing:
				l.Tag = "missing"
			case finding.HMACWrong:
				l.Tag = "wrong"
			}
		}
	}
	return l
}

// actionQueries replays the queries the actions followed.
func (s *Session) actionQueries(ctx context.Context, rep *verify.Report, need map[string]bool, in *defences.Input) error {
	rp, err := s.Replayer(ctx)
	if err != nil {
		for q := range need {
			in.QueryErr[q] = err.Error()
		}
		return nil
	}
	entryOf := map[string]string{}
	for _, n := range s.Nodes {
		if n.Kind == snapshot.NodePassage && n.EID != "" {
			entryOf[n.ID] = n.EID
		}
	}
	for _, q := range s.ReplayQueries() {
		if !need[q.ID] {
			continue
		}
		row, err := rp.Replay(ctx, q)
		if err != nil {
			in.QueryErr[q.ID] = err.Error()
			continue
		}
		qv := &defences.QueryView{Row: row, EntryOf: entryOf}
		pool := poolOf(q)
		qv.Pool = len(pool)
		for _, n := range pool {
			if eid := entryOf[n]; eid != "" && len(rep.RecordFailures(eid)) > 0 {
				qv.Failing++
			}
		}
		in.Queries[q.ID] = qv
	}
	return nil
}

// poolOf is a query's candidate pool: the passages with a positive dense
// score, else every node with reset mass.
func poolOf(q replay.Query) []string {
	var out []string
	for n, v := range q.DenseScores {
		if v > 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		for n, v := range q.Reset {
			if v > 0 {
				out = append(out, n)
			}
		}
	}
	return out
}
