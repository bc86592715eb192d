package qdrantlocal

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// pyCollections is what QdrantLocal._load iterates: meta["collections"]
// after json.load (qdrant_client/local/qdrant_local.py).
const pyCollections = `
import json, sys
out = []
for b in json.loads(sys.argv[1]):
    try:
        out.append(sorted(json.loads(b)["collections"].keys()))
    except Exception:
        out.append(None)
print(json.dumps(out))
`

// TestMetaCollectionsReadAsJSONLoad: meta.json files whose names differ
// from "collections" only in case, or repeat, name the collections
// Python's json names, not the ones encoding/json's struct decoding would
// (which matched Collections too and merged the two).
func TestMetaCollectionsReadAsJSONLoad(t *testing.T) {
	metas := []string{
		`{"collections":{"mem0":{}},"Collections":{"smuggled":{}}}`,
		`{"Collections":{"smuggled":{}},"collections":{"mem0":{}}}`,
		`{"collections":{"first":{}},"collections":{"second":{}}}`,
		`{"collections":{"a":{},"a":{"x":1},"b":{}}}`,
		`{"collectionſ":{"smuggled":{}},"collections":{"mem0":{}}}`,
		`{"\u0063ollections":{"escaped":{}}}`,
		`{"COLLECTIONS":{"smuggled":{}}}`,
	}
	arg, _ := json.Marshal(metas)
	var want [][]string
	sharedtest.RunPython(t, pyCollections, &want, string(arg))
	for i, m := range metas {
		cols, err := metaCollections([]byte(m))
		var got []string
		for n := range cols {
			got = append(got, n)
		}
		slices.Sort(got)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if (want[i] == nil) != (cols == nil) || !slices.Equal(got, want[i]) {
			t.Errorf("%s: memscope reads collections %q, Python %q", m, got, want[i])
		}
	}
}
