package replay

import (
	"fmt"
	"reflect"
	"testing"
)

// byProvenance is a policy labelling through LabelProvenance.
type byProvenance struct{ LabelPolicy }

func (p byProvenance) LabelProvenance(prov *Provenance) EdgeLabel {
	return p.Label(Edge{Prov: *prov})
}

// TestLabelTableMatchesEachEdgesLabel: a replayer's labels (shared by
// code, runs of one label taken from the edge before, sources handed to a
// ProvenanceLabeler in a reused buffer) are each edge's own label under
// every policy, for provenance of every shape.
func TestLabelTableMatchesEachEdgesLabel(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	nodes := []Node{{ID: "a", Kind: KindEntity}, {ID: "b", Kind: KindPassage}, {ID: "c", Kind: KindPassage}}
	provs := []Provenance{
		signed, signed, noSource,
		{Writer: "w1", SignatureValid: true, WriterRegistered: true, Channel: ChannelAuthenticated, Sources: []string{"s1", "s2"}},
		{Writer: "w2", Sources: []string{}, Declared: &yes},
		{Writer: "w2", Sources: []string{}, Declared: &yes},
		{Writer: "w1", Channel: ChannelUnauthenticated, Declared: &no, Sources: []string{"s2"}, SourceProblems: []string{"s2: missing"}},
		{Writer: "w1", Channel: ChannelAuthenticated, SignatureValid: true, WriterRegistered: true, Sources: []string{"s3"}, SourceProblems: []string{"s3: untrusted"}},
		{Writer: "w1", SourceProblems: []string{}, NotInLog: "RECORD_NOT_IN_LOG"},
	}
	var edges []Edge
	for i := range 60 {
		edges = append(edges, Edge{ID: fmt.Sprintf("e%d", i), Src: nodes[i%3].ID, Dst: nodes[(i+1)%3].ID, Weight: 1, Prov: provs[(i*i/3)%len(provs)]})
	}
	g, err := NewGraph(nodes, edges, DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range PolicyNames() {
		p, err := PolicyByName(name)
		if err != nil {
			t.Fatal(err)
		}
		want := LabelEdges(g, p)
		for _, pol := range []LabelPolicy{p, byProvenance{p}} {
			r, err := NewReplayer(g, Config{Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Labels(); !reflect.DeepEqual(got, want) {
				t.Errorf("policy %s (%T): labels differ from each edge's own", name, pol)
			}
			// Labelled in parts on several goroutines (as a large graph
			// is), the codes are those of one pass, parts split mid-run.
			one := labelTableIn(g, pol, 1)
			for _, parts := range []int{2, 3, 7} {
				if got := labelTableIn(g, pol, parts); !reflect.DeepEqual(got, one) {
					t.Errorf("policy %s (%T) in %d parts: codes %v, in one pass %v", name, pol, parts, got.of, one.of)
				}
			}
		}
	}
}
