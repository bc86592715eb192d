package importer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/replay"
)

// The documented mapping of an imported store onto replay's write
// provenance: verified facts from verify, declared labels from the meta key.
func TestDeclaredLabelsReachReplay(t *testing.T) {
	ctx := context.Background()
	out := filepath.Join(t.TempDir(), "imp")
	if _, err := Import(ctx, smallOptions("jsonl", out)); err != nil {
		t.Fatal(err)
	}
	rep := verifyImported(t, out)
	snap, err := loader.Open(filepath.Join(out, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	declared, err := snap.DeclaredLabels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info, ok, err := ReadInfo(snap.Meta); !ok || err != nil || info.SignedBy != SignedByImporter {
		t.Fatalf("ReadInfo: %v %v %+v", ok, err, info)
	}
	_, ids := readNotes(t, snap)
	lnodes, err := snap.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []replay.Node
	for _, n := range lnodes {
		nodes = append(nodes, replay.Node{ID: n.ID, Kind: n.Kind, Label: n.Label, Authenticated: true})
	}
	var edges []replay.Edge
	err = snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		w := r.Write
		p := replay.Provenance{Writer: w.Writer, SignatureValid: !rep.BadRecords[r.WID], Channel: rep.Channels[w.Writer]}
		p.WriterRegistered = p.Channel != ""
		for _, s := range w.Sources {
			p.Sources = append(p.Sources, s.String())
		}
		if v, ok := declared[r.WID]; ok {
			p.Declared = &v
		}
		edges = append(edges, replay.Edge{ID: ids[r.WID], Src: w.Src, Dst: w.Dst, Weight: w.Weight, Prov: p})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := replay.NewGraph(nodes, edges, replay.DropSelfLoops)
	if err != nil {
		t.Fatal(err)
	}
	// Expected labels, read off testdata/small/edges.csv: r3, x1, x2 have
	// no sources; x1, x2 come from agent:peer, registered unauthenticated.
	unauthDefault := map[string]bool{"r3": true, "x1": true, "x2": true}
	declaredAuth := map[string]bool{"m1": true, "m2": true, "m3": true, "m4": true, "s1": true}
	declaredUnauth := map[string]bool{"x1": true, "x2": true}
	for _, name := range []string{replay.PolicyDefault, replay.PolicyDeclared} {
		pol, err := replay.PolicyByName(name)
		if err != nil {
			t.Fatal(err)
		}
		labels := replay.LabelEdges(g, pol)
		for i, e := range g.Edges() {
			l := labels[i]
			wantAuth, wantDeclared := !unauthDefault[e.ID], false
			if name == replay.PolicyDeclared && (declaredAuth[e.ID] || declaredUnauth[e.ID]) {
				wantAuth, wantDeclared = declaredAuth[e.ID], true
			}
			if l.Authenticated != wantAuth || l.Declared != wantDeclared {
				t.Errorf("%s: edge %s labelled %+v, want authenticated=%v declared=%v", name, e.ID, l, wantAuth, wantDeclared)
			}
		}
	}

	// Selection: on G_auth p-payee is reachable only through e-payee, which
	// no authenticated edge links to a reset node, so it scores 0 while the
	// other five passages score above 0; on G the weight-60 no-source edge
	// from e-1940 (reset 0.5) pulls it in. So the born-first row diverges.
	rp, err := replay.NewReplayer(g, replay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := snap.Queries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	row, err := rp.Replay(context.Background(), replay.Query{ID: qs[0].ID, Reset: qs[0].Reset, K: qs[0].K, Recorded: qs[0].Selected})
	if err != nil {
		t.Fatal(err)
	}
	in := func(ids []string, x string) bool {
		for _, id := range ids {
			if id == x {
				return true
			}
		}
		return false
	}
	if qs[0].ID != "q-born-first" || !in(row.G.IDs(), "p-payee") || in(row.GAuth.IDs(), "p-payee") || row.Class != diff.Diverge {
		t.Errorf("born-first replay: G %v, G_auth %v, class %v", row.G.IDs(), row.GAuth.IDs(), row.Class)
	}
}
