package report

import (
	"fmt"
	"strings"
)

// composeVerdict writes the verdict paragraph from the collected facts.
// The words are chosen here; every fact comes from the sections.
func composeVerdict(c *Case) Verdict {
	v := Verdict{}
	pinned := true
	var unanchored []string
	for _, a := range c.Evidence.Anchors[:2] {
		if a.Status != "pinned" {
			pinned = false
			unanchored = append(unanchored, a.Name)
		}
	}
	in, rp, ac, ln := c.Integrity, c.Replay, c.Actions, c.Lineage
	compromise := in.Errors > 0 || rp.Diverge > 0 || ac.Refused > 0 || ln.LaunderingTotal > 0
	switch {
	case compromise:
		v.Level = LevelCompromise
	case !pinned:
		v.Level = LevelNotChecked
	default:
		v.Level = LevelNoFinding
	}
	v.Headline = verdictHeadline(c, pinned)
	vp := &verdictParagraph{v: &v}
	vp.replay(rp)
	vp.actions(ac)
	vp.lineageAndIntegrity(c, pinned, unanchored)
	verdictCertaintyAndTodo(&v, c, pinned, unanchored)
	v.KeyFacts = []Fact{
		{Label: "Integrity errors", Value: fmt.Sprintf("%d", in.Errors), Alert: in.Errors > 0},
		{Label: "Diverging queries", Value: fmt.Sprintf("%d of %d", rp.Diverge, rp.Queries), Alert: rp.Diverge > 0},
		{Label: "IFC-blind", Value: fmt.Sprintf("%d", rp.IFCBlind), Alert: rp.IFCBlind > 0},
		{Label: "Dispatched, a defence refuses", Value: fmt.Sprintf("%d of %d", ac.Refused, ac.Dispatched), Alert: ac.Refused > 0},
		{Label: "Anchors", Value: anchorsFact(pinned, unanchored), Alert: !pinned},
	}
	return v
}

// verdictHeadline says what was found, most consequential first: a changed
// selection or a refused action is what the agent did; integrity errors
// are what was done to the evidence.
func verdictHeadline(c *Case, pinned bool) string {
	in, rp, ac, ln := c.Integrity, c.Replay, c.Actions, c.Lineage
	var heads []string
	if rp.Diverge > 0 {
		heads = append(heads, "unauthenticated graph structure changed what the agent selected")
	}
	if ac.Refused > 0 {
		heads = append(heads, fmt.Sprintf("%s dispatched although a defence refuses %s", plural(ac.Refused, "action was", "actions were"), pick(ac.Refused, "it", "them")))
	}
	if ln.LaunderingTotal > 0 {
		heads = append(heads, fmt.Sprintf("%s laundered", plural(ln.LaunderingTotal, "memory was", "memories were")))
	}
	if in.Errors > 0 {
		heads = append(heads, fmt.Sprintf("the evidence fails %s", plural(in.Errors, "integrity check", "integrity checks")))
	}
	switch {
	case len(heads) > 0:
		return capitalise(joinAnd(heads)) + "."
	case pinned:
		return "No finding: the checks memscope ran found nothing wrong."
	default:
		return "No finding, but not checked: the trust anchors came from the evidence itself."
	}
}

// verdictParagraph builds the verdict's paragraph span by span.
type verdictParagraph struct{ v *Verdict }

func (vp *verdictParagraph) say(format string, a ...any) {
	vp.v.Paragraph = append(vp.v.Paragraph, Span{Plain: fmt.Sprintf(format, a...)})
}

// quote quotes an evidence value, capped: a long (or hostile) value must
// not push the verdict off the first screen; sections 5 and 6 quote in
// full.
func (vp *verdictParagraph) quote(t Text) {
	q := Text(cutRunes(string(t), maxQuote))
	vp.v.Paragraph = append(vp.v.Paragraph, Span{Quote: &q})
}

// replay says what the selection replay found: the first diverging query
// and its culprits, or that every query selects the same passages.
func (vp *verdictParagraph) replay(rp ReplaySection) {
	if rp.Diverge > 0 && len(rp.Details) > 0 {
		d := rp.Details[0]
		vp.say("For the query ")
		vp.quote(d.Text)
		vp.say(" (%s), the agent's graph selection over the full memory graph G gives a different top-%d than over the authenticated graph G_auth", string(d.ID), d.K)
		if news := newOn(d.G); len(news) > 0 {
			vp.say(": %s only because of unauthenticated structure", plural(len(news), "passage was selected", "passages were selected"))
		}
		vp.say(". ")
		if d.IFCBlind {
			vp.say("Every passage it selected is itself authenticated, so a check of retrieved records' provenance passes this query (IFC-blind); only replaying the selection shows it. ")
		}
		if len(d.Culprits) > 0 {
			writers := culpritWriters(d.Culprits)
			vp.say("Removing %s restores the authenticated selection", plural(len(d.Culprits), "structural write", "structural writes"))
			if len(writers) > 0 {
				vp.say(" (written by ")
				for i, w := range writers {
					if i > 0 {
						vp.say(", ")
					}
					vp.quote(w)
				}
				vp.say(")")
			}
			vp.say(". ")
		}
		if rp.Diverge > 1 {
			vp.say("In all, %d of %d stored queries diverge (%d IFC-blind). ", rp.Diverge, rp.Queries, rp.IFCBlind)
		}
	} else if rp.Available {
		vp.say("Replaying the %d stored queries on G and on G_auth selects the same passages for each (%d in a different order). ", rp.Queries, rp.Reorder)
	}
}

// actions names the first dispatched actions a defence refuses.
func (vp *verdictParagraph) actions(ac ActionsSection) {
	if ac.Refused > 0 {
		vp.say("%s dispatched although a defence would have refused %s: ", plural(ac.Refused, "action was", "actions were"), pick(ac.Refused, "it", "them"))
		n := 0
		for _, r := range ac.Rows {
			if !r.Alert || n >= 3 {
				continue
			}
			if n > 0 {
				vp.say("; ")
			}
			vp.quote(r.ID)
			vp.say(" (")
			vp.quote(r.Tool)
			vp.say(", refused by %s)", joinAnd(r.RefusedBy))
			n++
		}
		if ac.Refused > n {
			vp.say(" and %d more", ac.Refused-n)
		}
		vp.say(". ")
		if ac.Headlines > 0 {
			vp.say("%s IFC-blind: checking the provenance of %s justification passes, and only re-selecting on G_auth (AuthSelect) refuses %s. ",
				plural(ac.Headlines, "action is", "actions are"), pick(ac.Headlines, "its", "their"), pick(ac.Headlines, "it", "them"))
		}
	}
}

// lineageAndIntegrity says what lineage found and how the evidence's own
// integrity checks came out.
func (vp *verdictParagraph) lineageAndIntegrity(c *Case, pinned bool, unanchored []string) {
	in, ln := c.Integrity, c.Lineage
	if ln.LaunderingTotal > 0 {
		vp.say("%s recorded as more trusted than %s lineage allows. ", plural(ln.LaunderingTotal, "memory is", "memories are"), pick(ln.LaunderingTotal, "its", "their"))
	}
	switch {
	case in.Errors > 0:
		vp.say("The evidence itself fails %s in %s", plural(in.Errors, "integrity check", "integrity checks"), plural(countErrorGroups(in), "root cause", "root causes"))
		if g := firstErrorGroup(in); g != nil {
			vp.say("; the first: ")
			vp.quote(g.Headline)
		} else {
			vp.say(".")
		}
		vp.say(" ")
	case pinned:
		vp.say("Every signature, registration, log inclusion and checkpoint memscope checked holds against the anchors the investigator supplied. ")
	default:
		vp.say("No integrity check failed, but the %s came from the evidence itself (unanchored), so those checks are not checked against anything outside it. ", strings.Join(unanchored, " and "))
	}

}

// verdictCertaintyAndTodo says how far the verdict can be relied on and
// what the investigator should do next.
func verdictCertaintyAndTodo(v *Verdict, c *Case, pinned bool, unanchored []string) {
	in, rp, ac, ln := c.Integrity, c.Replay, c.Actions, c.Lineage
	if pinned {
		v.Certainty = "Signatures, log inclusion and checkpoints are checked against trust anchors supplied from outside the evidence. The selection replay recomputes Personalized PageRank exactly from the stored reset vectors; culprit sets are 1-minimal (removing them restores G_auth), not proven smallest."
	} else {
		v.Certainty = "Not checked: the " + strings.Join(unanchored, " and ") + " came from the evidence itself, so a party able to alter the store could have altered it too. Obtain the anchors from the system's owner and run the report again before relying on integrity results."
	}
	if anyTie(rp) {
		v.Certainty += " At least one diverging query has a near-tie at the top-k cut-off, where node order rather than score decided."
	}

	// Evidence first: whatever else is done, this copy is what the findings
	// rest on.
	switch {
	case in.Errors > 0:
		v.Todo = append(v.Todo, "Preserve this copy unchanged, obtain another copy from the source system, and do not rely on the records named in section 3.")
	case rp.Diverge > 0 || ac.Refused > 0 || ln.LaunderingTotal > 0:
		v.Todo = append(v.Todo, "Preserve this copy unchanged: the SHA-256 values in section 2 tie this report to its files.")
	}
	if rp.Diverge > 0 {
		v.Todo = append(v.Todo, "Remove or quarantine the culprit structural writes listed in section 5, and revoke or rotate the keys of the principals that wrote them.")
	}
	if ac.Refused > 0 {
		v.Todo = append(v.Todo, "Review, and where possible reverse, the dispatched actions marked in section 4; treat the memories behind them (section 6) as untrusted until they are checked.")
	}
	if ln.LaunderingTotal > 0 {
		v.Todo = append(v.Todo, "Relabel the laundered memories listed in section 6 and find how they were recorded as trusted.")
	}
	if !pinned {
		v.Todo = append(v.Todo, "Obtain the log key and registry root from the system's owner and rerun the command in section 2 with them.")
	}
	if len(v.Todo) == 0 {
		v.Todo = append(v.Todo, "No action is needed on this evidence. Keep this report with the evidence: the SHA-256 values in section 2 tie it to the exact files.")
	}

}

// maxQuote is the most characters of one evidence value the verdict quotes.
const maxQuote = 140

func newOn(sel []Selected) []Selected {
	var out []Selected
	for _, s := range sel {
		if s.Change == "new" {
			out = append(out, s)
		}
	}
	return out
}

func culpritWriters(cs []Culprit) []Text {
	seen := map[Text]bool{}
	var out []Text
	for _, c := range cs {
		if c.Writer != "" && !seen[c.Writer] {
			seen[c.Writer] = true
			out = append(out, c.Writer)
		}
	}
	return out
}

func countErrorGroups(in Integrity) int {
	n := 0
	for _, g := range in.Groups {
		if g.Severity == "error" {
			n++
		}
	}
	return n
}

func firstErrorGroup(in Integrity) *Group {
	for i := range in.Groups {
		if in.Groups[i].Severity == "error" {
			return &in.Groups[i]
		}
	}
	return nil
}

func anyTie(rp ReplaySection) bool {
	for _, d := range rp.Details {
		if d.Tie {
			return true
		}
	}
	return false
}

func anchorsFact(pinned bool, unanchored []string) string {
	if pinned {
		return "pinned"
	}
	return strings.Join(unanchored, ", ") + " unanchored"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
