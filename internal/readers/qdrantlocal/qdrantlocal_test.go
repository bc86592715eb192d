package qdrantlocal

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pyPoints reads every collection of a local-mode location with Python's
// own pickle (an Unpickler that builds PointStruct as a plain holder of
// its __dict__ and refuses any other global) and sqlite3, as
// qdrant_client/local/persistence.py load() does: SELECT point FROM points.
const pyPoints = `
import sys, json, sqlite3, pickle, io, os, hashlib
class Model:
    def __setstate__(self, st):
        self.f = st.get('__dict__', st)
class U(pickle.Unpickler):
    def find_class(self, m, n):
        if m == 'qdrant_client.http.models.models' and n in ('PointStruct', 'SparseVector'):
            return Model
        raise pickle.UnpicklingError(m + '.' + n)
loc = sys.argv[1]
meta = json.load(open(os.path.join(loc, 'meta.json')))
out = []
for name in sorted(meta['collections']):
    db = os.path.join(loc, 'collection', name, 'storage.sqlite')
    if not os.path.exists(db):
        continue
    c = sqlite3.connect('file:' + db + '?mode=ro', uri=True)
    for (blob,) in c.execute('SELECT point FROM points ORDER BY rowid'):
        f = U(io.BytesIO(blob)).load().f
        pl = f.get('payload') or {}
        v = f.get('vector')
        out.append({'id': str(f['id']), 'collection': name, 'data': pl.get('data'), 'hash': pl.get('hash'),
                    'dims': len(v) if isinstance(v, list) else 0, 'keys': list(pl)})
print(json.dumps(out))
`

type pyPoint struct {
	ID, Collection string
	Data, Hash     *string
	Dims           int
	Keys           []string
}

func TestRealStores(t *testing.T) {
	for _, c := range sharedtest.Cases(t, "mem0-qdrant-") {
		t.Run(filepath.Base(c), func(t *testing.T) {
			var loc string
			filepath.WalkDir(c, func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Name() == metaFile {
					loc = filepath.Dir(p)
				}
				return nil
			})
			got, ok := Locate(loc)
			if !ok || got != loc {
				t.Fatalf("Locate(%s) = %q, %v", loc, got, ok)
			}
			var want []pyPoint
			sharedtest.RunPython(t, pyPoints, &want, loc)
			st := &storemodel.Store{}
			if err := Read(context.Background(), loc, st); err != nil {
				t.Fatal(err)
			}
			if len(st.Issues) != 0 {
				t.Errorf("issues on an untouched store: %+v", st.Issues)
			}
			if len(st.Vectors) != len(want) {
				t.Fatalf("%d points, python reads %d", len(st.Vectors), len(want))
			}
			for i, w := range want {
				g := st.Vectors[i]
				if g.ID != w.ID || g.Collection != w.Collection || g.Dims != w.Dims || g.HasText != (w.Data != nil) || g.HasHash != (w.Hash != nil) {
					t.Fatalf("point %d: got %+v, python %+v", i, g, w)
				}
				if w.Data != nil && g.Text != *w.Data || w.Hash != nil && g.Hash != *w.Hash {
					t.Fatalf("point %d: text/hash %q/%q, python %q/%q", i, g.Text, g.Hash, *w.Data, *w.Hash)
				}
				if len(g.Payload) != len(w.Keys) {
					t.Fatalf("point %d: %d payload keys, python %v", i, len(g.Payload), w.Keys)
				}
				for j, k := range w.Keys {
					if g.Payload[j].Key != k {
						t.Fatalf("point %d: payload key %d %q, python %q", i, j, g.Payload[j].Key, k)
					}
				}
			}
		})
	}
}
