package mem0db

import (
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Reader registers Mem0 history databases. Its findings are the version
// chains' and the messages table's, so every output shows the same ones.
var Reader = storemodel.Reader{
	Format: storemodel.Mem0, Name: "Mem0", Looks: Looks, Open: Open,
	Holds:    storemodel.HoldsHistory,
	Findings: storeFindings,
}

func storeFindings(st *storemodel.Store) []finding.Finding {
	_, fs := Chains(st)
	return append(fs, MessageFindings(st)...)
}
