package replay

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/memscope/memscope/internal/par"
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
// provenance, must not keep p's slices (they are reused), and is called
// from several goroutines at once on a large graph.
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

// labelsInParallelAbove is the edge count above which a ProvenanceLabeler
// labels the edges on every core: a million-edge store spends seconds here.
const labelsInParallelAbove = 1 << 16

func newLabelTable(g *Graph, p LabelPolicy) labelTable {
	_, byProv := p.(ProvenanceLabeler)
	if byProv && g.EdgeCount() > labelsInParallelAbove {
		return labelTableIn(g, p, runtime.GOMAXPROCS(0))
	}
	return labelTableIn(g, p, 1)
}

// labelTableIn labels the edges in parts runs of edges, on as many
// goroutines.
func labelTableIn(g *Graph, p LabelPolicy, parts int) labelTable {
	t := labelTable{of: make([]int32, g.EdgeCount())}
	// Each part codes its labels in the order they first appear in it;
	// the parts taken in edge order then give each label the code of its
	// first appearance overall, as one pass over every edge would.
	chunks := make([]labelChunk, parts)
	par.Each(parts, parts, func(c int) {
		lo, hi := c*len(t.of)/parts, (c+1)*len(t.of)/parts
		chunks[c] = labelEdges(g, p, lo, t.of[lo:hi])
	})
	codes := map[labelKey]int32{}
	for c, ch := range chunks {
		remap := make([]int32, len(ch.tab))
		for j, k := range ch.keys {
			code, ok := codes[k]
			if !ok {
				code = int32(len(t.tab))
				t.tab = append(t.tab, ch.tab[j])
				codes[k] = code
			}
			remap[j] = code
		}
		if c == 0 {
			continue // its codes are already the overall ones
		}
		lo, hi := c*len(t.of)/parts, (c+1)*len(t.of)/parts
		for i := lo; i < hi; i++ {
			t.of[i] = remap[t.of[i]]
		}
	}
	return t
}

// labelChunk is the distinct labels of a run of edges, in the order they
// first appear, with their keys.
type labelChunk struct {
	tab  []EdgeLabel
	keys []labelKey
}

// labelEdges labels edges first, first+1, ... into of (codes into the
// chunk's own table).
func labelEdges(g *Graph, p LabelPolicy, first int, of []int32) labelChunk {
	var ch labelChunk
	codes := map[labelKey]int32{}
	pl, byProv := p.(ProvenanceLabeler)
	var prov Provenance
	var scratch []string
	last := int32(-1) // the previous edge's code: runs of one label are common
	for j := range of {
		i := first + j
		var l EdgeLabel
		if byProv {
			prov, scratch = g.provenance(i, scratch[:0])
			l = pl.LabelProvenance(&prov)
		} else {
			l = p.Label(g.Edge(i))
		}
		if last >= 0 && sameLabel(l, ch.tab[last]) {
			of[j] = last
			continue
		}
		k := labelKey{auth: l.Authenticated, declared: l.Declared, rule: l.Rule, source: l.Source, failed: joinLengths(l.Failed), failedSet: l.Failed != nil}
		c, ok := codes[k]
		if !ok {
			c = int32(len(ch.tab))
			ch.tab = append(ch.tab, l)
			ch.keys = append(ch.keys, k)
			codes[k] = c
		}
		of[j], last = c, c
	}
	return ch
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
