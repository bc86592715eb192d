package mcpmem

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pyCounts reads a server file as loadGraph does, in Python: split on
// "\n", skip blank lines, json.loads each (last duplicate key wins, as in
// JSON.parse), keep type entity/relation; then counts distinct entity
// names, observations, distinct relations and distinct entity pairs.
const pyCounts = `
import sys, json
text = open(sys.argv[1], encoding='utf-8', errors='replace').read()
ents, obs, rels, pairs, extra = [], 0, set(), set(), 0
for line in text.split('\n'):
    if not line.strip():
        continue
    item = json.loads(line)
    if item.get('type') == 'entity':
        ents.append(item['name']); obs += len(item['observations'])
        extra += bool(set(item) - {'type', 'name', 'entityType', 'observations'})
    elif item.get('type') == 'relation':
        rels.add((item['from'], item['to'], item['relationType']))
        if item['from'] != item['to']:
            pairs.add(tuple(sorted(('entity:' + item['from'], 'entity:' + item['to']))))
        extra += bool(set(item) - {'type', 'from', 'to', 'relationType'})
names = set(ents) | {e for r in rels for e in r[:2]}
print(json.dumps({'entities': len(names), 'observations': obs, 'relations': len(rels), 'pairs': len(pairs), 'extra': extra, 'dups': len(ents) - len(set(ents))}))
`

func TestRealStores(t *testing.T) {
	for _, c := range sharedtest.Cases(t, "mcpmem-") {
		files, _ := filepath.Glob(filepath.Join(c, "*.json*"))
		more, _ := filepath.Glob(filepath.Join(c, "memory", "*.jsonl"))
		for _, f := range append(files, more...) {
			t.Run(filepath.Base(c)+"/"+filepath.Base(f), func(t *testing.T) {
				var want struct{ Entities, Observations, Relations, Pairs, Extra, Dups int }
				sharedtest.RunPython(t, pyCounts, &want, f)
				if !Looks(f) {
					t.Fatal("not detected")
				}
				st, err := Open(context.Background(), f)
				if err != nil {
					t.Fatal(err)
				}
				var ents, obs, rel int
				for _, n := range st.Nodes {
					if n.Kind == storemodel.KindEntity {
						ents++
					} else {
						obs++
					}
				}
				for _, e := range st.Edges {
					if e.Kind == storemodel.EdgeRelation {
						rel++
						if len(e.Sources) != 0 {
							t.Fatal("a relation with a declared source")
						}
					}
				}
				if ents != want.Entities || obs != want.Observations || rel != want.Pairs || len(st.Edges) != want.Pairs+want.Observations || len(st.Issues) != want.Dups {
					t.Fatalf("entities %d observations %d relation edges %d edges %d issues %v; python %+v", ents, obs, rel, len(st.Edges), st.Issues, want)
				}
				if (want.Extra > 0) != strings.Contains(strings.Join(st.Notes, "\n"), "52ab84cd") {
					t.Fatalf("extra-key lines %d, notes %q", want.Extra, st.Notes)
				}
			})
		}
	}
	// The directory form finds memory.jsonl or memory.json.
	dir := filepath.Join(sharedtest.RealStores(t), "mcpmem-vfarcic-nuscripts")
	if p, ok := Locate(dir); !ok || filepath.Base(p) != "memory.json" {
		t.Fatalf("Locate(%s) = %q, %v", dir, p, ok)
	}
}

// TestLoadGraphRules: the rules JSON.parse and loadGraph apply that a
// struct decoder would get wrong.
func TestLoadGraphRules(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"entity","name":"A","entityType":"t","observations":["x"],"name":"B"}`, // last duplicate wins: B
		`{"type":"entity","Name":"C","name":"D","entityType":"t","observations":[]}`,    // case-sensitive: D
		`{"type":"Entity","name":"E","entityType":"t","observations":[]}`,               // not type "entity": skipped
		"\u00a0\r", // JS trim() empties it: skipped
		`[1,2]`,    // no .type: skipped
		`{"type":"relation","from":"B","to":"Z","relationType":"r","extra":1}`, // dangling, extra key
		`{"type":"relation","from":"B","to":"Z","relationType":"r"}`,           // duplicate
		`not json`,
		`null`,
	}, "\n")
	g := Parse([]byte(in), "memory.jsonl")
	if len(g.Entities) != 2 || g.Entities[0].Name != "B" || g.Entities[1].Name != "D" || g.Ignored != 2 || g.Extra != 2 || len(g.Relations) != 2 || len(g.Issues) != 2 {
		t.Fatalf("%+v", g)
	}
	st := &storemodel.Store{}
	Build(g, "memory.jsonl", st)
	if len(st.Nodes) != 4 || len(st.Edges) != 2 || len(st.Issues) != 2 {
		t.Fatalf("nodes %+v edges %+v issues %+v", st.Nodes, st.Edges, st.Issues)
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"testdata/seed-legacy.jsonl", "testdata/seed-fixed.jsonl"} {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g := Parse(b, "f")
		Build(g, "f", &storemodel.Store{})
	})
}
