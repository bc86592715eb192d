package llamaindex

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers LlamaIndex persist directories.
var Reader = storemodel.Reader{
	Format: Format, Name: "LlamaIndex", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsGraph,
}
