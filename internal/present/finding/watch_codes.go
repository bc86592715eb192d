package finding

// Codes of memscope watch: what a monitor learns between two rounds
// (docs/WATCH.md). A fork seen by the monitor is CHECKPOINT_FORK; a leaf
// that does not prove into the new root is INCLUSION_FAILED.
const (
	WatchCheckpointAdvanced    Code = "WATCH_CHECKPOINT_ADVANCED"
	WatchRollback              Code = "WATCH_ROLLBACK"
	WatchStateNew              Code = "WATCH_STATE_NEW"
	WitnessQuorumLost          Code = "WITNESS_QUORUM_LOST"
	WitnessQuorumMet           Code = "WITNESS_QUORUM_MET"
	WitnessCosignatureMismatch Code = "WITNESS_COSIGNATURE_MISMATCH"
	WatchSelectionFlipped      Code = "WATCH_SELECTION_FLIPPED"
)

// watchCatalogue is appended to Catalogue.
var watchCatalogue = Catalog{
	{WatchCheckpointAdvanced, FamLog, SevInfo, "the log's checkpoint advanced and is consistent with the last one the monitor verified"},
	{WatchRollback, FamLog, SevError, "the log's checkpoint is smaller than the last one the monitor verified (a rollback, or a server showing an old view)"},
	{WatchStateNew, FamLog, SevInfo, "the monitor had no state for this log: the checkpoint is trusted on first use and later rounds are checked against it"},
	{WitnessQuorumLost, FamLog, SevError, "the checkpoint's verified witness cosignatures do not meet the witness policy's quorum"},
	{WitnessQuorumMet, FamLog, SevInfo, "the checkpoint's witness cosignatures meet the policy's quorum again"},
	{WitnessCosignatureMismatch, FamLog, SevError, "a cosignature line names a policy witness's key but does not verify over this checkpoint (the witness cosigned another checkpoint, or the line is forged)"},
	{WatchSelectionFlipped, FamReplay, SevError, "a stored query's selection differs between G and G_auth after a new unauthenticated write, which is named"},
}
