package assemble

import (
	"context"
	"testing"

	"github.com/memscope/memscope/internal/analyses/storereplay"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/replay"
)

// An unexplained write that changes the selection is an error on a native
// store even when the row is not IFC-blind (the passage it pulls in is
// not one the store lists); a divergence whose culprits all have a reason
// to be there by design stays a warning.
func TestNativeReplayGradesUnexplainedCulprits(t *testing.T) {
	for _, kind := range []string{storemodel.EdgeUnexplained, storemodel.EdgeSynonym} {
		st := &storemodel.Store{Format: storemodel.LightRAG,
			Nodes: []storemodel.Node{{ID: "p1", Kind: storemodel.KindPassage, Listed: true}, {ID: "p2", Kind: storemodel.KindPassage},
				{ID: "e", Kind: storemodel.KindEntity}},
			Edges: []storemodel.Edge{{ID: "e--p1", Src: "e", Dst: "p1", Weight: 1, Parts: 1, Kind: storemodel.EdgePassage, Sources: []string{"p1"}},
				{ID: "e--p2", Src: "e", Dst: "p2", Weight: 40, Parts: 1, Kind: kind}}}
		g, pol, err := storereplay.Graph(st)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := replay.NewReplayer(g, replay.Config{Policy: pol, Culprits: true})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := rp.ReplayAll(context.Background(), []replay.Query{{ID: "q", Reset: map[string]float64{"e": 1}, K: 1}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		fs := NativeReplayFindings(st, rows)
		var diverge *finding.Finding
		for i := range fs {
			if fs[i].Code == finding.ReplayDiverge {
				diverge = &fs[i]
			}
		}
		if diverge == nil {
			t.Fatalf("%s: no divergence: %v (rows %+v)", kind, fs, rows)
		}
		want := finding.SevWarning
		if kind == storemodel.EdgeUnexplained {
			want = finding.SevError
		}
		if diverge.Severity != want || (NativeReplayStatus(st, rows) == 1) != (want == finding.SevError) {
			t.Errorf("%s: graded %s, want %s", kind, diverge.Severity, want)
		}
	}
}
