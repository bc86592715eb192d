package hipporag

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/parquetcols"
	"github.com/memscope/memscope/internal/readers/storefile"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

// readEntityEmbeddings reads entity_embeddings/vdb_entity.parquet
// (embedding_store.py EmbeddingStore._save_data: hash_id, content,
// embedding) when it is there; nil when it is absent or unreadable (the
// store is still analysed, and the reason is an issue or a note).
func readEntityEmbeddings(ctx context.Context, workDir string, st *storemodel.Store) map[string][]float32 {
	path := filepath.Join(workDir, "entity_embeddings", "vdb_entity.parquet")
	if _, err := os.Stat(path); err != nil {
		st.Notes = append(st.Notes, "entity_embeddings/vdb_entity.parquet is absent: synonym edges cannot be told from injected entity pairs")
		return nil
	}
	bad := func(err error) map[string][]float32 {
		st.Issues = append(st.Issues, storemodel.Issue{Code: finding.StoreRecordMalformed, File: path, Subject: "vdb_entity.parquet",
			Message: fmt.Sprintf("%v; synonym edges not checked", err)})
		return nil
	}
	b, f, err := storefile.ReadAll(ctx, path, "entity embeddings (parquet)", storefile.MaxParquet)
	if err != nil {
		return bad(err)
	}
	st.Files = append(st.Files, f)
	pf, err := parquetcols.Open(path, b)
	if err != nil {
		return bad(err)
	}
	ids, err := pf.Strings(ctx, "hash_id")
	if err != nil {
		return bad(err)
	}
	vecs, err := pf.FloatLists(ctx, "embedding")
	if err != nil {
		return bad(err)
	}
	out := make(map[string][]float32, len(ids))
	for i, id := range ids {
		out[id] = vecs[i]
	}
	return out
}
