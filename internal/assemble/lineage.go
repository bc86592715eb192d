package assemble

import (
	"fmt"
	"math"
	"sort"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/verify"
)

// LaunderingRow is one laundering finding: recorded trust safer than the
// trust the entry's lineage gives.
type LaunderingRow struct {
	Entry      string `json:"entry"`
	Recorded   string `json:"recorded"`
	Recomputed string `json:"recomputed"`
}

// RefusedAction is a dispatched action the gate would have refused.
type RefusedAction struct {
	Action  string   `json:"action"`
	Tool    string   `json:"tool"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	// Coverage is "unsigned" (or "not checked") when no signature covers
	// the action row: the action itself is then a claim.
	Coverage string `json:"coverage,omitempty"`
}

// LineageSummary is the store-wide lineage result at one tau.
type LineageSummary struct {
	Tau        float64 `json:"tau"`
	FailClosed bool    `json:"fail_closed"`
	// Verified: base labels come from verification (an entry that failed
	// it is External); false means from writer names only, not verified.
	Verified       bool              `json:"verified"`
	Entries        int               `json:"entries"`
	Counts         map[string]int    `json:"counts"` // recomputed label -> entries
	Laundering     []LaunderingRow   `json:"laundering"`
	RefusedActions []RefusedAction   `json:"refused_actions"`
	Gate           []GateRow         `json:"gate"`
	Findings       []finding.Finding `json:"findings"`
	// Verdicts is "checked" when the labels come from verification, else
	// NotChecked: no laundering, gate or refusal verdict is drawn from
	// labels nothing verified (Laundering and RefusedActions are then
	// empty and every Gate row's verdict is NotChecked).
	Verdicts string `json:"verdicts"`
	// VerdictsWhy says why they were not drawn ("" when checked).
	VerdictsWhy string `json:"verdicts_why,omitempty"`
	labels      []lineage.Trust
}

// NotChecked is what a verdict that was not drawn says in every output.
const NotChecked = "not checked"

// notCheckedReason is the reason a withheld gate verdict gives.
const notCheckedReason = "not checked: the labels are not verified (give --log and anchors)"

// GateRow is the recomputed gate verdict of one recorded action.
type GateRow struct {
	Action            string `json:"action"`
	Tool              string `json:"tool"`
	Sensitive         bool   `json:"sensitive"`
	Verdict           string `json:"verdict"`
	Dispatched        bool   `json:"dispatched"`
	ShouldHaveRefused bool   `json:"should_have_refused"`
	Reason            string `json:"reason"`
	Coverage          string `json:"coverage,omitempty"` // as RefusedAction.Coverage
}

func (s *Session) propagateOptions(tau float64, failClosed bool) lineage.Options {
	return lineage.Options{Tau: tau, FailClosed: failClosed}
}

// labelKey names one labelling: a tau and a label policy.
type labelKey struct {
	tau        float64
	failClosed bool
}

// Labels recomputes every entry's trust at tau (indexed like Entries).
// Once verification was fed in, a labelling is computed once and shared:
// callers must not modify the slice.
func (s *Session) Labels(tau float64, failClosed bool) ([]lineage.Trust, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	s.linMu.Lock()
	defer s.linMu.Unlock()
	if rep := s.Report(); rep != nil && !s.resolved {
		ghosts, claims := s.lawfulGhosts(rep)
		s.Lineage.Resolve(unverifiedEntries(rep), ghosts)
		s.ghostFindings = claims
		s.resolved = true
	}
	k := labelKey{tau, failClosed}
	if l, ok := s.resolvedLabels[k]; ok {
		return l, nil
	}
	l, err := s.Lineage.Propagate(s.propagateOptions(tau, failClosed))
	if err == nil && s.resolved {
		// Before verification the labels are the writers' names alone and
		// Resolve changes them: only the resolved graph's are kept.
		if s.resolvedLabels == nil {
			s.resolvedLabels = map[labelKey][]lineage.Trust{}
		}
		s.resolvedLabels[k] = l
	}
	return l, err
}

// tombstoneClaims are the findings about tombstones' claims on the
// entries they delete (lawfulGhosts), once verification was fed in.
func (s *Session) tombstoneClaims() []finding.Finding {
	s.linMu.Lock()
	defer s.linMu.Unlock()
	return s.ghostFindings
}

// Verified reports whether lineage labels include verification (Verify
// has run and its report fed the lineage graph); before that, base labels
// come from writer names only.
func (s *Session) Verified() bool {
	s.linMu.Lock()
	defer s.linMu.Unlock()
	return s.resolved
}

// unverifiedEntries lists the entries whose record failed verification.
func unverifiedEntries(rep *verify.Report) map[string]string {
	out := map[string]string{}
	for id := range rep.EntryStatus {
		if why := VerificationFailure(rep, id); why != "" {
			out[id] = why
		}
	}
	for id := range rep.InclusionFailures {
		if why := VerificationFailure(rep, id); why != "" {
			out[id] = why
		}
	}
	return out
}

// GateAudit recomputes the gate verdict of every recorded action.
func (s *Session) GateAudit(labels []lineage.Trust) ([]lineage.GateResult, error) {
	return s.Lineage.AuditGate(s.lineageActions(), labels, s.Opts.GatePolicy)
}

// LineageSummary recomputes labels at tau and reports laundering and the
// gate audit.
func (s *Session) LineageSummary(tau float64, failClosed bool) (*LineageSummary, error) {
	labels, err := s.Labels(tau, failClosed)
	if err != nil {
		return nil, err
	}
	sum := &LineageSummary{Tau: tau, FailClosed: failClosed, Verified: s.Verified(), Entries: len(labels), Counts: map[string]int{},
		Laundering: []LaunderingRow{}, RefusedActions: []RefusedAction{}, Gate: []GateRow{}, labels: labels}
	for t := lineage.Trusted; t <= lineage.External; t++ {
		sum.Counts[t.String()] = 0
	}
	for _, l := range labels {
		sum.Counts[l.String()]++
	}
	if !sum.Verified {
		return s.structureOnly(sum, labels, notCheckedReason)
	}
	if logProvesNoEntry(s.Report(), s.Lineage) {
		return s.structureOnly(sum, labels, noEntryProvedReason)
	}
	sum.Verdicts = "checked"
	for _, l := range s.Lineage.Laundering(labels) {
		sum.Laundering = append(sum.Laundering, LaunderingRow{Entry: l.Entry, Recorded: l.Recorded.String(), Recomputed: l.Recomputed.String()})
	}
	gate, err := s.GateAudit(labels)
	if err != nil {
		return nil, err
	}
	for _, g := range gate {
		sum.Gate = append(sum.Gate, GateRow{Action: g.Action, Tool: g.Tool, Sensitive: g.Sensitive, Verdict: g.Verdict.String(),
			Dispatched: g.Dispatched, ShouldHaveRefused: g.ShouldHaveRefused, Reason: g.Reason, Coverage: s.Coverage(verify.TableActions, g.Action)})
		if !g.ShouldHaveRefused {
			continue
		}
		ra := RefusedAction{Action: g.Action, Tool: g.Tool, Verdict: g.Verdict.String(), Reasons: []string{g.Reason}, Coverage: s.Coverage(verify.TableActions, g.Action)}
		for _, e := range g.Entries {
			switch {
			case !e.Known:
				ra.Reasons = append(ra.Reasons, fmt.Sprintf("justifying entry %s is not in the store", e.ID))
			case e.Recomputed.IsUntrusted():
				ra.Reasons = append(ra.Reasons, fmt.Sprintf("justifying entry %s is %s (recorded %s)", e.ID, e.Recomputed, e.Recorded))
			}
		}
		sum.RefusedActions = append(sum.RefusedActions, ra)
	}
	sum.Findings = append(append([]finding.Finding{}, s.Lineage.Findings()...), s.tombstoneClaims()...)
	sum.Findings = append(sum.Findings, s.LineageCollisions()...)
	sum.Findings = append(sum.Findings, lineage.LaunderingFindings(s.Lineage.Laundering(labels), tau)...)
	return sum, nil
}

// structureOnly finishes an unverified summary: labels from writer names
// may be forged, so the gate rows keep the action, tool and sensitivity
// and say NotChecked where the verdict would be, and no laundering or
// refusal is claimed either way.
func (s *Session) structureOnly(sum *LineageSummary, labels []lineage.Trust, why string) (*LineageSummary, error) {
	sum.Verdicts, sum.VerdictsWhy = NotChecked, why
	gate, err := s.GateAudit(labels)
	if err != nil {
		return nil, err
	}
	for _, g := range gate {
		sum.Gate = append(sum.Gate, GateRow{Action: g.Action, Tool: g.Tool, Sensitive: g.Sensitive, Verdict: NotChecked,
			Dispatched: g.Dispatched, Reason: why, Coverage: s.Coverage(verify.TableActions, g.Action)})
	}
	sum.Findings = append(append([]finding.Finding{}, s.Lineage.Findings()...), s.tombstoneClaims()...)
	sum.Findings = append(sum.Findings, s.LineageCollisions()...)
	return sum, nil
}

// noEntryProvedReason: a log whose tiles fail inclusion for every entry
// (a corrupted tile under the checkpoint) proves nothing about any record.
// Every entry is then External by the rule, and a gate that denies
// everything is an artefact of that rule, not a finding about the agent:
// nothing in such a log can be labelled, so no verdict is drawn.
const noEntryProvedReason = "not checked: the log proves no entry's inclusion, so nothing in it can be labelled"

// logProvesNoEntry says whether the log was read and not one entry of the
// graph passed inclusion (undecodable entries, never checked, aside).
func logProvesNoEntry(rep *verify.Report, g *lineage.Graph) bool {
	if rep == nil || !rep.LogChecked || g.Len() == 0 {
		return false
	}
	checked := 0
	for i := 0; i < g.Len(); i++ {
		switch rep.Entry(g.ID(i)).Inclusion {
		case verify.Passed:
			return false
		case verify.Failed:
			checked++
		}
	}
	return checked > 0
}

// SweepChains finds the sleeper chains of the store: an External root with
// no parents, followed down while each entry has exactly one child whose
// only parent it is. The schedule is read off the weights: all 1.0 is
// Coarse, 0.9 * 0.7^(k-1) is the judge schedule, anything else "recorded".
func (s *Session) SweepChains() ([]lineage.Chain, error) {
	if err := s.needLoaded(); err != nil {
		return nil, err
	}
	g := s.Lineage
	var chains []lineage.Chain
	for i := 0; i < g.Len(); i++ {
		if g.Writer(i) != lineage.WriterExternal || len(g.Parents(i)) != 0 {
			continue
		}
		ch := lineage.Chain{Entries: []lineage.Entry{s.lineageEntry(i)}}
		var weights []float64
		cur := i
		for {
			kids := g.Children(cur)
			if len(kids) != 1 || len(g.Parents(kids[0].Node)) != 1 {
				break
			}
			next := kids[0].Node
			weights = append(weights, kids[0].Weight)
			ch.Entries = append(ch.Entries, s.lineageEntry(next))
			cur = next
		}
		if len(weights) == 0 {
			continue
		}
		ch.Schedule = scheduleOf(weights)
		chains = append(chains, ch)
	}
	sort.SliceStable(chains, func(a, b int) bool {
		if chains[a].Schedule != chains[b].Schedule {
			return chains[a].Schedule < chains[b].Schedule
		}
		return len(chains[a].Entries) < len(chains[b].Entries)
	})
	return chains, nil
}

func scheduleOf(w []float64) lineage.Schedule {
	coarse, judge := true, true
	for k, x := range w {
		if x != 1 {
			coarse = false
		}
		if w, _ := lineage.ScheduleJudge.Weight(k + 1); math.Abs(x-w) > 1e-12 {
			judge = false
		}
	}
	switch {
	case coarse:
		return lineage.ScheduleCoarse
	case judge:
		return lineage.ScheduleJudge
	}
	return lineage.Schedule("recorded")
}

// lineageEntry rebuilds the lineage view of entry i from the graph.
func (s *Session) lineageEntry(i int) lineage.Entry {
	g := s.Lineage
	e := lineage.Entry{ID: g.ID(i), Writer: s.EntryAt(s.RowOf(i)).Writer, Recorded: g.Recorded(i)}
	for _, p := range g.Parents(i) {
		e.Parents = append(e.Parents, g.ID(p.Node))
		e.Weights = append(e.Weights, p.Weight)
	}
	// Parents outside the store still count (tombstoned or missing).
	ids, ws := g.MissingParents(i)
	e.Parents, e.Weights = append(e.Parents, ids...), append(e.Weights, ws...)
	return e
}

// SweepRow is one cell of the tau x K table, as printed and as JSON.
type SweepRow struct {
	Schedule   string  `json:"schedule"`
	Tau        float64 `json:"tau"`
	K          int     `json:"k"`
	Propagated bool    `json:"propagated"`
	Tip        string  `json:"tip"`
}

// Sweep runs the tau x K sweep over the store's sleeper chains. A store
// with none sweeps nothing: two empty lists and no error.
func (s *Session) Sweep() ([]SweepRow, []lineage.SweepRow, error) {
	chains, err := s.SweepChains()
	if err != nil {
		return nil, nil, err
	}
	if len(chains) == 0 {
		return []SweepRow{}, nil, nil
	}
	rows, err := lineage.Sweep(chains, lineage.SweepTaus)
	if err != nil {
		return nil, nil, err
	}
	out := make([]SweepRow, len(rows))
	for i, r := range rows {
		out[i] = SweepRow{Schedule: string(r.Schedule), Tau: r.Tau, K: r.K, Propagated: r.Propagated, Tip: r.Tip}
	}
	return out, rows, nil
}
