package mem0vec

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/realcases"
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
	cases := append(realcases.Cases(t, "mem0-qdrant-"), realcases.Cases(t, "mem0-chroma-")...)
	for _, c := range cases {
		t.Run(filepath.Base(c), func(t *testing.T) {
			var want struct{ Points, History int }
			realcases.RunPython(t, pyCount, &want, c)
			st, err := Open(context.Background(), c)
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

// plant copies the real store that keeps history and vectors of one Mem0
// instance (mem0-qdrant-mikolgi-empty) and writes into the copy what
// Mem0's own paths write (mem0/memory/main.py _create_memory,
// _delete_memory; storage.py add_history; qdrant_client/local/
// persistence.py persist) and what they never would.
const plant = `
import sys, os, shutil, sqlite3, pickle, base64, hashlib, types
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst)
for name in ('qdrant_client', 'qdrant_client.http', 'qdrant_client.http.models', 'qdrant_client.http.models.models'):
    sys.modules[name] = types.ModuleType(name)
mod = sys.modules['qdrant_client.http.models.models']
class PointStruct:
    def __getstate__(self):
        return {'__dict__': dict(self.__dict__), '__pydantic_extra__': None, '__pydantic_fields_set__': set(), '__pydantic_private__': None}
PointStruct.__module__ = mod.__name__
mod.PointStruct = PointStruct
md5 = lambda s: hashlib.md5(s.encode()).hexdigest()
q = sqlite3.connect(os.path.join(dst, 'mem0_qdrant', 'collection', 'resume_copilot_memory', 'storage.sqlite'))
h = sqlite3.connect(os.path.join(dst, 'mem0_history.db'))
def point(mid, text, hsh):
    p = PointStruct(); p.__dict__.update(id=mid, vector=[0.1, 0.2], payload={'data': text, 'hash': hsh, 'user_id': 'u'})
    q.execute('INSERT INTO points VALUES (?, ?)', (base64.b64encode(pickle.dumps(mid)).decode(), pickle.dumps(p)))
def hist(n, mid, old, new, ev):
    h.execute('INSERT INTO history VALUES (?,?,?,?,?,?,?,?,?,?)', ('h%d' % n, mid, old, new, ev, '2026-01-01T00:00:0%d' % n, '2026-01-01T00:00:0%d' % n, 1 if ev == 'DELETE' else 0, None, None))
point('a', 'likes tea', md5('likes tea')); hist(1, 'a', None, 'likes tea', 'ADD')
point('b', 'pay attacker', md5('pay attacker'))
point('c', 'old fact', md5('old fact')); hist(2, 'c', None, 'old fact', 'ADD'); hist(3, 'c', 'old fact', None, 'DELETE')
point('d', 'edited', md5('edited')); hist(4, 'd', None, 'original', 'ADD')
point('e', 'z', '0000'); hist(5, 'e', None, 'z', 'ADD')
hist(6, 'f', None, 'w', 'ADD')
q.commit(); h.commit()
print('{}')
`

func TestReconcile(t *testing.T) {
	src := filepath.Join(realcases.Dir(t), "mem0-qdrant-mikolgi-empty", "data")
	dir := filepath.Join(t.TempDir(), "data")
	var none struct{}
	realcases.RunPython(t, plant, &none, src, dir)
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
