package assemble

import (
	"fmt"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/replay"
)

// LineageFindings turns a lineage summary into findings: DAG problems,
// laundering, and dispatched actions the gate would have refused.
func LineageFindings(sum *LineageSummary) []finding.Finding {
	out := append([]finding.Finding(nil), sum.Findings...)
	for _, r := range sum.RefusedActions {
		out = append(out, finding.New(finding.LineageGateViolation, "action "+r.Action,
			fmt.Sprintf("%s was dispatched but the gate gives %s: %s", r.Tool, r.Verdict, strings.Join(r.Reasons, "; "))))
	}
	return out
}

// ReplayFindings turns replay rows into findings: divergent selections,
// IFC-blind rows and recorded selections that the replay does not match.
func ReplayFindings(rows []replay.Row) []finding.Finding {
	var out []finding.Finding
	for _, r := range rows {
		subject := "query " + r.QueryID
		if r.Err != nil {
			out = append(out, finding.New(finding.ReplayFailed, subject, "this query could not be replayed: "+r.Err.Error()))
			continue
		}
		if r.Class == diff.Diverge {
			code := finding.ReplayDiverge
			msg := fmt.Sprintf("top-%d on G and on G_auth select different passages", r.K)
			if r.IFCBlind {
				code = finding.ReplayIFCBlind
				msg += "; every passage selected on G is authenticated, so provenance checks pass this row"
			}
			if r.Culprits != nil && len(r.Culprits.Set) > 0 {
				ids := make([]string, len(r.Culprits.Set))
				for i, c := range r.Culprits.Set {
					ids[i] = c.EdgeID
				}
				msg += "; culprit writes: " + strings.Join(ids, ", ")
			}
			out = append(out, finding.New(code, subject, msg))
		}
		if r.Recorded != nil && r.Recorded.Mismatch {
			out = append(out, finding.New(finding.ReplayRecordedMismatch, subject,
				"the selection the agent recorded differs from the replay on G: the store changed since, or the replay is not faithful"))
		}
	}
	return out
}
