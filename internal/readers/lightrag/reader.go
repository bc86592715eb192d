package lightrag

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers LightRAG (and nano-graphrag) working directories.
var Reader = storemodel.Reader{
	Format: storemodel.LightRAG, Name: "LightRAG", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsGraph,
}
