package lineage

import (
	"strings"
	"testing"
)

func TestAuditGate(t *testing.T) {
	g := Build(graftEntries())
	l := mustPropagate(t, g, Options{Tau: 0})
	pol := &Policy{Tools: map[string]ToolRule{
		"send_email":     {Verdict: Deny, Governed: []string{"to"}},
		"transfer_funds": {Verdict: RepairAndRetry, Governed: []string{"recipient", "amount"}},
		"write_file":     {Verdict: StripAndRetry},
		"execute_shell":  {Verdict: RequireUser},
	}}
	actions := []Action{
		{ID: "a1", Tool: "send_email", Params: map[string]string{"to": "x@y", "body": "hi"}, Justification: []string{"note"}, Dispatched: true},
		{ID: "a2", Tool: "send_email", Justification: []string{"user", "tool"}, Dispatched: true},
		{ID: "a3", Tool: "search", Justification: []string{"web"}, Dispatched: true},
		{ID: "a4", Tool: "transfer_funds", Params: map[string]string{"amount": "5"}, Justification: []string{"sum", "user"}, Dispatched: true},
		{ID: "a5", Tool: "transfer_funds", Justification: []string{"sum"}, Dispatched: false},
		{ID: "a6", Tool: "write_file", Justification: []string{"ghost", "user"}, Dispatched: true},
		{ID: "a7", Tool: "execute_shell", Justification: []string{"web"}, Dispatched: true},
	}
	res, err := g.AuditGate(actions, l, pol)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		v      Verdict
		refuse bool
	}{
		"a1": {Deny, true},           // note is Derived-Untrusted at tau 0
		"a2": {Allow, false},         // Trusted and Derived-Trusted only
		"a3": {Allow, false},         // not a sensitive tool
		"a4": {RepairAndRetry, true}, // trusted user entry can repair
		"a5": {Deny, false},          // repair with nothing trusted: deny; not dispatched
		"a6": {StripAndRetry, true},  // unknown entry counts as External
		"a7": {RequireUser, true},
	}
	for _, r := range res {
		w := want[r.Action]
		if r.Verdict != w.v || r.ShouldHaveRefused != w.refuse {
			t.Errorf("%s: verdict %s refuse %v, want %s %v (%s)", r.Action, r.Verdict, r.ShouldHaveRefused, w.v, w.refuse, r.Reason)
		}
	}
	if !strings.Contains(res[0].Reason, "note (Derived-Untrusted, recorded Trusted)") || strings.Join(res[0].Governed, ",") != "to" {
		t.Errorf("a1 reason %q governed %v", res[0].Reason, res[0].Governed)
	}
	if !strings.Contains(res[5].Reason, "ghost (not in store") || res[5].Entries[0].Known {
		t.Errorf("a6 reason %q", res[5].Reason)
	}
	v := Violations(res)
	if len(v) != 4 {
		t.Errorf("violations %d, want 4", len(v))
	}
	// At tau 0.6 nothing derived is untrusted, so a1 is allowed.
	l = mustPropagate(t, g, Options{Tau: 0.6})
	res, _ = g.AuditGate(actions[:1], l, pol)
	if res[0].Verdict != Allow {
		t.Errorf("tau 0.6 a1: %s", res[0].Verdict)
	}
	if _, err := g.AuditGate(actions, l[:1], pol); err == nil {
		t.Error("short labels accepted")
	}
}

func TestDefaultPolicyDeniesUntrustedSensitive(t *testing.T) {
	g := Build(graftEntries())
	l := mustPropagate(t, g, Options{})
	for tool := range DefaultPolicy().Tools {
		res, err := g.AuditGate([]Action{{ID: "a", Tool: tool, Justification: []string{"sum"}, Dispatched: true}}, l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Verdict == Allow || !res[0].Sensitive {
			t.Errorf("%s allowed on untrusted justification", tool)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	p, err := ParsePolicy([]byte(`{
	  "version": 1,
	  "tools": {
	    "send_email": {"verdict": "deny", "governed": ["to", "body"]},
	    "transfer_funds": {"verdict": "repair-and-retry", "governed": ["recipient"]}
	  },
	  "unknown_tools": {"verdict": "require-user"}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := p.Rule("transfer_funds"); !ok || r.Verdict != RepairAndRetry || r.Governed[0] != "recipient" {
		t.Errorf("transfer_funds rule %+v", r)
	}
	if r, ok := p.Rule("anything"); !ok || r.Verdict != RequireUser {
		t.Errorf("unknown tool rule %+v %v", r, ok)
	}
	p, err = ParsePolicy([]byte(`{"version":1,"tools":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.Rule("send_email"); ok {
		t.Error("empty policy made a tool sensitive")
	}

	bad := map[string]string{
		"":                               "empty",
		`{"tools":{}}`:                   `missing "version"`,
		`{"version":2,"tools":{}}`:       "only 1",
		`{"version":1}`:                  `missing "tools"`,
		`{"version":1,"tools":{},"x":1}`: "unknown field",
		`{"version":1,"tools":{"a":{"verdict":"deny"},"a":{"verdict":"deny"}}}`: `duplicate key "a"`,
		`{"version":1,"tools":{"a":{"verdict":"deny","verdict":"deny"}}}`:       "duplicate key",
		`{"version":1,"tools":{"a":{"verdict":"allow"}}}`:                       "tools.a",
		`{"version":1,"tools":{"a":{"verdict":"maybe"}}}`:                       "unknown verdict",
		`{"version":1,"tools":{"a":{}}}`:                                        `missing "verdict"`,
		`{"version":1,"tools":{"a":{"verdict":"deny","governed":["x","x"]}}}`:   "listed twice",
		`{"version":1,"tools":{"a":{"verdict":"deny","governed":[""]}}}`:        "empty parameter",
		`{"version":1,"tools":{"":{"verdict":"deny"}}}`:                         "empty tool name",
		`{"version":1,"tools":{}} {}`:                                           "trailing data",
		`{"version":1,"tools":{"a":{"verdict":"deny","extra":true}}}`:           "unknown field",
		`{"version":1,"tools":{},"unknown_tools":{"verdict":"allow"}}`:          "unknown_tools",
		"{\"version\":1,\"tools\":{\"\xff\":{}}}":                               "UTF-8",
		`{"version":1,"tools":[]}`:                                              "cannot unmarshal",
	}
	for in, want := range bad {
		_, err := ParsePolicy([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePolicy(%q) error %v, want it to mention %q", in, err, want)
		}
	}
}

func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(`{"version":1,"tools":{"send_email":{"verdict":"deny","governed":["to"]}}}`))
	f.Add([]byte(`{"version":1,"tools":{},"unknown_tools":{"verdict":"strip-and-retry"}}`))
	f.Add([]byte(`{"version":1,"tools":{"a":{"verdict":"deny"},"a":{"verdict":"deny"}}}`))
	f.Add([]byte(`[[[[{"a":[{"b":1}]}]]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy(data)
		if err != nil {
			if p != nil {
				t.Fatal("policy returned with an error")
			}
			return
		}
		for name, r := range p.Tools {
			if name == "" || r.Verdict == Allow || r.Verdict > RepairAndRetry {
				t.Fatalf("accepted bad rule %q %+v", name, r)
			}
		}
		if p.UnknownTools != nil && p.UnknownTools.Verdict == Allow {
			t.Fatal("accepted allow for unknown tools")
		}
	})
}
