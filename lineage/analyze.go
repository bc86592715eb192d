package lineage

import (
	"fmt"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/present/finding"
)

// Report is everything the lineage analysis says about a store at one tau.
type Report struct {
	Options    Options      `json:"options"`
	Labels     []Trust      `json:"labels"` // recomputed, indexed by node (see Graph.Index)
	Laundering []Laundering `json:"laundering"`
	Gate       []GateResult `json:"gate"`
	Violations []GateResult `json:"violations"` // dispatched actions the gate would have refused
	// Findings are Build's structural findings followed by laundering and
	// gate-violation findings.
	Findings []finding.Finding `json:"findings"`
}

// CodeGateViolation marks a dispatched action the recomputed gate refuses.
const CodeGateViolation = finding.LineageGateViolation

// Analyze runs propagation, laundering and the gate audit on g. A nil policy
// uses DefaultPolicy.
func Analyze(g *Graph, actions []Action, opt Options, p *Policy) (*Report, error) {
	labels, err := g.Propagate(opt)
	if err != nil {
		return nil, err
	}
	r := &Report{Options: opt, Labels: labels}
	r.Laundering = g.Laundering(labels)
	if r.Gate, err = g.AuditGate(actions, labels, p); err != nil {
		return nil, err
	}
	r.Violations = Violations(r.Gate)
	r.Findings = append(r.Findings, g.Findings()...)
	r.Findings = append(r.Findings, LaunderingFindings(r.Laundering, opt.Tau)...)
	for _, v := range r.Violations {
		ids := []string{v.Action}
		for _, e := range v.Entries {
			if e.Recomputed.IsUntrusted() {
				ids = append(ids, e.ID)
			}
		}
		r.Findings = append(r.Findings, newFinding(CodeGateViolation, finding.SevError, ids,
			fmt.Sprintf("action %s was dispatched but the gate gives %s at tau %g: %s", v.Action, v.Verdict, opt.Tau, v.Reason)))
	}
	return r, nil
}

// LoadPolicy reads and parses a policy file; errors name the file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := evidence.ReadFile(path, MaxPolicyBytes)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
