package graphrag

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers GraphRAG output directories.
var Reader = storemodel.Reader{
	Format: storemodel.GraphRAG, Name: "GraphRAG", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsGraph,
}
