package assemble

import (
	"context"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/replay"
)

// A signed write that cites a source entry which does not exist is not
// "sourced": verify warns (SOURCE_MISSING) and replay keeps the edge out of
// G_auth with the reason, under the default label policy.
func TestMissingSourceIsUnauthenticated(t *testing.T) {
	t.Parallel()
	s, _ := open(t, "tampered")
	rep, err := s.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var wid string
	for _, f := range rep.Findings {
		if f.Code == finding.SourceMissing {
			wid = strings.TrimPrefix(f.Subject, "write ")
		}
	}
	if wid == "" {
		t.Fatal("fixture: tampered has no SOURCE_MISSING write")
	}
	g, err := s.ReplayGraph(rep)
	if err != nil {
		t.Fatal(err)
	}
	i, ok := g.EdgeIndex(wid)
	if !ok {
		t.Fatalf("write %s is not an edge of G", wid)
	}
	policy, err := replay.PolicyByName(replay.PolicyDefault)
	if err != nil {
		t.Fatal(err)
	}
	l := replay.LabelEdges(g, policy)[i]
	if l.Authenticated || !strings.Contains(l.Source, "not in the store") {
		t.Errorf("write %s: label %+v; want unauthenticated, its source not in the store", wid, l)
	}
}
