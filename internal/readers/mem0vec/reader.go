package mem0vec

import (
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Reader registers a Mem0 directory with its vector store. Its findings
// are the history's (version chains, messages) and the reconciliation's.
var Reader = storemodel.Reader{
	Format: Format, Name: "Mem0 (vector store and history)", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsHistory,
	Findings: func(st *storemodel.Store) []finding.Finding {
		fs := mem0db.Reader.Findings(st)
		_, rf := Reconcile(st)
		return append(fs, rf...)
	},
}
