package lightrag

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"golang.org/x/text/encoding/unicode"
)

func TestOpenPoisoned(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), filepath.Join(fixtures, "poisoned"))
	if err != nil {
		t.Fatal(err)
	}
	passages := 0
	for _, n := range st.Nodes {
		if n.Kind == storemodel.KindPassage {
			passages++
		}
	}
	if passages != 5 || len(st.Nodes) != 10 {
		t.Errorf("%d nodes, %d passages", len(st.Nodes), passages)
	}
	var noSource []string
	for _, e := range st.Edges {
		if len(e.Sources) == 0 {
			noSource = append(noSource, e.ID)
		}
	}
	if len(noSource) != 1 || noSource[0] != storemodel.PairID("Karen Joy Fowler", "Acme Holdings") {
		t.Errorf("no-source edges %v", noSource)
	}
	if len(st.Issues) != 1 || st.Issues[0].Code != finding.StoreEdgeUnexplained {
		t.Errorf("issues %+v", st.Issues)
	}
}

// GraphML with a DOCTYPE (external entity, billion laughs) is refused
// before any entity could be expanded; an undeclared entity is an error.
func TestHostileGraphML(t *testing.T) {
	t.Parallel()
	for name, says := range map[string]string{
		"external_entity.graphml":   "DOCTYPE",
		"billion_laughs.graphml":    "DOCTYPE",
		"undeclared_entity.graphml": "entity",
	} {
		b, err := os.ReadFile(filepath.Join(fixtures, "hostile", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseGraphML(b); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: err %v, want it to say %q", name, err, says)
		}
	}
}

func FuzzParseGraphML(f *testing.F) {
	for _, p := range []string{"clean/graph_chunk_entity_relation.graphml", "poisoned/graph_chunk_entity_relation.graphml",
		"hostile/external_entity.graphml", "hostile/billion_laughs.graphml", "hostile/undeclared_entity.graphml"} {
		b, err := os.ReadFile(filepath.Join(fixtures, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	clean, err := os.ReadFile(filepath.Join(fixtures, "poisoned", graphFile))
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range variants {
		f.Add([]byte(strings.Replace(string(clean), v.from, v.to, 1)))
	}
	// The encodings expat takes from a document's start (graphmlenc.go).
	utf16, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(strings.Replace(string(clean), "utf-8", "utf-16", 1)))
	f.Add(utf16)
	f.Add([]byte(strings.Replace(string(clean), "utf-8", "latin-1", 1)))
	f.Add(append([]byte("\xef\xbb\xbf"), clean...))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseGraphML(b)
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, n := range g.Nodes {
			if ids[n.ID] {
				t.Fatalf("node %q twice", n.ID)
			}
			ids[n.ID] = true
		}
		for _, e := range g.Edges {
			if !ids[e.Source] || !ids[e.Target] {
				t.Fatalf("edge %q -- %q: an end is not a node", e.Source, e.Target)
			}
		}
	})
}

// planted/: two chunks no pipeline run produced. One names the stored
// document, whose chunks_list leaves it out; one names a document that is
// not stored. Both are SOURCE_MISSING and not listed passages, so the
// entity-chunk joins they source leave G_auth; the five real chunks stay
// listed.
func TestPlantedChunks(t *testing.T) {
	t.Parallel()
	st, err := Open(context.Background(), filepath.Join(fixtures, "planted"))
	if err != nil {
		t.Fatal(err)
	}
	listed, unlisted := 0, 0
	for _, n := range st.Nodes {
		if n.Kind != storemodel.KindPassage {
			continue
		}
		if n.Listed {
			listed++
		} else {
			unlisted++
		}
	}
	if listed != 5 || unlisted != 2 {
		t.Errorf("%d listed, %d unlisted passages", listed, unlisted)
	}
	var msgs []string
	for _, is := range st.Issues {
		if is.Code != finding.SourceMissing {
			t.Errorf("unexpected issue %+v", is)
		}
		msgs = append(msgs, is.Message)
	}
	all := strings.Join(msgs, "\n")
	if len(msgs) != 2 || !strings.Contains(all, "chunks_list") || !strings.Contains(all, "is not in kv_store_full_docs.json") {
		t.Errorf("issues:\n%s", all)
	}
	roles := 0
	for _, f := range st.Files {
		if strings.Contains(f.Path, "kv_store_full_docs") || strings.Contains(f.Path, "kv_store_doc_status") {
			roles++
		}
	}
	if roles != 2 {
		t.Errorf("files read %+v", st.Files)
	}
}
