package lineage

import (
	"fmt"
	"sort"
	"strings"
)

// JustifyingEntry is one entry of an action's justification with its labels.
type JustifyingEntry struct {
	ID         string `json:"id"`
	Known      bool   `json:"known"` // false: the id is not in the store
	Recorded   Trust  `json:"recorded"`
	Recomputed Trust  `json:"recomputed"`
}

// GateResult is the recomputed gate decision for one action.
type GateResult struct {
	Action    string  `json:"action"`
	Tool      string  `json:"tool"`
	Sensitive bool    `json:"sensitive"`
	Verdict   Verdict `json:"verdict"`
	// Entries is the justification with recomputed labels, in action order.
	Entries []JustifyingEntry `json:"entries"`
	// Governed lists the policy's governed parameters present in the action.
	Governed []string `json:"governed"`
	// Dispatched copies Action.Dispatched; ShouldHaveRefused is
	// Dispatched && Verdict != Allow.
	Dispatched        bool   `json:"dispatched"`
	ShouldHaveRefused bool   `json:"should_have_refused"`
	Reason            string `json:"reason"`
}

// AuditGate recomputes the gate verdict of every action from the justifying
// entries' recomputed labels (from Propagate on this graph).
//
// A non-sensitive tool is allowed. A sensitive tool whose justification has
// no untrusted entry (recomputed >= 2) is allowed. Otherwise the tool's
// policy verdict applies, with two fail-closed corrections: Strip-and-Retry
// and Repair-and-Retry need at least one trusted justifying entry to retry
// from (or repair with), and become Deny without one. A justifying id
// missing from the store counts as External: the gate cannot vouch for it.
func (g *Graph) AuditGate(actions []Action, labels []Trust, p *Policy) ([]GateResult, error) {
	if len(labels) != g.Len() {
		return nil, fmt.Errorf("lineage: gate audit: %d labels for %d entries", len(labels), g.Len())
	}
	if p == nil {
		p = DefaultPolicy()
	}
	out := make([]GateResult, 0, len(actions))
	for _, a := range actions {
		r := GateResult{Action: a.ID, Tool: a.Tool, Dispatched: a.Dispatched}
		var untrusted []string
		trusted := 0
		for _, id := range a.Justification {
			je := JustifyingEntry{ID: id, Recomputed: External}
			if i, ok := g.node(id); ok {
				je.Known, je.Recorded, je.Recomputed = true, g.recorded[i], labels[i]
			}
			r.Entries = append(r.Entries, je)
			if je.Recomputed.IsUntrusted() {
				desc := fmt.Sprintf("%s (%s)", id, je.Recomputed)
				i, _ := g.node(id)
				if !je.Known {
					desc = fmt.Sprintf("%s (not in store, treated as External)", id)
				} else if why := g.unverified[i]; why != "" {
					desc = fmt.Sprintf("%s (External: failed verification: %s)", id, why)
				} else if je.Recorded < je.Recomputed {
					desc = fmt.Sprintf("%s (%s, recorded %s)", id, je.Recomputed, je.Recorded)
				}
				untrusted = append(untrusted, desc)
			} else {
				trusted++
			}
		}
		rule, sensitive := p.Rule(a.Tool)
		r.Sensitive = sensitive
		for _, name := range rule.Governed {
			if _, ok := a.Params[name]; ok {
				r.Governed = append(r.Governed, name)
			}
		}
		sort.Strings(r.Governed)
		switch {
		case !sensitive:
			r.Verdict = Allow
			r.Reason = fmt.Sprintf("tool %s is not sensitive under the policy", a.Tool)
		case len(untrusted) == 0:
			r.Verdict = Allow
			r.Reason = fmt.Sprintf("sensitive tool %s justified only by trusted entries", a.Tool)
		default:
			r.Verdict = rule.Verdict
			var b strings.Builder
			fmt.Fprintf(&b, "sensitive tool %s justified by untrusted %s", a.Tool, strings.Join(untrusted, ", "))
			if (r.Verdict == StripAndRetry || r.Verdict == RepairAndRetry) && trusted == 0 {
				fmt.Fprintf(&b, "; policy says %s but no trusted entry remains, so deny", r.Verdict)
				r.Verdict = Deny
			}
			if len(r.Governed) > 0 {
				fmt.Fprintf(&b, "; governed parameters: %s", strings.Join(r.Governed, ", "))
			}
			r.Reason = b.String()
		}
		r.ShouldHaveRefused = a.Dispatched && r.Verdict != Allow
		out = append(out, r)
	}
	return out, nil
}

// Violations keeps the results for actions that were dispatched although the
// gate, recomputed, would have refused them.
func Violations(results []GateResult) []GateResult {
	var out []GateResult
	for _, r := range results {
		if r.ShouldHaveRefused {
			out = append(out, r)
		}
	}
	return out
}
