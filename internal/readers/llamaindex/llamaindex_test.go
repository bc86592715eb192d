package llamaindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pyCounts counts a persist directory with Python's json: passages
// (docstore nodes with text, property-graph text chunks), entities (other
// property-graph nodes, graph_dict subjects and objects), node pairs joined
// by a triplet, an entity's triplet_source_id or the KG table, and the
// pairs no part of which names a source chunk.
const pyCounts = `
import sys, json, os
d = sys.argv[1]
def load(n):
    p = os.path.join(d, n)
    return json.load(open(p, encoding='utf-8')) if os.path.exists(p) else None
passages, entities, pairs = {}, set(), {}
def edge(a, b, src):
    if a == b: return
    k = tuple(sorted((a, b)))
    pairs[k] = pairs.get(k, False) or src
ds = load('docstore.json') or {}
for k, v in ds.get('docstore/data', {}).items():
    if isinstance(v['__data__'].get('text'), str): passages[k] = 1
idx = load('index_store.json')
table = {}
for v in idx['index_store/data'].values():
    data = v['__data__']
    data = json.loads(data) if isinstance(data, str) else data
    if v['__type__'] == 'kg':
        for kw, ids in data['table'].items(): table.setdefault(kw, []).extend(ids)
g = load('property_graph_store.json')
if g:
    for k, n in g['nodes'].items():
        if n['label'] == 'text_chunk': passages[k] = 1
    for k, n in g['nodes'].items():
        if k in passages: continue
        entities.add(k)
        s = n.get('properties', {}).get('triplet_source_id')
        if s in passages: edge(s, k, True)
    for s, r, o in g['triplets']:
        rel = g['relations'].get(s + '_' + r + '_' + o) or g['relations'][r]
        edge(s, o, rel['properties'].get('triplet_source_id') in passages)
kg = load('graph_store.json')
if kg:
    for s, ros in kg['graph_dict'].items():
        entities.add(s)
        for r, o in ros:
            entities.add(o)
            edge(s, o, any(c in passages for c in table.get(s, []) if c in table.get(o, [])))
    for kw, ids in table.items():
        if kw in entities:
            for c in ids:
                if c in passages: edge(c, kw, True)
print(json.dumps({'passages': len(passages), 'entities': len(entities - set(passages)), 'edges': len(pairs), 'nosource': sum(1 for v in pairs.values() if not v)}))
`

func TestRealStores(t *testing.T) {
	for _, c := range sharedtest.Cases(t, "llamaindex-") {
		t.Run(filepath.Base(c), func(t *testing.T) {
			ents, _ := os.ReadDir(c)
			var dir string
			for _, e := range ents {
				if e.IsDir() {
					dir = filepath.Join(c, e.Name())
				}
			}
			var want struct{ Passages, Entities, Edges, Nosource int }
			sharedtest.RunPython(t, pyCounts, &want, dir)
			if !Looks(dir) {
				t.Fatal("not detected")
			}
			st, err := Open(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			var p, e, ns int
			for _, n := range st.Nodes {
				if n.Kind == storemodel.KindPassage {
					p++
				} else {
					e++
				}
			}
			for _, ed := range st.Edges {
				if len(ed.Sources) == 0 {
					ns++
				}
			}
			if p != want.Passages || e != want.Entities || len(st.Edges) != want.Edges || ns != want.Nosource {
				t.Fatalf("passages %d entities %d edges %d no-source %d; python %+v (notes %q)", p, e, len(st.Edges), ns, want, st.Notes)
			}
			t.Logf("%+v notes %q", want, st.Notes)
		})
	}
}

// pyWithConstants rewrites a persist directory's docstore and property
// graph with json.dump after putting a float NaN in a node's metadata and
// an infinity in a graph node's properties (a pandas-made metadata value
// is NaN when its cell is empty): files LlamaIndex writes and reads back.
const pyWithConstants = `
import json, sys, os
d = sys.argv[1]
p = os.path.join(d, "docstore.json")
doc = json.load(open(p))
k = next(iter(doc["docstore/data"]))
doc["docstore/data"][k]["__data__"]["metadata"]["score"] = float("nan")
json.dump(doc, open(p, "w"))
p = os.path.join(d, "property_graph_store.json")
g = json.load(open(p))
k = next(iter(g["nodes"]))
g["nodes"][k].setdefault("properties", {})["weight"] = float("-inf")
json.dump(g, open(p, "w"))
print(json.dumps({"ok": True}))
`

// TestPythonFloatConstantsRead: NaN and -Infinity in files json.dump wrote
// are read as json.load reads them (the store opens, the same counts as
// Python's), with a note saying how many were read as null.
func TestPythonFloatConstantsRead(t *testing.T) {
	_, dir := sharedtest.CopyCase(t, "llamaindex-lpg-9wang", "storage")
	var ok struct{ OK bool }
	sharedtest.RunPython(t, pyWithConstants, &ok, dir)
	var want struct{ Passages, Entities, Edges, Nosource int }
	sharedtest.RunPython(t, pyCounts, &want, dir)
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	p, e := 0, 0
	for _, n := range st.Nodes {
		if n.Kind == storemodel.KindPassage {
			p++
		} else {
			e++
		}
	}
	if p != want.Passages || e != want.Entities || len(st.Edges) != want.Edges {
		t.Errorf("passages %d entities %d edges %d; python %+v", p, e, len(st.Edges), want)
	}
	notes := strings.Join(st.Notes, "\n")
	if !strings.Contains(notes, "docstore.json: 1 NaN or Infinity") || !strings.Contains(notes, "property_graph_store.json: 1 NaN or Infinity") {
		t.Errorf("notes %q do not count the constants", st.Notes)
	}
}

// pyReencode saves a persist directory's docstore again in UTF-16 with a
// byte order mark and its graph store in UTF-8 with one (as Windows tools
// save text), then loads both as LlamaIndex does (json.load of the file
// opened "rb") to show they still load there.
const pyReencode = `
import json, sys, os
d = sys.argv[1]
for name, enc in [("docstore.json", "utf-16"), ("property_graph_store.json", "utf-8-sig")]:
    p = os.path.join(d, name)
    text = open(p, encoding="utf-8").read()
    open(p, "wb").write(text.encode(enc))
    json.load(open(p, "rb"))
print(json.dumps({"ok": True}))
`

// TestReencodedFilesRead: a persist directory whose files were saved again
// in UTF-16 and with a UTF-8 mark reads as before, with a note per file.
func TestReencodedFilesRead(t *testing.T) {
	src, dir := sharedtest.CopyCase(t, "llamaindex-lpg-9wang", "storage")
	want, err := Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	var ok struct{ OK bool }
	sharedtest.RunPython(t, pyReencode, &ok, dir)
	got, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) != len(want.Nodes) || len(got.Edges) != len(want.Edges) || len(got.Issues) != len(want.Issues) {
		t.Errorf("re-encoded: %d nodes %d edges %d issues; as written: %d, %d, %d", len(got.Nodes), len(got.Edges), len(got.Issues), len(want.Nodes), len(want.Edges), len(want.Issues))
	}
	notes := strings.Join(got.Notes, "\n")
	if !strings.Contains(notes, "docstore.json: utf-16 text") || !strings.Contains(notes, "property_graph_store.json: utf-8-sig text") {
		t.Errorf("notes %q do not name the encodings", got.Notes)
	}
}

// TestInvalidUTF8IsAFinding: a docstore with a byte that is not UTF-8,
// which LlamaIndex's json.load cannot decode (Python says so here), is
// read and flagged, naming the file and the byte.
func TestInvalidUTF8IsAFinding(t *testing.T) {
	_, dir := sharedtest.CopyCase(t, "llamaindex-lpg-9wang", "storage")
	p := filepath.Join(dir, "docstore.json")
	at := sharedtest.BreakUTF8(t, p, `"text": "`, []byte{0xff}, `open(sys.argv[1], "rb")`)
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, is := range st.Issues {
		found = found || is.Code == finding.StoreParseDifferential && strings.HasSuffix(is.File, "docstore.json") && is.Subject == fmt.Sprintf("byte %d", at)
	}
	if !found {
		t.Errorf("no finding naming docstore.json byte %d: %+v", at, st.Issues)
	}
}
