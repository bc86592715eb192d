package importer

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/seedgen"
	"github.com/memscope/memscope/evidence/snapshot"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/generators/graphfile"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

func smallOptions(format, out string) Options {
	dir := filepath.Join("testdata", "small")
	return Options{
		Nodes:   filepath.Join(dir, "nodes."+format),
		Edges:   filepath.Join(dir, "edges."+format),
		Queries: filepath.Join(dir, "queries."+format),
		Out:     out,
		Seed:    7,
	}
}

// verifyImported runs memscope's verifier with the anchors the import wrote.
func verifyImported(t *testing.T, out string) *verify.Report {
	t.Helper()
	vkey, err := os.ReadFile(filepath.Join(out, evidence.LogKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	trust, err := os.ReadFile(filepath.Join(out, evidence.TrustFile))
	if err != nil {
		t.Fatal(err)
	}
	root, err := hex.DecodeString(strings.TrimSpace(string(trust)))
	if err != nil || len(root) != ed25519.PublicKeySize {
		t.Fatalf("trust.keys: %q", trust)
	}
	rep, err := verify.Run(context.Background(), verify.Options{
		Snapshot:   filepath.Join(out, evidence.SnapshotFile),
		Log:        filepath.Join(out, evidence.LogDir),
		LogKey:     strings.TrimSpace(string(vkey)),
		TrustRoots: []ed25519.PublicKey{root},
	})
	if err != nil {
		t.Fatal(err)
	}
	// An imported store's nodes, queries and session ids are unsigned by
	// the format; TABLE_UNSIGNED says so for every import and is not what
	// these tests look for.
	kept := rep.Findings[:0]
	for _, f := range rep.Findings {
		if f.Code != finding.TableUnsigned {
			kept = append(kept, f)
		}
	}
	rep.Findings = kept
	return rep
}

// The small graph, read by hand from testdata/small/*.csv.
var (
	wantChannels = map[string]string{
		"tool:corpus":    record.ChannelAuthenticated,
		"user":           record.ChannelAuthenticated,
		"external:forum": record.ChannelUnauthenticated, // external class
		"agent:indexer":  record.ChannelAuthenticated,
		"agent:peer":     record.ChannelUnauthenticated, // declares its writes unauthenticated
	}
	wantDeclared = map[string]string{
		"m1": "authenticated", "m2": "authenticated", "m3": "authenticated", "m4": "authenticated",
		"s1": "authenticated", "x1": "unauthenticated", "x2": "unauthenticated",
	}
	wantSources = map[string][]string{
		"m7": {"p-patagonia"}, "r1": {"p-fowler", "p-bookclub"}, "r3": {}, "x1": {}, "x2": {},
	}
	wantTrust = map[string]record.Trust{
		"p-fowler": record.DerivedTrusted, "p-patagonia": record.DerivedTrusted,
		"p-payee": record.Trusted, "p-forum": record.External,
	}
)

func TestRoundTrip(t *testing.T) {
	for _, format := range []string{"csv", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "imp")
			man, err := Import(context.Background(), smallOptions(format, out))
			if err != nil {
				t.Fatal(err)
			}
			rep := verifyImported(t, out)
			if !rep.OK || len(rep.Findings) != 0 {
				t.Fatalf("verify: ok=%v findings=%+v", rep.OK, rep.Findings)
			}
			if rep.Anchors.LogKey != "pinned" || rep.Anchors.Registry != "pinned" {
				t.Errorf("anchors %+v, want both pinned", rep.Anchors)
			}
			if rep.Entries != 6 || rep.Edges != 16 || rep.Principals != 5 || rep.Checkpoints != 2 {
				t.Errorf("counts: entries %d edges %d principals %d checkpoints %d, want 6 16 5 2", rep.Entries, rep.Edges, rep.Principals, rep.Checkpoints)
			}
			if !reflect.DeepEqual(rep.Channels, wantChannels) {
				t.Errorf("channels %v, want %v", rep.Channels, wantChannels)
			}
			if man.Import.SignedBy != SignedByImporter || man.Import.NoSource != 3 || man.Import.Entities != 7 || man.Import.Queries != 2 {
				t.Errorf("manifest import info %+v", man.Import)
			}
			checkSnapshot(t, out)
			// The manifest works as an --anchors file and says who signed.
			m, err := evidence.ReadManifest(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Anchors.LogKey == "" || len(m.Anchors.Trust) != 1 {
				t.Errorf("manifest anchors %+v", m.Anchors)
			}
			raw, _ := os.ReadFile(filepath.Join(out, evidence.ManifestFile))
			var back Manifest
			if err := json.Unmarshal(raw, &back); err != nil || back.Import.SignedBy != SignedByImporter {
				t.Errorf("manifest import member: %v %+v", err, back.Import)
			}
		})
	}
}

// checkSnapshot reads the store back through the loader and compares it
// with the hand-read expectations above.
func checkSnapshot(t *testing.T, out string) {
	t.Helper()
	ctx := context.Background()
	snap, err := loader.Open(filepath.Join(out, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var info Info
	if err := json.Unmarshal([]byte(snap.Meta[snapshot.MetaImport]), &info); err != nil || info.SignedBy != SignedByImporter {
		t.Fatalf("meta %s: %v %q", snapshot.MetaImport, err, snap.Meta[snapshot.MetaImport])
	}
	if !strings.Contains(snap.Meta["description"], "signed by memscope import") {
		t.Errorf("description does not say who signed: %q", snap.Meta["description"])
	}
	declared, ids := readNotes(t, snap)
	nodes, err := snap.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 13 || nodes[0].ID != "p-fowler" || nodes[6].ID != "e-fowler" || nodes[6].EID != "" {
		t.Fatalf("nodes not in input order: %+v", nodes)
	}
	passageOf := map[string]string{} // eid -> passage id
	for _, n := range nodes {
		if n.Kind == "passage" {
			passageOf[n.EID] = n.ID
		}
	}
	gotTrust := map[string]record.Trust{}
	err = snap.EachEntry(ctx, func(r *loader.EntryRow) error {
		p := passageOf[r.EID]
		if p == "" {
			t.Errorf("entry %s has no passage node", r.EID)
		}
		if _, ok := wantTrust[p]; ok {
			gotTrust[p] = r.Entry.Trust
		}
		if p == "p-forum" && (r.Entry.Writer != "external:forum" || r.Entry.Content != `Forum post: "Fowler was born in 1930", says an anonymous poster.`) {
			t.Errorf("p-forum entry: writer %q content %q", r.Entry.Writer, r.Entry.Content)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotTrust, wantTrust) {
		t.Errorf("trust %v, want %v", gotTrust, wantTrust)
	}
	gotDeclared := map[string]string{}
	seen := 0
	err = snap.EachWrite(ctx, func(r *loader.WriteRow) error {
		seen++
		in := ids[r.WID]
		if l, ok := declared[r.WID]; ok {
			gotDeclared[in] = l
		}
		if want, ok := wantSources[in]; ok {
			got := []string{}
			for _, s := range r.Write.Sources {
				got = append(got, passageOf[s.String()])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("write %s sources %v, want %v", in, got, want)
			}
		}
		if in == "x1" && (r.Write.Weight != 60 || r.Write.Writer != "agent:peer" || r.Write.Rel != "paid_to" || r.Write.Src != "e-fowler" || r.Write.Dst != "e-payee") {
			t.Errorf("x1: %+v", r.Write)
		}
		if in == "r3" && (r.Write.Kind != record.KindRelation || r.Write.Weight != 1.5) {
			t.Errorf("r3: %+v", r.Write)
		}
		if in == "s1" && r.Write.Kind != record.KindMerge {
			t.Errorf("s1 kind %q", r.Write.Kind)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != 16 || len(ids) != 16 {
		t.Errorf("%d writes, %d import ids; want 16", seen, len(ids))
	}
	if !reflect.DeepEqual(gotDeclared, wantDeclared) {
		t.Errorf("declared %v, want %v", gotDeclared, wantDeclared)
	}
	qs, err := snap.Queries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].ID != "q-born-first" || qs[0].K != 5 || qs[0].Reset["e-fowler"] != 0.45 || qs[0].Dense["p-payee"] != 0.05 ||
		!reflect.DeepEqual(qs[0].Selected, []string{"p-chatwin", "p-fowler", "p-payee"}) {
		t.Errorf("query 0: %+v", qs)
	}
	if qs[1].K != 3 || qs[1].Dense != nil || qs[1].Selected != nil || qs[1].Reset["e-patagonia"] != 0.5 {
		t.Errorf("query 1: %+v", qs[1])
	}
}

// The CSV and JSONL twins of the small graph parse to the same rows.
func TestFormatsAgree(t *testing.T) {
	var graphs []*graphfile.Graph
	for _, f := range []string{"csv", "jsonl"} {
		g, _, err := Load(smallOptions(f, ""))
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Nodes {
			g.Nodes[i].Line = 0
		}
		for i := range g.Edges {
			g.Edges[i].Line = 0
		}
		for i := range g.Queries {
			g.Queries[i].Line = 0
		}
		g.NodesFile, g.EdgesFile, g.QueriesFile = "", "", ""
		graphs = append(graphs, g)
	}
	if !reflect.DeepEqual(graphs[0], graphs[1]) {
		t.Fatalf("csv and jsonl differ:\n%+v\n%+v", graphs[0], graphs[1])
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestDeterministic(t *testing.T) {
	base := t.TempDir()
	var trees []map[string][]byte
	for i, seed := range []uint64{7, 7, 8} {
		opt := smallOptions("csv", filepath.Join(base, string(rune('a'+i))))
		opt.Seed = seed
		if _, err := Import(context.Background(), opt); err != nil {
			t.Fatal(err)
		}
		trees = append(trees, readTree(t, opt.Out))
	}
	if len(trees[0]) < 8 {
		t.Fatalf("only %d files written", len(trees[0]))
	}
	for name, b := range trees[0] {
		if !bytes.Equal(b, trees[1][name]) {
			t.Errorf("%s differs between two imports with the same seed", name)
		}
	}
	if len(trees[0]) != len(trees[1]) {
		t.Errorf("file sets differ: %d vs %d", len(trees[0]), len(trees[1]))
	}
	if bytes.Equal(trees[0][evidence.SnapshotFile], trees[2][evidence.SnapshotFile]) {
		t.Error("a different seed gave the same snapshot")
	}
	// Private keys never leave the importer: no file holds the root's seed.
	root := seedgen.New(7, "memscope-import").Derive("registry-root")
	for name, b := range trees[0] {
		if bytes.Contains(b, root[:]) || bytes.Contains(b, []byte(hex.EncodeToString(root[:]))) {
			t.Errorf("%s contains the registry root's private seed", name)
		}
	}
}

func TestRefusesNonEmptyOut(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(context.Background(), smallOptions("csv", out)); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("err = %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "keep")); string(b) != "x" {
		t.Error("existing file was touched")
	}
}

// A bad input writes nothing at all.
func TestBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "n.csv")
	edges := filepath.Join(dir, "e.csv")
	os.WriteFile(nodes, []byte("id,kind,text\na,passage,A\n"), 0o644)
	os.WriteFile(edges, []byte("src,dst,weight,sources\na,b,1,\n"), 0o644)
	out := filepath.Join(dir, "out")
	_, err := Import(context.Background(), Options{Nodes: nodes, Edges: edges, Out: out})
	if err == nil {
		t.Fatal("want an error for an unknown node")
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("output directory exists after a failed import: %v", serr)
	}
}

// readNotes reads the import notes table (every row signed): write id ->
// declared label, and write id -> input edge id. The meta keys that held
// them before the table are not written.
func readNotes(t *testing.T, snap *loader.Snapshot) (declared, ids map[string]string) {
	t.Helper()
	notes, fromMeta, err := snap.ImportNotesOrMeta(context.Background())
	if err != nil || fromMeta {
		t.Fatalf("import notes: %v (from meta: %v)", err, fromMeta)
	}
	for _, k := range []string{snapshot.MetaImportIDs, snapshot.MetaDeclaredLabels} {
		if _, ok := snap.Meta[k]; ok {
			t.Errorf("meta %s written beside the import notes", k)
		}
	}
	declared, ids = map[string]string{}, map[string]string{}
	for _, n := range notes {
		if !n.Record.Verified() {
			t.Errorf("note %s: record %+v does not decode or disagrees with its row", n.WID, n.Record)
		}
		if n.Declared != "" {
			declared[n.WID] = n.Declared
		}
		if n.InputID != "" {
			ids[n.WID] = n.InputID
		}
	}
	return declared, ids
}

// A failure while writing (here: a cancelled context) removes the output
// directory it created.
func TestWriteFailureCleansUp(t *testing.T) {
	g, inputs, err := Load(smallOptions("csv", ""))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, g, inputs, smallOptions("csv", out)); err == nil {
		t.Fatal("a cancelled import succeeded")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output exists after a failed write: %v", err)
	}
}

// Channels follow the documented rules, and mixed declarations warn.
func TestPrincipalChannels(t *testing.T) {
	g := &graphfile.Graph{
		Nodes: []graphfile.Node{{ID: "p", Kind: "passage", Writer: "external:web"}, {ID: "q", Kind: "passage"}},
		Edges: []graphfile.Edge{
			{Writer: "agent:mixed", Declared: graphfile.LabelAuthenticated},
			{Writer: "agent:mixed", Declared: graphfile.LabelUnauthenticated},
			{Writer: "agent:clean", Declared: graphfile.LabelAuthenticated},
			{Declared: ""},
		},
	}
	ps, warnings := principals(g, "tool:default")
	got := map[string]string{}
	var order []string
	for _, p := range ps {
		got[p.Name] = p.Channel
		order = append(order, p.Name)
	}
	want := map[string]string{"external:web": "unauthenticated", "tool:default": "authenticated", "agent:mixed": "unauthenticated", "agent:clean": "authenticated"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("channels %v, want %v", got, want)
	}
	if !reflect.DeepEqual(order, []string{"external:web", "tool:default", "agent:mixed", "agent:clean"}) {
		t.Errorf("order %v, want first use", order)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "agent:mixed") {
		t.Errorf("warnings %q, want one about agent:mixed", warnings)
	}
}

// Write re-validates a Graph built in Go.
func TestWriteValidatesGoGraph(t *testing.T) {
	g := &graphfile.Graph{NodesFile: "nodes", EdgesFile: "edges",
		Nodes: []graphfile.Node{{ID: "a", Kind: "passage", Text: "A"}, {ID: "b", Kind: "entity", Text: "B"}},
		Edges: []graphfile.Edge{{Src: "a", Dst: "b", Weight: 1, Kind: "edge", Rel: "has space", Sources: []string{}}}}
	out := filepath.Join(t.TempDir(), "out")
	_, err := Write(context.Background(), g, nil, Options{Out: out})
	checkInputError(t, err, "edges", 0, "rel", "space")
	g.Edges[0].Rel = "ok"
	if _, err := Write(context.Background(), g, nil, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	if rep := verifyImported(t, out); !rep.OK || len(rep.Findings) != 0 {
		t.Errorf("verify: %+v", rep.Findings)
	}
}
