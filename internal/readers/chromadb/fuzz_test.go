package chromadb

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// schema is the part of Chroma 1.x's schema the reader uses (migrations
// sysdb 1-10, metadb 1-6, embeddings_queue 1, as the real stores hold it).
const schema = `
CREATE TABLE collections (id TEXT PRIMARY KEY, name TEXT NOT NULL, dimension INTEGER, database_id TEXT NOT NULL, config_json_str TEXT, schema_str TEXT);
CREATE TABLE segments (id TEXT PRIMARY KEY, type TEXT NOT NULL, scope TEXT NOT NULL, collection TEXT NOT NULL);
CREATE TABLE embeddings (id INTEGER PRIMARY KEY, segment_id TEXT NOT NULL, embedding_id TEXT NOT NULL, seq_id BLOB NOT NULL, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, UNIQUE (segment_id, embedding_id));
CREATE TABLE embedding_metadata (id INTEGER REFERENCES embeddings(id), key TEXT NOT NULL, string_value TEXT, int_value INTEGER, float_value REAL, bool_value INTEGER, PRIMARY KEY (id, key));
CREATE TABLE embedding_metadata_array (id INTEGER NOT NULL, key TEXT NOT NULL, string_value TEXT, int_value INTEGER, float_value REAL, bool_value INTEGER);
CREATE TABLE embeddings_queue (seq_id INTEGER PRIMARY KEY, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, operation INTEGER NOT NULL, topic TEXT NOT NULL, id TEXT NOT NULL, vector BLOB, encoding TEXT, metadata TEXT);
INSERT INTO collections VALUES ('c1', 'mem0', 4, 'db', '{}', '{}');
INSERT INTO segments VALUES ('s1', 'urn:chroma:segment/metadata/sqlite', 'METADATA', 'c1');
`

// FuzzRead builds a Chroma database from fuzzed cells (a metadata value
// that may be text, an integer, a real or a blob under any key, a vector
// of any length and encoding, an array element) and reads it.
func FuzzRead(f *testing.F) {
	f.Add("data", "likes tea", int64(0), 0.0, []byte{0, 0, 128, 63, 0, 0, 0, 64}, "FLOAT32", "hash")
	f.Add("hash", "", int64(7), 2.5, []byte{1, 2, 3}, "INT8", "data")
	f.Fuzz(func(t *testing.T, key, str string, iv int64, fv float64, vec []byte, enc, arrKey string) {
		path := filepath.Join(t.TempDir(), DBFile)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(schema); err != nil {
			t.Fatal(err)
		}
		stmts := []struct {
			q    string
			args []any
		}{
			{`INSERT INTO embeddings VALUES (1, 's1', 'e1', x'01', '2026-01-01')`, nil},
			{`INSERT INTO embedding_metadata VALUES (1, ?, ?, NULL, NULL, NULL)`, []any{key, str}},
			{`INSERT OR IGNORE INTO embedding_metadata VALUES (1, ?, NULL, ?, ?, 1)`, []any{key + "2", iv, fv}},
			{`INSERT OR IGNORE INTO embedding_metadata VALUES (1, 'blob', ?, NULL, NULL, NULL)`, []any{vec}},
			{`INSERT INTO embedding_metadata_array VALUES (1, ?, ?, ?, NULL, NULL)`, []any{arrKey, str, iv}},
			{`INSERT INTO embeddings_queue VALUES (1, '2026-01-01', 0, 'persistent://default/default/c1', 'e1', ?, ?, NULL)`, []any{vec, enc}},
		}
		for _, s := range stmts {
			if _, err := db.Exec(s.q, s.args...); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		st := &storemodel.Store{}
		if err := Read(context.Background(), path, st); err != nil {
			t.Fatal(err)
		}
		if len(st.Vectors) != 1 {
			t.Fatalf("%d records", len(st.Vectors))
		}
		if v := st.Vectors[0]; key == "data" && (!v.HasText || v.Text != str) {
			t.Fatalf("data %q read as %+v", str, v)
		}
	})
}
