package jsonout

import (
	"github.com/memscope/memscope/internal/analyses/defences"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// ActionRow is one recorded action of `actions --json`, of a `replay
// --query` row's actions and of the report's case file (`actions.rows`):
// the verdict of each defence, keyed none, ifc, memlineage, authselect,
// smsr.
type ActionRow struct {
	Action     string                   `json:"action"`
	Tool       string                   `json:"tool"`
	Query      string                   `json:"query"`
	Dispatched bool                     `json:"dispatched"`
	Headline   bool                     `json:"headline"`
	Verdicts   map[string]ActionVerdict `json:"verdicts"`
	// Coverage is "unsigned" when no signature covers the action row (its
	// tool, parameters, justification, query and dispatch are claims);
	// QueryCoverage says the same of the query row it followed.
	Coverage      string `json:"coverage,omitempty"`
	QueryCoverage string `json:"query_coverage,omitempty"`
}

// ActionVerdict is one defence's decision on an action, and why.
type ActionVerdict struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// NewActionRow is the one constructor of an action row.
func NewActionRow(r defences.Row, cov Coverage) ActionRow {
	out := ActionRow{Action: sanitize.Line(r.Action), Tool: sanitize.Line(r.Tool), Query: sanitize.Line(r.Query), Dispatched: r.Dispatched, Headline: r.Headline,
		Verdicts: map[string]ActionVerdict{}, Coverage: cov.Action(r.Action)}
	if r.Query != "" {
		out.QueryCoverage = cov.Query(r.Query)
	}
	for k, v := range r.Verdicts {
		out.Verdicts[k] = ActionVerdict{Decision: v.Decision, Reason: sanitize.Line(v.Reason)}
	}
	return out
}
