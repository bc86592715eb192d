package storetimeline

import (
	"context"
	"testing"

	"github.com/memscope/memscope/internal/readers/mem0vec"
	"github.com/memscope/memscope/internal/sharedtest"
)

// A real Mem0 vector store without history: its timeline is its points in
// the order of their own payload times, one event per point, as Python
// orders the created_at/updated_at keys of embedding_metadata.
func TestVectorStoreTimeline(t *testing.T) {
	c := sharedtest.Case(t, "mem0-chroma-memoria")
	var want []string
	sharedtest.RunPython(t, `
import sys, json, sqlite3, datetime
c = sqlite3.connect('file:' + sys.argv[1] + '/mem0_db/chroma.sqlite3?mode=ro', uri=True)
rows = c.execute("""SELECT e.embedding_id, COALESCE(u.string_value, cr.string_value) FROM embeddings e
  JOIN segments s ON s.id = e.segment_id AND s.scope = 'METADATA' JOIN collections k ON k.id = s.collection AND k.name != 'mem0migrations'
  LEFT JOIN embedding_metadata u ON u.id = e.id AND u.key = 'updated_at' LEFT JOIN embedding_metadata cr ON cr.id = e.id AND cr.key = 'created_at'
  ORDER BY e.id""").fetchall()
rows.sort(key=lambda r: datetime.datetime.fromisoformat(r[1]))
print(json.dumps([r[0] for r in rows]))
`, &want, c)
	st, err := mem0vec.Open(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	tl := Build(st)
	if !tl.Timed || len(tl.Events) != len(want) {
		t.Fatalf("timed %v, %d events; python %d", tl.Timed, len(tl.Events), len(want))
	}
	for i, e := range tl.Events {
		if e.Kind != "vector point" || e.Subject != want[i] {
			t.Fatalf("event %d %+v, python %s", i, e, want[i])
		}
	}
}
