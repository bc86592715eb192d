package inspect

import (
	"fmt"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// Families of the findings the analyses beyond verify add.
const (
	FamLineage verify.Family = "lineage"
	FamReplay  verify.Family = "replay"
)

// LineageFindings turns a lineage summary into findings: DAG problems,
// laundering, and dispatched actions the gate would have refused.
func LineageFindings(sum *LineageSummary) []verify.Finding {
	var out []verify.Finding
	for _, f := range sum.Findings {
		subject := ""
		if len(f.Entries) > 0 {
			subject = f.Entries[0]
		}
		out = append(out, verify.Finding{Severity: lineageSeverity(f.Severity), Code: f.Code, Subject: subject, Message: f.Message, Family: FamLineage})
	}
	for _, r := range sum.RefusedActions {
		out = append(out, verify.Finding{Severity: verify.SevError, Code: "lineage.refused-action", Subject: "action " + r.Action,
			Message: fmt.Sprintf("%s was dispatched but the gate gives %s: %s", r.Tool, r.Verdict, strings.Join(r.Reasons, "; ")), Family: FamLineage})
	}
	return out
}

func lineageSeverity(s lineage.Severity) verify.Severity {
	switch s {
	case lineage.SeverityCritical:
		return verify.SevError
	case lineage.SeverityInfo:
		return verify.SevInfo
	}
	return verify.SevWarning
}

// ReplayFindings turns replay rows into findings: divergent selections,
// IFC-blind rows and recorded selections that the replay does not match.
func ReplayFindings(rows []replay.Row) []verify.Finding {
	var out []verify.Finding
	for _, r := range rows {
		subject := "query " + r.QueryID
		if r.Class == diff.Diverge {
			code, sev := "replay.diverge", verify.SevWarning
			msg := fmt.Sprintf("top-%d on G and on G_auth select different passages", r.K)
			if r.IFCBlind {
				code, sev = "replay.ifc-blind", verify.SevError
				msg += "; every passage selected on G is authenticated, so provenance checks pass this row"
			}
			if r.Culprits != nil && len(r.Culprits.Set) > 0 {
				ids := make([]string, len(r.Culprits.Set))
				for i, c := range r.Culprits.Set {
					ids[i] = c.EdgeID
				}
				msg += "; culprit writes: " + strings.Join(ids, ", ")
			}
			out = append(out, verify.Finding{Severity: sev, Code: code, Subject: subject, Message: msg, Family: FamReplay})
		}
		if r.Recorded != nil && r.Recorded.Mismatch {
			out = append(out, verify.Finding{Severity: verify.SevWarning, Code: "replay.recorded-mismatch", Subject: subject,
				Message: "the selection the agent recorded differs from the replay on G: the store changed since, or the replay is not faithful", Family: FamReplay})
		}
	}
	return out
}
