package hipporag

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// pyOpenIE is what load_existing_openie reads of each doc (HippoRAG.py:
// json.load, then openie_info["passage"] and the triples by exact key).
const pyOpenIE = `
import json, sys
docs = json.load(open(sys.argv[1]))["docs"]
print(json.dumps([[d.get("idx"), d.get("passage"), d.get("extracted_triples")] for d in docs]))
`

// TestOpenIENamesReadAsJSONLoad: a doc whose Passage and
// Extracted_Triples members shadow the real ones is read as json.load
// reads it (the exact names), not as encoding/json's struct decoding read
// it (the case variants, last); a doc that repeats extracted_triples,
// which json.load and a merging reader resolve differently, is an issue
// and not read, and every other doc explains what it did before.
func TestOpenIENamesReadAsJSONLoad(t *testing.T) {
	t.Parallel()
	src := filepath.Join(fixtures, "clean")
	const file = "openie_results_ner_gpt-4o-mini.json"
	b, err := os.ReadFile(filepath.Join(src, file))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Docs []map[string]any }
	if err := json.Unmarshal(b, &f); err != nil || len(f.Docs) < 3 {
		t.Fatalf("fixture: %v", err)
	}
	// The hostile file, and the same without doc 1 (what reading it all
	// but doc 1 must explain).
	var docs, without []string
	for i, d := range f.Docs {
		j, _ := json.Marshal(d)
		s := strings.TrimSuffix(string(j), "}")
		switch i {
		case 0:
			s += `,"Passage":"forged passage","Extracted_Triples":[["Mallory","is owed","everything"]]}`
		case 1:
			s += `,"extracted_triples":[["Mallory","is owed","everything"]]}`
		default:
			s += "}"
		}
		docs = append(docs, s)
		if i != 1 {
			without = append(without, string(j))
		}
	}
	dir, want := t.TempDir(), t.TempDir()
	for d, list := range map[string][]string{dir: docs, want: without} {
		if err := os.CopyFS(d, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, file), []byte(`{"docs":[`+strings.Join(list, ",")+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Python reads doc 0 as the untouched fixture's, and doc 1's last
	// triples: the premise of the case.
	var py, clean [][]any
	sharedtest.RunPython(t, pyOpenIE, &py, filepath.Join(dir, file))
	sharedtest.RunPython(t, pyOpenIE, &clean, filepath.Join(src, file))
	if !reflect.DeepEqual(py[0], clean[0]) || reflect.DeepEqual(py[1], clean[1]) {
		t.Fatalf("json.load reads doc 0 as %v (fixture %v), doc 1 as %v", py[0], clean[0], py[1])
	}
	got, exp := openBoth(t, dir, want)
	if len(got.Issues) == 0 || got.Issues[0].Subject != "docs[1]" || !strings.Contains(got.Issues[0].Message, `"extracted_triples" appears twice`) {
		t.Fatalf("issues %+v, want the first for docs[1]'s repeated extracted_triples", got.Issues)
	}
	// The rest are the store's without doc 1 (the edges it explained).
	if len(got.Issues)-1 != len(exp.Issues) {
		t.Fatalf("%d issues after the first, want %d", len(got.Issues)-1, len(exp.Issues))
	}
	for i, is := range got.Issues[1:] {
		if w := exp.Issues[i]; is.Code != w.Code || is.Subject != w.Subject || is.Message != w.Message {
			t.Errorf("issue %d: %+v, want %+v", i+1, is, w)
		}
	}
	sameEdges(t, got, exp)
}
