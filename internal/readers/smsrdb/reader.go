package smsrdb

import "github.com/memscope/memscope/internal/readers/storemodel"

// Reader registers SMSR memory databases.
var Reader = storemodel.Reader{
	Format: storemodel.SMSR, Name: "SMSR", Looks: Looks, Open: Open,
	Holds: storemodel.HoldsTaggedRows,
	Refuses: map[storemodel.Command]string{
		storemodel.CmdDiff: "SMSR stores keep no history or graph to compare between two copies: each row stands alone; run verify --hmac-key on each copy",
	},
}
