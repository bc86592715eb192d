package lightrag

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pythonJSON is the independent answer: what Python's json.loads makes of
// each chunk's content (LightRAG reads record["content"]).
func pythonJSON(t *testing.T, path string) map[string]string {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import json").Run(); err != nil {
		sharedtest.Missing(t, "/usr/bin/python3")
	}
	out, err := exec.Command("/usr/bin/python3", "-c", `import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(json.dumps({k: v.get("content") for k, v in d.items()}))`, path).Output()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]string
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A chunk with "content" and "Content", and a chunk whose content key is
// repeated: memscope shows what Python (and so LightRAG) reads, and says
// the keys are not what LightRAG writes. Go's encoding/json would show the
// case twin (it matches struct fields case-insensitively, the last wins).
func TestChunkKeysAsPython(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(fixtures, "poisoned")
	for _, f := range []string{graphFile, fullDocsFile, docStatusFile} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(src, chunksFile))
	if err != nil {
		t.Fatal(err)
	}
	var chunks map[string]map[string]any
	if err := json.Unmarshal(b, &chunks); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id := range chunks {
		ids = append(ids, id)
	}
	if len(ids) < 2 {
		t.Fatal("fixture has fewer than 2 chunks")
	}
	// Rewrite two records by hand (json.Marshal of a map cannot repeat a key).
	text := string(b)
	twin, dup := ids[0], ids[1]
	for _, id := range []string{twin, dup} {
		c := chunks[id]["content"].(string)
		enc, _ := json.Marshal(c)
		old := `"content": ` + string(enc)
		if !strings.Contains(text, old) {
			t.Fatalf("fixture layout changed: no %s", old)
		}
		repl := old + `, "Content": "DECOY case twin"`
		if id == dup {
			repl = `"content": "DECOY first", ` + old
		}
		text = strings.Replace(text, old, repl, 1)
	}
	cpath := filepath.Join(dir, chunksFile)
	if err := os.WriteFile(cpath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	want := pythonJSON(t, cpath)
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, n := range st.Nodes {
		if n.Kind == storemodel.KindPassage {
			got[n.ID] = n.Label
		}
	}
	for id, w := range want {
		if got[id] != w || strings.Contains(got[id], "DECOY") {
			t.Errorf("chunk %s: memscope %q, Python %q", id, got[id], w)
		}
	}
	flagged := map[string]bool{}
	for _, is := range st.Issues {
		if is.Code == finding.StoreParseDifferential {
			flagged[strings.TrimPrefix(is.Subject, "chunk ")] = true
		}
	}
	if !flagged[twin] || !flagged[dup] || len(flagged) != 2 {
		t.Errorf("differential findings for %v, want %s and %s", flagged, twin, dup)
	}
}

func TestReadPyObject(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a": 1, "a": 2}`:         `repeated`,
		`{"a": 1, "A": 2}`:         `case`,
		`{"a": 1} {"b": 2}`:        `after the JSON object`,
		"{\"a\": \"\xff\"}":        `UTF-8`,
		`["a"]`:                    `not a JSON object`,
		`{"content": "x", "b": 1}`: ``,
	} {
		o, err := readPyObject([]byte(in))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = o.keyIssues()
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func FuzzReadPyObject(f *testing.F) {
	for _, p := range []string{"clean/" + chunksFile, "clean/" + docStatusFile, "planted/" + docStatusFile} {
		b, err := os.ReadFile(filepath.Join(fixtures, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"a": 1, "a": {"A": 2, "a": [1, {"x": null}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := readPyObject(b)
		if err != nil {
			return
		}
		if len(o.order) != len(o.members) {
			t.Fatalf("%d keys in order, %d members", len(o.order), len(o.members))
		}
		// What Go's map decoding (exact keys, last wins) finds must agree.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("readPyObject accepted what encoding/json refuses: %v", err)
		}
		if len(m) != len(o.members) {
			t.Fatalf("%d members, encoding/json %d", len(o.members), len(m))
		}
	})
}
