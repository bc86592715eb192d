package mcpmem

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers the MCP memory server's memory.jsonl (memory.json).
var Reader = storemodel.Reader{
	Format: Format, Name: "MCP memory server", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsGraph,
}
