package defences

import (
	"strings"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/replay"
)

func labelsOf(m map[string]record.Trust) func(string) EntryLabel {
	return func(id string) EntryLabel {
		t, ok := m[id]
		if !ok {
			return EntryLabel{Trust: record.External}
		}
		return EntryLabel{Known: true, Authenticated: t != record.External, Trust: t, Tag: "valid"}
	}
}

// Paper 001, Table 10: coarse context taint denies all four mixed-context
// transfers; parameter-level authority allows the trusted bill next to an
// untrusted note, repairs injected recipient and amount from the trusted
// bill, and denies when only external evidence exists.
func TestM6ReproducesTable10(t *testing.T) {
	labels := labelsOf(map[string]record.Trust{"bill": record.Trusted, "note": record.External, "inj": record.External, "ext": record.External})
	pol := &lineage.Policy{Tools: map[string]lineage.ToolRule{"send_money": {Verdict: lineage.RepairAndRetry, Governed: []string{"recipient", "amount"}}}}
	params := map[string]string{"recipient": "r", "amount": "1"}
	from := func(f []string, alt ...string) Sources { return Sources{From: f, Alt: alt} }
	rows := []struct {
		name         string
		just         []string
		src          map[string]Sources
		taint, param string
	}{
		{"trusted bill + note", []string{"bill", "note"}, map[string]Sources{"recipient": from([]string{"bill"}), "amount": from([]string{"bill"})}, Deny, Allow},
		{"injected recipient", []string{"bill", "inj"}, map[string]Sources{"recipient": from([]string{"inj"}, "bill"), "amount": from([]string{"bill"})}, Deny, RepairAndRetry},
		{"injected amount + recip.", []string{"bill", "inj"}, map[string]Sources{"recipient": from([]string{"inj"}, "bill"), "amount": from([]string{"inj"}, "bill")}, Deny, RepairAndRetry},
		{"external evidence only", []string{"ext"}, map[string]Sources{"recipient": from([]string{"ext"}), "amount": from([]string{"ext"})}, Deny, Deny},
	}
	for _, r := range rows {
		a := Action{ID: r.name, Tool: "send_money", Params: params, Justification: r.just, Sources: r.src}
		got := Evaluate(Input{Actions: []Action{a}, Labels: labels, Policy: pol})[0].Verdicts[MemLineage]
		if got.Decision != r.param {
			t.Errorf("%s: parameter-level %s (%s), want %s", r.name, got.Decision, got.Reason, r.param)
		}
		// Coarse taint: the same action without parameter sources, under a
		// gate that denies any untrusted justification.
		a.Sources = nil
		coarse := &lineage.Policy{Tools: map[string]lineage.ToolRule{"send_money": {Verdict: lineage.Deny, Governed: []string{"recipient", "amount"}}}}
		if got := Evaluate(Input{Actions: []Action{a}, Labels: labels, Policy: coarse})[0].Verdicts[MemLineage]; got.Decision != r.taint {
			t.Errorf("%s: coarse taint %s, want %s", r.name, got.Decision, r.taint)
		}
	}
}

func TestStripAndRetryNeedsTrustedValues(t *testing.T) {
	labels := labelsOf(map[string]record.Trust{"bill": record.Trusted, "inj": record.External})
	pol := &lineage.Policy{Tools: map[string]lineage.ToolRule{"send_money": {Verdict: lineage.StripAndRetry, Governed: []string{"recipient"}}}}
	a := Action{ID: "a", Tool: "send_money", Params: map[string]string{"recipient": "r"}, Justification: []string{"bill", "inj"},
		Sources: map[string]Sources{"recipient": {From: []string{"inj"}, Alt: []string{"bill"}}}}
	if got := Evaluate(Input{Actions: []Action{a}, Labels: labels, Policy: pol})[0].Verdicts[MemLineage]; got.Decision != StripAndRetry {
		t.Errorf("strip with a trusted value left: %+v", got)
	}
	a.Sources["recipient"] = Sources{From: []string{"inj"}}
	if got := Evaluate(Input{Actions: []Action{a}, Labels: labels, Policy: pol})[0].Verdicts[MemLineage]; got.Decision != Deny {
		t.Errorf("strip with nothing trusted left: %+v, want deny", got)
	}
}

func sel(ids ...string) replay.Selection {
	var s replay.Selection
	for i, id := range ids {
		s.Items = append(s.Items, replay.Item{NodeID: id, Rank: i, Authenticated: id != "pu"})
	}
	return s
}

// AuthSelect accepts a justification still selected on G_auth, substitutes
// the item unauthenticated structure pushed out, and escalates when that
// item lacks the action's authority; IFC passes all of them, and the
// substituted one is the headline.
func TestAuthSelectDecisions(t *testing.T) {
	labels := labelsOf(map[string]record.Trust{"e0": record.Trusted, "e1": record.Trusted, "e3": record.Trusted, "eu": record.Trusted})
	entryOf := map[string]string{"p0": "e0", "p1": "e1", "p3": "e3", "pu": "eu"}
	diverge := &QueryView{Row: replay.Row{QueryID: "q", K: 2, G: sel("p3", "p1"), GAuth: sel("p0", "p1"), Class: diff.Diverge}, EntryOf: entryOf, Pool: 4}
	towardsU := &QueryView{Row: replay.Row{QueryID: "u", K: 2, G: sel("p3", "p1"), GAuth: sel("pu", "p1"), Class: diff.Diverge}, EntryOf: entryOf, Pool: 4}
	in := Input{Labels: labels, Queries: map[string]*QueryView{"q": diverge, "u": towardsU}, HMACChecked: true,
		Actions: []Action{
			{ID: "follows-p3", Tool: "transfer_funds", Justification: []string{"e3"}, Query: "q", Dispatched: true},
			{ID: "follows-p1", Tool: "transfer_funds", Justification: []string{"e1"}, Query: "q", Dispatched: true},
			{ID: "needs-A", Tool: "transfer_funds", Justification: []string{"e3"}, Query: "u", Dispatched: true},
			{ID: "no-query", Tool: "transfer_funds", Justification: []string{"e3"}},
		}}
	rows := Evaluate(in)
	want := []struct {
		as       string
		headline bool
	}{{Substitute, true}, {Accept, false}, {Escalate, true}, {NotChecked, false}}
	for i, w := range want {
		r := rows[i]
		if r.Verdicts[AuthSelect].Decision != w.as || r.Headline != w.headline || r.Verdicts[IFC].Decision != Allow {
			t.Errorf("%s: authselect %+v, ifc %s, headline %v; want %s, allow, %v", r.Action, r.Verdicts[AuthSelect], r.Verdicts[IFC].Decision, r.Headline, w.as, w.headline)
		}
	}
	if !strings.Contains(rows[0].Verdicts[AuthSelect].Reason, "substitute p0") {
		t.Errorf("substitute names %q", rows[0].Verdicts[AuthSelect].Reason)
	}
	// SMSR: tags valid; certificate m=4 k=2 t=0.
	if v := rows[0].Verdicts[SMSR]; v.Decision != Allow || !strings.Contains(v.Reason, "m=4 k=2 n=5 t=0") {
		t.Errorf("smsr %+v", v)
	}
}

func TestIFCAndSMSRRefuseBadEntries(t *testing.T) {
	labels := func(id string) EntryLabel {
		switch id {
		case "good":
			return EntryLabel{Known: true, Authenticated: true, Trust: record.Trusted, Tag: "valid"}
		case "forged":
			return EntryLabel{Known: true, Trust: record.External, Why: "failed verification: SIG_INVALID", Tag: "wrong"}
		}
		return EntryLabel{Trust: record.External}
	}
	a := Action{ID: "a", Tool: "web_search", Justification: []string{"good", "forged"}}
	r := Evaluate(Input{Actions: []Action{a}, Labels: labels, HMACChecked: true})[0]
	if v := r.Verdicts[IFC]; v.Decision != Deny || !strings.Contains(v.Reason, "SIG_INVALID") {
		t.Errorf("ifc %+v", v)
	}
	if v := r.Verdicts[SMSR]; v.Decision != Deny || !strings.Contains(v.Reason, "forged (tag wrong)") {
		t.Errorf("smsr %+v", v)
	}
	if v := Evaluate(Input{Actions: []Action{a}, Labels: labels})[0].Verdicts[SMSR]; v.Decision != NotChecked {
		t.Errorf("smsr without a key: %+v, want not checked", v)
	}
}

// A log that proves no entry leaves nothing labelled: the defences that
// read labels draw no verdict, where the External labels alone would deny.
func TestUnlabelledDrawsNoLabelVerdict(t *testing.T) {
	labels := labelsOf(map[string]record.Trust{})
	a := Action{ID: "pay", Tool: "transfer_funds", Params: map[string]string{"amount": "1"}, Justification: []string{"e1"}, Dispatched: true}
	if got := Evaluate(Input{Actions: []Action{a}, Labels: labels})[0].Verdicts[IFC]; got.Decision != Deny {
		t.Fatalf("labelled: IFC %s, want deny (the premise)", got.Decision)
	}
	row := Evaluate(Input{Actions: []Action{a}, Labels: labels, Unlabelled: "the log proves nothing"})[0]
	for _, d := range []string{IFC, MemLineage, AuthSelect} {
		if v := row.Verdicts[d]; v.Decision != NotChecked || v.Reason != "the log proves nothing" {
			t.Errorf("%s: %+v", d, v)
		}
	}
	if row.Verdicts[None].Decision != Allow || len(row.RefusedBy()) != 0 {
		t.Errorf("none %+v, refused by %v", row.Verdicts[None], row.RefusedBy())
	}
}

// The substitute is the answer read off the G_auth selection, its rank 1
// (AuthSelect, arXiv:2606.12290, Algorithm 1 line 9; Figure 4: Bruce
// Chatwin, G_auth rank 1), not the first G_auth item G lacks (here p1).
func TestAuthSelectSubstituteIsGAuthRankOne(t *testing.T) {
	labels := labelsOf(map[string]record.Trust{"e0": record.Trusted, "e1": record.Trusted, "e3": record.Trusted})
	entryOf := map[string]string{"p0": "e0", "p1": "e1", "p3": "e3"}
	q := &QueryView{Row: replay.Row{QueryID: "q", K: 2, G: sel("p3", "p0"), GAuth: sel("p0", "p1"), Class: diff.Diverge}, EntryOf: entryOf, Pool: 3}
	in := Input{Labels: labels, Queries: map[string]*QueryView{"q": q}, Actions: []Action{{ID: "pay", Tool: "transfer_funds", Justification: []string{"e3"}, Query: "q", Dispatched: true}}}
	v := Evaluate(in)[0].Verdicts[AuthSelect]
	if v.Decision != Substitute || !strings.Contains(v.Reason, "substitute p0 (rank 1 on G_auth") {
		t.Errorf("authselect %+v, want substitute p0 (G_auth rank 1)", v)
	}
}
