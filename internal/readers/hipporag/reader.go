package hipporag

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers HippoRAG 2 stores (package stores' registry).
var Reader = storemodel.Reader{
	Format: storemodel.HippoRAG, Name: "HippoRAG 2", Looks: Looks, Open: Open,
	Holds:           storemodel.HoldsGraph,
	QueryEmbeddings: true,
	ReplayNote:      "HippoRAG 2's own selection (PPR, damping 0.5, prpack semantics) on G and on G_auth; the LLM recognition filter that picks the seed facts is not reproduced: seeds come from --queries (reset vectors, or query embeddings scored against the stored fact and passage embeddings)",
}
