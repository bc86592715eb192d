package mem0vec

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/sharedtest"
)

// TestRealStores: every real Mem0 vector store opens; its point count is
// Python's (sqlite3 COUNT of points / embeddings of the METADATA segments,
// telemetry included); an untouched store has no error and no warning
// beyond STORE_UNSIGNED's, and without history says reconciliation was
// not checked.
func TestRealStores(t *testing.T) {
	const pyCount = `
import sys, json, sqlite3, glob, os
n = 0
for db in glob.glob(os.path.join(sys.argv[1], '**', 'storage.sqlite'), recursive=True):
    n += sqlite3.connect('file:' + db + '?mode=ro', uri=True).execute('SELECT COUNT(*) FROM points').fetchone()[0]
for db in glob.glob(os.path.join(sys.argv[1], '**', 'chroma.sqlite3'), recursive=True):
    n += sqlite3.connect('file:' + db + '?mode=ro', uri=True).execute("SELECT COUNT(*) FROM embeddings e JOIN segments s ON s.id = e.segment_id AND s.scope = 'METADATA'").fetchone()[0]
h = glob.glob(os.path.join(sys.argv[1], '**', '*history.db'), recursive=True)
print(json.dumps({'points': n, 'history': len(h)}))
`
	cases := append(sharedtest.Cases(t, "mem0-qdrant-"), sharedtest.Cases(t, "mem0-chroma-")...)
	for _, c := range cases {
		t.Run(filepath.Base(c), func(t *testing.T) {
			var want struct{ Points, History int }
			sharedtest.RunPython(t, pyCount, &want, c)
			st, err := Open(context.Background(), storeDir(t, c))
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Vectors) != want.Points || (st.VectorStore.History != "") != (want.History == 1) {
				t.Fatalf("%d points, history %q; python %+v", len(st.Vectors), st.VectorStore.History, want)
			}
			_, fs := Reconcile(st)
			e, w, _ := finding.Count(fs)
			if e+w != 0 || len(st.Issues) != 0 {
				t.Fatalf("untouched store: %+v %+v", fs, st.Issues)
			}
			if want.History == 0 && (len(fs) != 1 || fs[0].Code != finding.Mem0ReconcileNotChecked) {
				t.Fatalf("no history, findings %+v", fs)
			}
		})
	}
}

func TestReconcile(t *testing.T) {
	src := filepath.Join(sharedtest.RealStores(t), "mem0-qdrant-mikolgi-empty", "data")
	dir := filepath.Join(t.TempDir(), "data")
	plant, err := os.ReadFile("../../../testdata/mem0vec/plant.py")
	if err != nil {
		t.Fatal(err)
	}
	var none struct{}
	sharedtest.RunPython(t, string(plant), &none, src, dir)
	st, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	states, fs := Reconcile(st)
	if len(states) != 6 {
		t.Fatalf("%d memories, want a..f", len(states))
	}
	var got []string
	for _, f := range fs {
		got = append(got, strings.TrimPrefix(f.Subject, "memory ")+" "+string(f.Code))
	}
	sort.Strings(got)
	want := []string{"b MEM0_VECTOR_NOT_IN_HISTORY", "c MEM0_DELETED_STILL_RETRIEVABLE", "d MEM0_VECTOR_TEXT_DIFFERS", "e MEM0_VECTOR_HASH_MISMATCH", "f MEM0_MEMORY_NOT_IN_VECTOR_STORE"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if e, _, _ := finding.Count(fs); e != 4 {
		t.Fatalf("%d errors, want 4 (b, c, d, e)", e)
	}
}

// storeDir is the directory a responder would name: the one holding the
// vector store (Qdrant's meta.json location or chroma's directory).
func storeDir(t *testing.T, c string) string {
	var dir string
	filepath.WalkDir(c, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.Name() == "meta.json" || d.Name() == "chroma.sqlite3") {
			dir = filepath.Dir(filepath.Dir(p))
		}
		return nil
	})
	if dir == "" {
		t.Fatalf("no vector store in %s", c)
	}
	return dir
}

// A Qdrant location another application wrote (collection "docs", points
// without Mem0's data and hash) and no history beside it is not taken for
// a Mem0 store; the same location with Mem0's payload is.
func TestOnlyMem0VectorStoresClaimed(t *testing.T) {
	const mk = `
import sys, os, json, sqlite3, pickle, base64, types
loc, key = sys.argv[1], sys.argv[2]
for name in ('qdrant_client', 'qdrant_client.http', 'qdrant_client.http.models', 'qdrant_client.http.models.models'):
    sys.modules[name] = types.ModuleType(name)
mod = sys.modules['qdrant_client.http.models.models']
class PointStruct: pass
PointStruct.__module__ = mod.__name__
mod.PointStruct = PointStruct
os.makedirs(os.path.join(loc, 'collection', 'docs'))
json.dump({'collections': {'docs': {'vectors': {'size': 2, 'distance': 'Cosine'}}}, 'aliases': {}}, open(os.path.join(loc, 'meta.json'), 'w'))
c = sqlite3.connect(os.path.join(loc, 'collection', 'docs', 'storage.sqlite'))
c.execute('CREATE TABLE points (id TEXT PRIMARY KEY, point BLOB)')
p = PointStruct(); p.__dict__.update(id='p1', vector=[0.1, 0.2], payload={key: 'a page', 'hash': 'x'} if key == 'data' else {key: 'a page'})
c.execute('INSERT INTO points VALUES (?, ?)', (base64.b64encode(pickle.dumps('p1')).decode(), pickle.dumps(p)))
c.commit()
print('{}')
`
	for key, want := range map[string]bool{"text": false, "data": true} {
		dir := t.TempDir()
		var none struct{}
		sharedtest.RunPython(t, mk, &none, filepath.Join(dir, "qdrant"), key)
		if got := Looks(dir); got != want {
			t.Errorf("payload key %q: claimed %v, want %v", key, got, want)
		}
	}
}
