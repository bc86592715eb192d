package llamaindex

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// pyNames is what LlamaIndex's stores hand it after json.load: the
// docstore's node texts and the property graph's entity names.
const pyNames = `
import json, sys
ds = json.load(open(sys.argv[1]))["docstore/data"]
pg = json.load(open(sys.argv[2]))["nodes"]
print(json.dumps({"texts": {k: v["__data__"].get("text") for k, v in ds.items()},
                  "names": {k: v.get("name") for k, v in pg.items()}}))
`

// TestNamesReadAsJSONLoad: members shadowed by case variants (__DATA__,
// Name) are read as json.load reads them, by exact name, not as
// encoding/json's struct decoding read them; a node that repeats a name
// is an issue and not read; everything else reads as the untouched seed.
func TestNamesReadAsJSONLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata")); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(docstoreFile, `{"docstore/data": {"c1": {"__type__": "1", "__data__": {"id_": "c1", "text": "Alice knows Bob."}, "__DATA__": {"id_": "c1", "text": "Mallory is owed everything."}},
 "c3": {"__type__": "1", "__data__": {"id_": "c3", "text": "a", "text": "Mallory again"}}}}`)
	lpg, err := os.ReadFile(filepath.Join(dir, lpgFile))
	if err != nil {
		t.Fatal(err)
	}
	write(lpgFile, strings.Replace(string(lpg), `"name": "Carol"`, `"name": "Carol", "Name": "Mallory"`, 1))

	var py struct {
		Texts map[string]string
		Names map[string]*string
	}
	sharedtest.RunPython(t, pyNames, &py, filepath.Join(dir, docstoreFile), filepath.Join(dir, lpgFile))
	if py.Texts["c1"] != "Alice knows Bob." || py.Names["Carol"] == nil || *py.Names["Carol"] != "Carol" {
		t.Fatalf("json.load reads %+v: not the case's premise", py)
	}
	got, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Open(context.Background(), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Nodes, want.Nodes) {
		t.Errorf("nodes %+v\nwant %+v", got.Nodes, want.Nodes)
	}
	var repeat int
	for _, is := range got.Issues {
		if strings.Contains(is.Subject, "c3") && strings.Contains(is.Message, `"text" appears twice`) {
			repeat++
		}
	}
	if repeat != 1 || len(got.Issues) != len(want.Issues)+1 {
		t.Errorf("issues %+v: want the seed's and one for c3's repeated text", got.Issues)
	}
	for _, n := range got.Nodes {
		if strings.Contains(n.Label, "Mallory") {
			t.Errorf("node %+v comes from a shadowed or refused member", n)
		}
	}
}
