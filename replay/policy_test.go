package replay

import (
	"context"
	"slices"
	"testing"
)

func TestPolicies(t *testing.T) {
	yes, no := true, false
	good := Provenance{SignatureValid: true, WriterRegistered: true, Channel: ChannelAuthenticated, Sources: []string{"s"}}
	with := func(f func(*Provenance)) Provenance {
		p := good
		f(&p)
		return p
	}
	cases := []struct {
		policy   string
		prov     Provenance
		auth     bool
		rule     string
		declared bool
		failed   []string
	}{
		{PolicyDefault, good, true, RuleAuthenticated, false, nil},
		{PolicyDefault, with(func(p *Provenance) { p.Sources = nil }), false, RuleNoSource, false, []string{RuleNoSource}},
		{PolicyDefault, with(func(p *Provenance) { p.SignatureValid = false }), false, RuleSignatureInvalid, false, []string{RuleSignatureInvalid}},
		{PolicyDefault, with(func(p *Provenance) { p.WriterRegistered = false }), false, RuleWriterUnregistered, false, []string{RuleWriterUnregistered}},
		{PolicyDefault, with(func(p *Provenance) { p.Channel = ChannelUnauthenticated }), false, RuleChannelUnauthentic, false, []string{RuleChannelUnauthentic}},
		{PolicyDefault, with(func(p *Provenance) { p.Channel = "" }), false, RuleChannelUnknown, false, []string{RuleChannelUnknown}},
		{PolicyDefault, Provenance{}, false, RuleNoSource, false, []string{RuleNoSource, RuleSignatureInvalid, RuleWriterUnregistered, RuleChannelUnknown}},
		// A declaration is trusted by the declared policy only.
		{PolicyDefault, with(func(p *Provenance) { p.SignatureValid = false; p.Declared = &yes }), false, RuleSignatureInvalid, false, []string{RuleSignatureInvalid}},
		{PolicyDeclared, with(func(p *Provenance) { p.SignatureValid = false; p.Declared = &yes }), true, RuleDeclaredByImporter, true, nil},
		{PolicyDeclared, with(func(p *Provenance) { p.Declared = &no }), false, declaredRuleUnauthentic, true, []string{declaredRuleUnauthentic}},
		{PolicyDeclared, with(func(p *Provenance) { p.Sources = nil }), false, RuleNoSource, false, []string{RuleNoSource}},
		// Signature-only lets a signed no-source write through: that is its point.
		{PolicySignatureOnly, with(func(p *Provenance) { p.Sources = nil; p.WriterRegistered = false }), true, RuleSignatureValid, false, nil},
		{PolicySignatureOnly, with(func(p *Provenance) { p.SignatureValid = false }), false, RuleSignatureInvalid, false, []string{RuleSignatureInvalid}},
	}
	for i, c := range cases {
		p, err := PolicyByName(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		l := p.Label(Edge{ID: "e", Prov: c.prov})
		if l.Authenticated != c.auth || l.Rule != c.rule || l.Declared != c.declared || !slices.Equal(l.Failed, c.failed) {
			t.Errorf("case %d (%s): got %+v, want auth=%v rule=%q declared=%v failed=%v", i, c.policy, l, c.auth, c.rule, c.declared, c.failed)
		}
	}
	if _, err := PolicyByName("trust-everything"); err == nil {
		t.Error("unknown policy accepted")
	}
}

// Integrity follows the write: an unauthenticated edge between two
// authenticated nodes is still left out of G_auth, and every vertex stays.
func TestGAuthDropsEdgesNotVertices(t *testing.T) {
	nodes := []Node{{ID: "a", Kind: KindPassage, Authenticated: true}, {ID: "b", Kind: KindPassage, Authenticated: true}}
	edges := []Edge{{ID: "ab", Src: "a", Dst: "b", Weight: 1, Prov: Provenance{SignatureValid: true, WriterRegistered: true, Channel: ChannelAuthenticated}}}
	g, _ := NewGraph(nodes, edges, DropSelfLoops)
	r, err := NewReplayer(g, Config{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.UnauthenticatedEdges(); !slices.Equal(got, []string{"ab"}) {
		t.Fatalf("unauthenticated %v, want [ab]", got)
	}
	row, err := r.Replay(context.Background(), Query{ID: "x", Reset: map[string]float64{"a": 1}})
	if err != nil {
		t.Fatal(err)
	}
	// On G_auth b is isolated with no reset: score 0, yet still ranked.
	if len(row.GAuth.Items) != 2 || row.GAuth.Items[1].NodeID != "b" || row.GAuth.Items[1].Score != 0 {
		t.Errorf("G_auth selection %+v, want a then b at score 0", row.GAuth.Items)
	}
	if row.G.Items[1].Score <= 0 {
		t.Errorf("on G, b should receive walk mass from a")
	}
}

// Closure min-inheritance: a write by an authenticated, registered writer
// that cites a source which is missing or untrusted is unauthenticated,
// and its label names the source that decided it.
func TestMinInheritanceSourceDecides(t *testing.T) {
	p, _ := PolicyByName(PolicyDefault)
	e := Edge{ID: "peer", Src: "a", Dst: "b", Weight: 60, Prov: signed}
	if l := p.Label(e); !l.Authenticated || l.Source != "" {
		t.Fatalf("trusted source: %+v", l)
	}
	e.Prov.SourceProblems = []string{"doc: External after lineage"}
	l := p.Label(e)
	if l.Authenticated || l.Source != "doc: External after lineage" || l.Rule != RuleSourceUntrusted+": doc: External after lineage" {
		t.Fatalf("untrusted source: %+v", l)
	}
	// The signature-only policy ignores sources: it shows what min-
	// inheritance adds.
	so, _ := PolicyByName(PolicySignatureOnly)
	if !so.Label(e).Authenticated {
		t.Error("signature-only policy refuses a signed write")
	}
}
