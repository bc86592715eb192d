package storediff

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/mem0vec"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pyVectorDiff compares two copies of a Chroma-backed Mem0 store with
// Python's sqlite3: embedding ids added and removed, and ids whose data
// changed (telemetry collection left out).
const pyVectorDiff = `
import sys, json, sqlite3
def pts(db):
    c = sqlite3.connect('file:' + db + '?mode=ro', uri=True)
    q = """SELECT e.embedding_id, m.string_value FROM embeddings e JOIN segments s ON s.id = e.segment_id AND s.scope = 'METADATA'
           JOIN collections c ON c.id = s.collection AND c.name != 'mem0migrations'
           LEFT JOIN embedding_metadata m ON m.id = e.id AND m.key = 'data'"""
    return dict(c.execute(q).fetchall())
a, b = pts(sys.argv[1]), pts(sys.argv[2])
print(json.dumps({'added': len(set(b) - set(a)), 'removed': len(set(a) - set(b)), 'changed': sum(1 for k in set(a) & set(b) if a[k] != b[k])}))
`

func TestVectorDiffRealCopies(t *testing.T) {
	a := sharedtest.Case(t, "mem0-chroma-pastoral-7")
	b := sharedtest.Case(t, "mem0-chroma-pastoral-20")
	var want struct{ Added, Removed, Changed int }
	sharedtest.RunPython(t, pyVectorDiff, &want, filepath.Join(a, "mem0_db", "chroma.sqlite3"), filepath.Join(b, "mem0_db", "chroma.sqlite3"))
	sa, err := mem0vec.Open(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := mem0vec.Open(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Diff(sa, sb)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, v := range r.Vectors {
		got[v.Change]++
	}
	if got[Added] != want.Added || got[Removed] != want.Removed || got[Changed] != want.Changed || want.Added == 0 {
		t.Fatalf("diff %v, python %+v", got, want)
	}
}
