//go:build ignore

// gen_parquet writes the vdb_*.parquet files of the fixture stores from
// embeddings.json (written by make_fixtures.py), with the columns of
// HippoRAG 2's src/hipporag/embedding_store.py EmbeddingStore._save_data:
// pd.DataFrame({"hash_id", "content", "embedding"}).to_parquet(), i.e.
// string, string, list<float>. HippoRAG writes them with pandas + pyarrow;
// Debian has no pyarrow, so this uses parquet-go.
//
//	go run gen_parquet.go
package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	HashID    string    `parquet:"hash_id"`
	Content   string    `parquet:"content"`
	Embedding []float32 `parquet:"embedding,list"`
}

func main() {
	b, err := os.ReadFile("embeddings.json")
	if err != nil {
		panic(err)
	}
	var in map[string][][3]json.RawMessage
	if err := json.Unmarshal(b, &in); err != nil {
		panic(err)
	}
	var wd string
	var exp struct {
		Workdir string `json:"workdir"`
	}
	eb, err := os.ReadFile("expected.json")
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(eb, &exp); err != nil {
		panic(err)
	}
	wd = exp.Workdir
	for _, store := range []string{"clean", "poisoned"} {
		for ns, rows := range in {
			var out []row
			for _, r := range rows {
				var x row
				if err := json.Unmarshal(r[0], &x.HashID); err != nil {
					panic(err)
				}
				if err := json.Unmarshal(r[1], &x.Content); err != nil {
					panic(err)
				}
				if err := json.Unmarshal(r[2], &x.Embedding); err != nil {
					panic(err)
				}
				out = append(out, x)
			}
			dir := filepath.Join(store, wd, ns+"_embeddings")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				panic(err)
			}
			f, err := os.Create(filepath.Join(dir, "vdb_"+ns+".parquet"))
			if err != nil {
				panic(err)
			}
			w := parquet.NewGenericWriter[row](f, parquet.Compression(&parquet.Snappy))
			if _, err := w.Write(out); err != nil {
				panic(err)
			}
			if err := w.Close(); err != nil {
				panic(err)
			}
			f.Close()
		}
	}
}
