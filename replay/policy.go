package replay

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Rules that decide an edge's label. Each label names the rule that decided
// it, so a reviewer can see why an edge was kept in or removed from G_auth.
const (
	RuleAuthenticated       = "signed, registered, authenticated channel, sourced from trusted entries"
	RuleNoSource            = "no-source write"
	RuleSourceUntrusted     = "source untrusted"
	RuleSignatureInvalid    = "signature invalid"
	RuleNotInLog            = "not in the log"
	RuleWriterUnregistered  = "writer unregistered"
	RuleChannelUnauthentic  = "channel unauthenticated"
	RuleChannelUnknown      = "channel unknown"
	RuleDeclaredByImporter  = "declared by importer"
	RuleSignatureValid      = "signature valid"
	PolicyDefault           = "signed-registered-authenticated"
	PolicyDeclared          = "declared"
	PolicySignatureOnly     = "signature-only"
	DefaultPolicyName       = PolicyDefault
	declaredRuleUnauthentic = "declared unauthenticated by importer"
)

// EdgeLabel is the integrity label of one structural write.
type EdgeLabel struct {
	Authenticated bool     `json:"authenticated"`
	Rule          string   `json:"rule"`     // the rule that decided the label
	Failed        []string `json:"failed"`   // every failing rule, in check order (empty when authenticated)
	Declared      bool     `json:"declared"` // the label was declared by an importer, not verified
	// Source is the cited source that decided an unauthenticated label
	// under min-inheritance ("id: why"), "" otherwise.
	Source string `json:"source"`
}

// LabelPolicy labels an edge from its write provenance alone.
type LabelPolicy interface {
	Name() string
	Label(Edge) EdgeLabel
}

// ProvenanceLabeler is a LabelPolicy whose label of an edge depends on the
// edge's provenance alone (as LabelPolicy says it should): a replay of a
// large graph then labels each edge without spelling out its id and
// endpoints. LabelProvenance must give what Label gives an edge of that
// provenance, and must not keep p's slices (they are reused).
type ProvenanceLabeler interface {
	LabelPolicy
	LabelProvenance(p *Provenance) EdgeLabel
}

// PolicyNames lists the selectable label policies.
func PolicyNames() []string {
	return []string{PolicyDefault, PolicyDeclared, PolicySignatureOnly}
}

// PolicyByName returns a label policy by its name.
func PolicyByName(name string) (LabelPolicy, error) {
	switch name {
	case PolicyDefault, "":
		return verifiedPolicy{}, nil
	case PolicyDeclared:
		return declaredPolicy{}, nil
	case PolicySignatureOnly:
		return signatureOnlyPolicy{}, nil
	}
	names := PolicyNames()
	sort.Strings(names)
	return nil, fmt.Errorf("replay: unknown label policy %q (known: %s)", name, strings.Join(names, ", "))
}

// verifiedPolicy is the default: an edge is authenticated only when its
// signature verifies, its writer is a registered principal, it came through
// an authenticated channel, and it names at least one source, every one of
// which exists and is trusted after verification and lineage (closure
// min-inheritance: a derived object carries the minimum integrity over its
// derivation closure, AuthSelect, arXiv:2606.12290, section 4). A no-source write is
// unauthenticated by construction (AuthSelect, arXiv:2606.12290, L-prov).
type verifiedPolicy struct{}

func (verifiedPolicy) Name() string { return PolicyDefault }

func (verifiedPolicy) Label(e Edge) EdgeLabel {
	var failed []string
	src := ""
	if len(e.Prov.Sources) == 0 {
		failed = append(failed, RuleNoSource)
	} else if len(e.Prov.SourceProblems) > 0 {
		failed = append(failed, RuleSourceUntrusted)
		src = e.Prov.SourceProblems[0]
	}
	if !e.Prov.SignatureValid {
		failed = append(failed, RuleSignatureInvalid)
	}
	if e.Prov.NotInLog != "" {
		failed = append(failed, RuleNotInLog)
	}
	if !e.Prov.WriterRegistered {
		failed = append(failed, RuleWriterUnregistered)
	}
	switch e.Prov.Channel {
	case ChannelAuthenticated:
	case ChannelUnauthenticated:
		failed = append(failed, RuleChannelUnauthentic)
	default:
		failed = append(failed, RuleChannelUnknown)
	}
	if len(failed) > 0 {
		rule := failed[0]
		if rule == RuleSourceUntrusted {
			rule += ": " + src
		}
		return EdgeLabel{Rule: rule, Failed: failed, Source: src}
	}
	return EdgeLabel{Authenticated: true, Rule: RuleAuthenticated}
}

// declaredPolicy trusts a label an importer declared (for stores that carry
// no signatures) and marks it as declared; edges without a declaration fall
// back to the verified policy.
type declaredPolicy struct{}

func (declaredPolicy) Name() string { return PolicyDeclared }

func (declaredPolicy) Label(e Edge) EdgeLabel {
	if e.Prov.Declared == nil {
		return verifiedPolicy{}.Label(e)
	}
	if *e.Prov.Declared {
		return EdgeLabel{Authenticated: true, Rule: RuleDeclaredByImporter, Declared: true}
	}
	return EdgeLabel{Rule: declaredRuleUnauthentic, Failed: []string{declaredRuleUnauthentic}, Declared: true}
}

// signatureOnlyPolicy accepts any edge with a valid signature. It is weaker
// than the default on purpose: it shows what a signature check alone lets
// through (a signed no-source write by an unregistered or untrusted writer).
type signatureOnlyPolicy struct{}

func (signatureOnlyPolicy) Name() string { return PolicySignatureOnly }

func (signatureOnlyPolicy) Label(e Edge) EdgeLabel {
	if e.Prov.SignatureValid {
		return EdgeLabel{Authenticated: true, Rule: RuleSignatureValid}
	}
	return EdgeLabel{Rule: RuleSignatureInvalid, Failed: []string{RuleSignatureInvalid}}
}

// labelTable is every edge's label as a code into the distinct labels.
type labelTable struct {
	of  []int32
	tab []EdgeLabel
}

// labelKey identifies an EdgeLabel for sharing.
type labelKey struct {
	auth, declared bool
	rule, source   string
	failed         string // joinLengths; failedSet says non-nil
	failedSet      bool
}

func newLabelTable(g *Graph, p LabelPolicy) labelTable {
	t := labelTable{of: make([]int32, g.EdgeCount())}
	codes := map[labelKey]int32{}
	pl, byProv := p.(ProvenanceLabeler)
	var prov Provenance
	var scratch []string
	last := int32(-1) // the previous edge's code: runs of one label are common
	for i := range t.of {
		var l EdgeLabel
		if byProv {
			prov, scratch = g.provenance(i, scratch[:0])
			l = pl.LabelProvenance(&prov)
		} else {
			l = p.Label(g.Edge(i))
		}
		if last >= 0 && sameLabel(l, t.tab[last]) {
			t.of[i] = last
			continue
		}
		k := labelKey{auth: l.Authenticated, declared: l.Declared, rule: l.Rule, source: l.Source, failed: joinLengths(l.Failed), failedSet: l.Failed != nil}
		c, ok := codes[k]
		if !ok {
			c = int32(len(t.tab))
			t.tab = append(t.tab, l)
			codes[k] = c
		}
		t.of[i], last = c, c
	}
	return t
}

// sameLabel says whether two labels are equal (Failed nil and empty told
// apart, as labelKey tells them).
func sameLabel(a, b EdgeLabel) bool {
	return a.Authenticated == b.Authenticated && a.Declared == b.Declared && a.Rule == b.Rule && a.Source == b.Source &&
		(a.Failed == nil) == (b.Failed == nil) && slices.Equal(a.Failed, b.Failed)
}

func (t *labelTable) at(i int) EdgeLabel       { return t.tab[t.of[i]] }
func (t *labelTable) authenticated(i int) bool { return t.tab[t.of[i]].Authenticated }

// LabelEdges labels every edge of g with the policy, in edge order.
func LabelEdges(g *Graph, p LabelPolicy) []EdgeLabel {
	out := make([]EdgeLabel, g.EdgeCount())
	for i := range out {
		out[i] = p.Label(g.Edge(i))
	}
	return out
}
