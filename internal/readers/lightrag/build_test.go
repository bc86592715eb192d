package lightrag

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The store built while the graph streams (what nx.write_graphml writes:
// nodes, then edges) must be the store built after reading the whole
// graph, issues and their order included; a file that declares a node
// after an edge is read whole.
func TestStreamingBuildsTheWholeGraphStore(t *testing.T) {
	t.Parallel()
	poisoned, err := os.ReadFile(filepath.Join(fixtures, "poisoned", graphFile))
	if err != nil {
		t.Fatal(err)
	}
	type edit struct{ name, from, to string }
	edits := []edit{
		// what the streaming order has to get right by itself
		{"empty-end-and-id", `</graph>`, `<node id=""/><edge source="" target="Karen Joy Fowler"/><edge source="Nobody" target=""/></graph>`},
		{"edge-to-undeclared-chunk", `</graph>`, `<edge source="chunk-400e77c300c86f19b9484c6a753496ed" target="Karen Joy Fowler"/><edge source="Ghost" target="Karen Joy Fowler"><data key="d7">chunk-forged&lt;SEP&gt; chunk-400e77c300c86f19b9484c6a753496ed </data></edge></graph>`},
		{"repeated-pair", `</graph>`, `<edge source="Karen Joy Fowler" target="Sarah Canary"/><edge source="Sarah Canary" target="Karen Joy Fowler"><data key="d8">-1</data></edge></graph>`},
		{"no-edges", `<edge `, `<x:edge xmlns:x="urn:none" `},
		// ids whose pair ids collide as strings ("a--a--b" twice, "x---y"
		// twice) or carry a repeated pair's mark
		{"colliding-pair-ids", `<graph edgedefault="undirected">`, `<graph edgedefault="undirected"><node id="a"/><node id="a--b"/><node id="a--a"/><node id="b"/><node id="x-"/><node id="y"/><node id="x"/><node id="-y"/><node id="Karen Joy Fowler--Sarah Canary#0"/>` +
			`<edge source="a" target="a--b"/><edge source="a--a" target="b"/><edge source="x-" target="y"/><edge source="x" target="-y"/><edge source="Karen Joy Fowler" target="Sarah Canary#0"/><edge source="Karen Joy Fowler" target="Sarah Canary"/><edge source="Sarah Canary" target="Karen Joy Fowler"/>`},
	}
	for _, v := range variants {
		edits = append(edits, edit{v.name, v.from, v.to})
	}
	dirs := []string{filepath.Join(fixtures, "clean"), filepath.Join(fixtures, "planted"), filepath.Join(fixtures, "poisoned")}
	for _, e := range edits {
		if !strings.Contains(string(poisoned), e.from) {
			t.Fatalf("%s: the fixture has no %q", e.name, e.from)
		}
		dir := filepath.Join(t.TempDir(), e.name)
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(fixtures, "poisoned"))); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, graphFile), []byte(strings.ReplaceAll(string(poisoned), e.from, e.to)), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	for _, dir := range dirs {
		streamed, serr := open(context.Background(), dir, false)
		whole, werr := open(context.Background(), dir, true)
		name := filepath.Base(dir)
		if (serr == nil) != (werr == nil) || serr != nil && serr.Error() != werr.Error() {
			t.Errorf("%s: streaming error %v, whole-graph error %v", name, serr, werr)
			continue
		}
		if serr != nil {
			continue
		}
		if !reflect.DeepEqual(streamed, whole) {
			t.Errorf("%s: the streamed store differs from the whole-graph one:\nstreamed %+v\nwhole    %+v", name, streamed, whole)
		}
		ids := map[string]bool{}
		for _, e := range whole.Edges {
			if ids[e.ID] {
				t.Errorf("%s: edge id %q twice", name, e.ID)
			}
			ids[e.ID] = true
		}
		if len(whole.Edges) == 0 && name != "no-edges" {
			t.Errorf("%s: no edges read", name)
		}
	}
}
