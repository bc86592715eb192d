package chromadb

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pyRecords lists each collection's records with Python's sqlite3: the
// embeddings of the collection's METADATA segment, their metadata keys,
// data, hash and vector length from the queue.
const pyRecords = `
import sys, json, sqlite3
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
out = []
for cid, name, seg in c.execute("SELECT c.id, c.name, s.id FROM collections c JOIN segments s ON s.collection = c.id AND s.scope = 'METADATA' ORDER BY c.name, s.id").fetchall():
    for rid, eid in c.execute('SELECT id, embedding_id FROM embeddings WHERE segment_id = ? ORDER BY id', (seg,)).fetchall():
        md = dict(c.execute('SELECT key, string_value FROM embedding_metadata WHERE id = ?', (rid,)).fetchall())
        v = c.execute("SELECT vector FROM embeddings_queue WHERE id = ? AND topic LIKE ? ORDER BY seq_id DESC LIMIT 1", (eid, '%' + cid)).fetchone()
        out.append({'id': eid, 'collection': name, 'data': md.get('data'), 'hash': md.get('hash'), 'keys': len(md), 'dims': len(v[0]) // 4 if v and v[0] else 0})
print(json.dumps(out))
`

func TestRealStores(t *testing.T) {
	for _, c := range sharedtest.Cases(t, "mem0-chroma-") {
		t.Run(filepath.Base(c), func(t *testing.T) {
			db, ok := Locate(filepath.Join(c, "mem0_db"))
			if !ok {
				t.Fatal("not located")
			}
			var want []struct {
				ID, Collection string
				Data, Hash     *string
				Keys, Dims     int
			}
			sharedtest.RunPython(t, pyRecords, &want, db)
			st := &storemodel.Store{}
			if err := Read(context.Background(), db, st); err != nil {
				t.Fatal(err)
			}
			if len(st.Issues) != 0 || len(st.Vectors) != len(want) {
				t.Fatalf("%d records, %d issues; python %d records", len(st.Vectors), len(st.Issues), len(want))
			}
			for i, w := range want {
				g := st.Vectors[i]
				if g.ID != w.ID || g.Collection != w.Collection || len(g.Payload) != w.Keys || g.Dims != w.Dims ||
					(w.Data != nil) != g.HasText || w.Data != nil && *w.Data != g.Text || (w.Hash != nil) != g.HasHash || w.Hash != nil && *w.Hash != g.Hash {
					t.Fatalf("record %d: got %+v, python %+v", i, g, w)
				}
			}
		})
	}
}
