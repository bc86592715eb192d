package smsrdb

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers SMSR memory databases.
var Reader = storemodel.Reader{
	Format: storemodel.SMSR, Name: "SMSR", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsTaggedRows,
}
