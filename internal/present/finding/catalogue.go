package finding

// Codes of verify: integrity of the signed evidence.
const (
	SigInvalid             Code = "SIG_INVALID"
	WriterUnregistered     Code = "WRITER_UNREGISTERED"
	KeyOutsideValidity     Code = "KEY_OUTSIDE_VALIDITY"
	RegistrySigInvalid     Code = "REGISTRY_SIG_INVALID"
	RegistryRootUnanchored Code = "REGISTRY_ROOT_UNANCHORED"
	KeyMalformed           Code = "KEY_MALFORMED"
	RecordMalformed        Code = "RECORD_MALFORMED"
	RecordNotCanonical     Code = "RECORD_NOT_CANONICAL"
	ColumnMismatch         Code = "COLUMN_MISMATCH"
	RowMalformed           Code = "ROW_MALFORMED"
	RecordNotInLog         Code = "RECORD_NOT_IN_LOG"
	LeafWithoutRecord      Code = "LEAF_WITHOUT_RECORD"
	LeafMalformed          Code = "LEAF_MALFORMED"
	InclusionFailed        Code = "INCLUSION_FAILED"
	TileMismatch           Code = "TILE_MISMATCH"
	CheckpointSigInvalid   Code = "CHECKPOINT_SIG_INVALID"
	CheckpointUnanchored   Code = "CHECKPOINT_UNANCHORED"
	CheckpointFork         Code = "CHECKPOINT_FORK"
	LogRollback            Code = "LOG_ROLLBACK"
	LogUnreadable          Code = "LOG_UNREADABLE"
	TombstonedLive         Code = "TOMBSTONED_LIVE"
	TombstoneNotInLog      Code = "TOMBSTONE_NOT_IN_LOG"
	HMACMissing            Code = "HMAC_MISSING"
	HMACWrong              Code = "HMAC_WRONG"
	GateMaterialised       Code = "GATE_MATERIALISED"
	ParentMissing          Code = "PARENT_MISSING"
	SourceMissing          Code = "SOURCE_MISSING"
	TableUnsigned          Code = "TABLE_UNSIGNED"
	RowUnsigned            Code = "ROW_UNSIGNED"
	OperatorNoAuthority    Code = "OPERATOR_NO_AUTHORITY"
	ImportNoteUnbound      Code = "IMPORT_NOTE_UNBOUND"
	// Codes of an adversarial log server, key holder or evidence (issue 23).
	LogSplitView        Code = "LOG_SPLIT_VIEW"
	SignedBeforeRevoked Code = "BACKDATED_AFTER_REVOCATION"
	AnchorFromEvidence  Code = "ANCHOR_FROM_EVIDENCE"
)

// Codes of the MWP non-formation audit (docs/EXPOSURE.md).
const (
	MWPPRLRTrace             Code = "MWP_PRLR_TRACE"
	MWPGateBypass            Code = "MWP_GATE_BYPASS"
	MWPCandidateHashMismatch Code = "MWP_CANDIDATE_HASH_MISMATCH"
	MWPNonceReuse            Code = "MWP_NONCE_REUSE"
	MWPVersionChainBroken    Code = "MWP_VERSION_CHAIN_BROKEN"
	MWPVectorResidue         Code = "MWP_VECTOR_RESIDUE"
)

// Codes of the rules a responder assumes: unique ids, tombstones that
// delete what existed and was theirs to delete, parents before children,
// clocks that run forward, weights in range.
const (
	DuplicateID            Code = "DUPLICATE_ID"
	TombstoneUnknownTarget Code = "TOMBSTONE_UNKNOWN_TARGET"
	TombstoneNoAuthority   Code = "TOMBSTONE_NO_AUTHORITY"
	TombstoneLeafMismatch  Code = "TOMBSTONE_LEAF_MISMATCH"
	ParentAfterChild       Code = "PARENT_AFTER_CHILD"
	TimeBackwards          Code = "TIME_BACKWARDS"
	RowOrder               Code = "ROW_ORDER"
	TimeAfterCheckpoint    Code = "TIME_AFTER_CHECKPOINT"
	WeightOutOfRange       Code = "WEIGHT_OUT_OF_RANGE"
	QueryUnknownNode       Code = "QUERY_UNKNOWN_NODE"
	TimeInFuture           Code = "TIME_IN_FUTURE"
)

// Codes of the snapshot file as a whole (the loader's structural checks).
const (
	SchemaNotTable         Code = "SCHEMA_NOT_TABLE"
	SchemaTableMissing     Code = "SCHEMA_TABLE_MISSING"
	SchemaExtraObject      Code = "SCHEMA_EXTRA_OBJECT"
	SnapshotWALPending     Code = "SNAPSHOT_WAL_PENDING"
	SnapshotWALPresent     Code = "SNAPSHOT_WAL_PRESENT"
	SnapshotJournalPresent Code = "SNAPSHOT_JOURNAL_PRESENT"
)

// Codes of the lineage analysis (docs/LINEAGE.md).
const (
	LineageEmptyID         Code = "LINEAGE_EMPTY_ID"
	LineageDuplicateID     Code = "LINEAGE_DUPLICATE_ID"
	LineageWriterUnknown   Code = "LINEAGE_WRITER_UNKNOWN"
	LineageTrustInvalid    Code = "LINEAGE_TRUST_INVALID"
	LineageDanglingParent  Code = "LINEAGE_DANGLING_PARENT"
	LineageWeightNaN       Code = "LINEAGE_WEIGHT_NAN"
	LineageWeightRange     Code = "LINEAGE_WEIGHT_RANGE"
	LineageWeightCount     Code = "LINEAGE_WEIGHT_COUNT"
	LineageDuplicateParent Code = "LINEAGE_DUPLICATE_PARENT"
	LineageCycle           Code = "LINEAGE_CYCLE"
	LineageLaundering      Code = "LINEAGE_LAUNDERING"
	LineageGateViolation   Code = "LINEAGE_GATE_VIOLATION"
	LineageUnverified      Code = "LINEAGE_UNVERIFIED"
	// Tombstone claims (docs/FORMAT.md, "Tombstone claims").
	LineageTombstoneMismatch  Code = "LINEAGE_TOMBSTONE_MISMATCH"
	LineageTombstoneUnvouched Code = "LINEAGE_TOMBSTONE_UNVOUCHED"
)

// Codes of the replay analysis (docs/REPLAY.md).
const (
	ReplayDiverge          Code = "REPLAY_DIVERGE"
	ReplayIFCBlind         Code = "REPLAY_IFC_BLIND"
	ReplayRecordedMismatch Code = "REPLAY_RECORDED_MISMATCH"
	ReplayUnavailable      Code = "REPLAY_UNAVAILABLE"
	ReplayFailed           Code = "REPLAY_FAILED"
)

// Codes of memscope diff: two snapshots of one store compared (docs/TIME.md).
const (
	DiffFork                    Code = "DIFF_FORK"
	DiffRollback                Code = "DIFF_ROLLBACK"
	DiffConsistencyNotChecked   Code = "DIFF_CONSISTENCY_NOT_CHECKED"
	DiffRemovedWithoutTombstone Code = "DIFF_REMOVED_WITHOUT_TOMBSTONE"
	DiffSignedChanged           Code = "DIFF_SIGNED_CHANGED"
	DiffUnsignedChanged         Code = "DIFF_UNSIGNED_CHANGED"
)

// Codes of the native-store readers (docs/STORES.md).
const (
	StoreUnsigned          Code = "STORE_UNSIGNED"
	StoreRecordMalformed   Code = "STORE_RECORD_MALFORMED"
	StoreEdgeUnexplained   Code = "STORE_EDGE_UNEXPLAINED"
	StoreEdgeWeight        Code = "STORE_EDGE_WEIGHT"
	StoreParseDifferential Code = "STORE_PARSE_DIFFERENTIAL"
	Mem0ChainStartsUpdate  Code = "MEM0_CHAIN_STARTS_WITH_UPDATE"
	Mem0EventsOutOfOrder   Code = "MEM0_EVENTS_OUT_OF_ORDER"
	Mem0Deleted            Code = "MEM0_DELETED"
	Mem0EventAfterDelete   Code = "MEM0_EVENT_AFTER_DELETE"
	Mem0MessagesOverLimit  Code = "MEM0_MESSAGES_OVER_LIMIT"
	Mem0DeleteUndated      Code = "MEM0_DELETE_UNDATED"
	Mem0HistoryRewritten   Code = "MEM0_HISTORY_REWRITTEN"
	SMSRTagAtOtherTime     Code = "SMSR_TAG_AT_OTHER_TIME"
	SMSRTagUndecidable     Code = "SMSR_TAG_UNDECIDABLE"
)

// Codes of the Mem0 vector-store readers and reconciliation and of the MCP
// memory server's store (docs/STORES.md).
const (
	VectorKeyMismatch       Code = "VECTOR_KEY_MISMATCH"
	Mem0ReconcileNotChecked Code = "MEM0_RECONCILE_NOT_CHECKED"
	Mem0VectorNotInHistory  Code = "MEM0_VECTOR_NOT_IN_HISTORY"
	Mem0DeletedRetrievable  Code = "MEM0_DELETED_STILL_RETRIEVABLE"
	Mem0VectorTextDiffers   Code = "MEM0_VECTOR_TEXT_DIFFERS"
	Mem0VectorHashMismatch  Code = "MEM0_VECTOR_HASH_MISMATCH"
	Mem0MemoryNotInVector   Code = "MEM0_MEMORY_NOT_IN_VECTOR_STORE"
	MCPMemDuplicate         Code = "MCPMEM_DUPLICATE"
	MCPMemRelationDangling  Code = "MCPMEM_RELATION_DANGLING"
	MCPMemLoneSurrogate     Code = "MCPMEM_LONE_SURROGATE"
	// verify --against: the MCP memory server's file against what
	// memscope record recorded (internal/analyses/mcpagainst).
	MCPUnrecorded        Code = "MCP_UNRECORDED_ITEM"
	MCPDeletedPresent    Code = "MCP_DELETED_PRESENT"
	MCPRecordedAbsent    Code = "MCP_RECORDED_ABSENT"
	MCPObservationEdited Code = "MCP_OBSERVATION_EDITED"
)

// Codes of evidence text (package textscan).
const (
	TextControlChars Code = "TEXT_CONTROL_CHARS"
	TextInertControl Code = "TEXT_INERT_CONTROLS"
	TextHiddenChars  Code = "TEXT_HIDDEN_CHARS"
	TextConfusableID Code = "TEXT_CONFUSABLE_ID"
)

// Spec describes one catalogued code. Severity is the code's usual
// severity; an analysis may grade one finding differently when the code's
// documentation says so (LINEAGE_LAUNDERING is an error only when it lets
// an untrusted entry pass the gate).
type Spec struct {
	Code     Code
	Family   Family
	Severity Severity
	Meaning  string
}

// Catalog is a list of code specifications.
type Catalog []Spec

// Lookup returns the specification of code.
func (c Catalog) Lookup(code Code) (Spec, bool) {
	for _, s := range c {
		if s.Code == code {
			return s, true
		}
	}
	return Spec{}, false
}

// Families returns the catalogue's families in first-seen order.
func (c Catalog) Families() []Family {
	var out []Family
	seen := map[Family]bool{}
	for _, s := range c {
		if !seen[s.Family] {
			seen[s.Family] = true
			out = append(out, s.Family)
		}
	}
	return out
}

// Of returns the specifications of the given families, in catalogue order.
func (c Catalog) Of(fams ...Family) Catalog {
	var out Catalog
	for _, s := range c {
		for _, f := range fams {
			if s.Family == f {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// Catalogue lists every finding code memscope reports. Names never change
// once released; docs/FINDINGS.md has one row per entry (tested).
var Catalogue = append(Catalog{
	{SigInvalid, FamSignatures, SevError, "the record's Ed25519 signature does not verify under the writer's registered key"},
	{WriterUnregistered, FamSignatures, SevError, "the record's writer (or its key id) is not in the principal registry"},
	{KeyOutsideValidity, FamSignatures, SevError, "the record was signed with a key outside its registered validity (before registration or after revocation)"},
	{RegistrySigInvalid, FamRegistry, SevError, "a principal-registry event is not signed by a registry root"},
	{RegistryRootUnanchored, FamRegistry, SevWarning, "no registry root was supplied by the user; roots were read from the snapshot itself"},
	{KeyMalformed, FamRegistry, SevError, "a registered public key is not a canonical, non-small-order Ed25519 point"},
	{RecordMalformed, FamEncoding, SevError, "the signed record could not be decoded strictly"},
	{RecordNotCanonical, FamEncoding, SevError, "the signed record is not in CBOR Core Deterministic Encoding"},
	{ColumnMismatch, FamEncoding, SevError, "a decoded convenience column disagrees with the signed record"},
	{RowMalformed, FamEncoding, SevError, "a table row could not be read (a cell of the wrong type, NULL, or over its size limit, or an unsigned row that does not parse); the row is skipped and every other row is still read"},
	{RecordNotInLog, FamLog, SevError, "the record's leaf is not in the log"},
	{LeafWithoutRecord, FamLog, SevError, "a log leaf names a record that is neither in the snapshot nor tombstoned (deletion without tombstone)"},
	{LeafMalformed, FamLog, SevError, "a log leaf is neither a record leaf nor a tombstone"},
	{InclusionFailed, FamLog, SevError, "the record's inclusion proof does not verify against the checkpoint root"},
	{TileMismatch, FamLog, SevError, "a hash tile disagrees with the entries it covers"},
	{CheckpointSigInvalid, FamLog, SevError, "a checkpoint's signature does not verify under the log key"},
	{CheckpointUnanchored, FamLog, SevWarning, "no log key was supplied by the user; the checkpoint is not anchored"},
	{CheckpointFork, FamLog, SevError, "two checkpoints are not consistent with each other (a fork)"},
	{LogRollback, FamLog, SevError, "the log is shorter than a checkpoint the snapshot recorded"},
	{LogUnreadable, FamLog, SevError, "the log could not be read"},
	{TombstonedLive, FamTombstones, SevError, "a tombstoned record is still live in the snapshot"},
	{TombstoneNotInLog, FamTombstones, SevError, "a tombstone in the snapshot has no tombstone leaf in the log"},
	{HMACMissing, FamHMAC, SevError, "an entry has no HMAC tag although a key was given"},
	{HMACWrong, FamHMAC, SevError, "an entry's HMAC tag does not match its content, session and timestamp"},
	{GateMaterialised, FamGate, SevError, "a rejected commit-gate candidate advanced the store version or reached the store or log"},
	{ParentMissing, FamReferences, SevError, "an entry names a parent that does not exist (and was not tombstoned)"},
	{SourceMissing, FamReferences, SevWarning, "a structural write names a source entry that does not exist"},
	{RowUnsigned, FamSignatures, SevError, "a row carries no signed record in a store that signs its table (an inserted row, or a row whose record was stripped); older stores and imports, which sign no such row, get TABLE_UNSIGNED instead"},
	{OperatorNoAuthority, FamRegistry, SevError, "a store record (a meta value, a checkpoint sighting or a vector) is signed by a principal registered on the unauthenticated channel, which has no authority over the store's configuration"},
	{ImportNoteUnbound, FamSignatures, SevError, "an import note (import_notes row: a write's input id and declared label) names a write the store does not hold, or is signed by a principal other than that write's writer"},
	{LogSplitView, FamLog, SevError, "the log server answered two reads of the same tile or entry bundle with different bytes (a split view); only the bytes hashed against the checkpoint were used"},
	{SignedBeforeRevoked, FamSignatures, SevError, "a record logged after its signer's key revocation carries a signed timestamp before the revocation: the timestamp was set back (the record is KEY_OUTSIDE_VALIDITY as well)"},
	{AnchorFromEvidence, FamCoverage, SevWarning, "a trust anchor (log key or registry root) was read from a file inside the evidence: the evidence pinned itself, which proves nothing against whoever wrote it"},
	{TableUnsigned, FamCoverage, SevWarning, "rows of a table (or a column) are covered by no signature or tag: their values are unsigned claims, not verified"},

	{DuplicateID, FamReferences, SevError, "two records (rows of any signed table) share an id; an exact duplicate row included"},
	{TombstoneUnknownTarget, FamTombstones, SevError, "a tombstone deletes an entry that never existed (not in the store, no record leaf in the log) or a record that is not an entry"},
	{TombstoneNoAuthority, FamTombstones, SevError, "a tombstone's writer had no authority over the entry (rule in docs/FINDINGS.md)"},
	{TombstoneLeafMismatch, FamTombstones, SevError, "a tombstone row's signed bytes differ from its ts: leaf in the log"},
	{ParentAfterChild, FamOrder, SevError, "an entry's parent comes after it in the log, or was signed after it"},
	{RowOrder, FamOrder, SevError, "a table's row order (its seq column) disagrees with the log order of its records, or a checkpoint the store recorded later is smaller or seen earlier than one before it: rows were reordered"},
	{TimeBackwards, FamOrder, SevError, "a writer's signed timestamp goes backwards in log order"},
	{TimeAfterCheckpoint, FamOrder, SevError, "a record was signed after a checkpoint the store saw that already contained it (a timestamp in the future)"},
	{WeightOutOfRange, FamEncoding, SevError, "a signed derivation weight is NaN or outside [0, 1]"},
	{TimeInFuture, FamOrder, SevError, "a record's signed timestamp is later than the verifying machine's clock (one day of skew allowed): it was signed with a clock set forward, or backdated records are hidden behind it"},
	{QueryUnknownNode, FamReferences, SevError, "a recorded query's reset vector, dense scores or selection name a node the nodes table does not have; replay fails that query alone"},

	{SchemaNotTable, FamSnapshot, SevError, "a format table is a view, a virtual table or has generated columns: it computes rows on read, so it was not read"},
	{SchemaTableMissing, FamSnapshot, SevError, "a format table is missing from the snapshot"},
	{SchemaExtraObject, FamSnapshot, SevWarning, "the snapshot holds a trigger, view or virtual table the format does not have (never read or fired)"},
	{SnapshotWALPending, FamSnapshot, SevError, "a -wal file beside the snapshot holds committed transactions SQLite would show; the report covers the main file only"},
	{SnapshotWALPresent, FamSnapshot, SevWarning, "a -wal file beside the snapshot holds no valid committed transaction, or could not be examined"},
	{SnapshotJournalPresent, FamSnapshot, SevError, "a rollback journal beside the snapshot: SQLite would roll the file back; the report reads the file as it is"},

	{LineageEmptyID, FamLineage, SevWarning, "an entry has an empty id; it is kept but nothing can name it as a parent"},
	{LineageDuplicateID, FamLineage, SevError, "two entries share an id; parent references resolve to the first"},
	{LineageWriterUnknown, FamLineage, SevWarning, "an entry's writer is malformed; it is treated as External"},
	{LineageTrustInvalid, FamLineage, SevError, "an entry's recorded trust is not a defined level (0..3)"},
	{LineageDanglingParent, FamLineage, SevWarning, "an entry names a parent that is neither in the store nor deleted by a tombstone; a strong edge to it makes the entry untrusted (fail-closed)"},
	{LineageUnverified, FamLineage, SevWarning, "an entry failed verification (signature, registration, key validity, canonical form or log inclusion); lineage and the gate treat it as External"},
	{LineageTombstoneMismatch, FamLineage, SevError, "a tombstone's entry_writer or entry_trust disagrees with the deleted record, which is still provable; the record's own signed fields are what lineage reads"},
	{LineageTombstoneUnvouched, FamLineage, SevWarning, "a tombstone vouches for an entry no longer provable beyond its writer's authority (rule in docs/FORMAT.md); the deleted entry is External for lineage"},
	{LineageWeightNaN, FamLineage, SevWarning, "a parent edge's weight is NaN; it is read as 1 (strong)"},
	{LineageWeightRange, FamLineage, SevWarning, "a parent edge's weight is outside [0, 1]; it is clamped"},
	{LineageWeightCount, FamLineage, SevWarning, "an entry's parent and weight counts differ; missing weights read as 1, extra ones are ignored"},
	{LineageDuplicateParent, FamLineage, SevWarning, "an entry lists a parent more than once; the largest weight is kept"},
	{LineageCycle, FamLineage, SevError, "the derivation graph has a cycle (one finding per strongly connected component and per self-parent)"},
	{LineageLaundering, FamLineage, SevError, "an entry's recorded trust is safer than its recomputed trust at tau (an error when it lets an untrusted entry pass the gate, else a warning)"},
	{LineageGateViolation, FamLineage, SevError, "a dispatched action that the gate, recomputed over lineage, would have refused"},

	{StoreUnsigned, FamCoverage, SevWarning, "a native store carries no signatures: every provenance fact is declared by the store's own fields, nothing is verified"},
	{StoreRecordMalformed, FamStore, SevError, "a record of a native store could not be read (the message names the file, record and field); the rest is still analysed"},
	{StoreEdgeUnexplained, FamStore, SevWarning, "a graph edge that nothing in the store explains (no extraction record, no source chunk): a no-source write"},
	{StoreEdgeWeight, FamStore, SevWarning, "a graph edge weighs more than the store's extraction records account for"},
	{StoreParseDifferential, FamStore, SevError, "a store holds a construct its upstream tool never writes and that readers disagree on (a namespaced GraphML attribute, a nested or second graph, a repeated or case-twin JSON key, a column shadowing SQLite's rowid...): memscope reads it as the upstream reader does and names it"},
	{Mem0ChainStartsUpdate, FamStore, SevWarning, "a Mem0 memory's history starts with UPDATE or DELETE: its ADD is missing"},
	{Mem0EventsOutOfOrder, FamStore, SevWarning, "a Mem0 memory's history events are out of time order against the order they were written"},
	{Mem0Deleted, FamStore, SevInfo, "a Mem0 memory was deleted (DELETE event); its earlier versions stay in the history"},
	{Mem0EventAfterDelete, FamStore, SevWarning, "a Mem0 memory has events after its DELETE"},
	{Mem0DeleteUndated, FamStore, SevInfo, "a Mem0 DELETE history row has NULL created_at and updated_at: Mem0 wrote DELETE rows without times until upstream commit 1aecfadf4 (2026-03-26, first released in 1.0.8), so this is upstream behaviour; the event is placed by storage order"},
	{Mem0HistoryRewritten, FamStore, SevError, "memscope diff of two copies of one Mem0 store: the later copy's history of a memory does not extend the earlier one's (rows changed or removed); Mem0 only appends history rows (add_history), reset() aside"},
	{Mem0MessagesOverLimit, FamStore, SevWarning, "a Mem0 session scope keeps more than the 10 recent messages save_messages leaves: written outside save_messages, or its eviction failed"},
	{SMSRTagAtOtherTime, FamStore, SevWarning, "an SMSR tag does not match the stored timestamp but matches the same row at a nearby time: SMSR's own second time.time() after tagging, not tampering"},
	{SMSRTagUndecidable, FamStore, SevWarning, "an SMSR tag matches the row at no time that can be tried: the row was altered, or tagged at a time memscope cannot recover; undecidable from the store alone"},
	{VectorKeyMismatch, FamStore, SevWarning, "a vector-store row's key is not what the writer derives from the record (Qdrant local: points.id is not encode_key of the pickled point id), or two rows hold one point id: not written by the upstream client; the upstream loader uses the pickled id"},
	{Mem0ReconcileNotChecked, FamStore, SevInfo, "a Mem0 vector store was read without its history database (none beside it): history and vector store were not reconciled"},
	{Mem0VectorNotInHistory, FamStore, SevError, "a memory retrievable from the Mem0 vector store that the history never added: a write that bypassed Mem0's API (add/update write history in mem0/memory/main.py)"},
	{Mem0DeletedRetrievable, FamStore, SevError, "a memory the Mem0 history deleted is still in the vector store: still retrievable although _delete_memory removes the vector before it writes the DELETE row"},
	{Mem0VectorTextDiffers, FamStore, SevError, "a Mem0 memory's text in the vector store (payload data) differs from its last history version: changed outside Mem0's update path"},
	{Mem0VectorHashMismatch, FamStore, SevError, "a Mem0 vector's stored hash is not md5 of its text, as _create_memory and _update_memory write it: the text or the hash was changed afterwards"},
	{Mem0MemoryNotInVector, FamStore, SevWarning, "a memory the Mem0 history holds as live (last event ADD or UPDATE) is missing from the vector store: removed outside Mem0's delete path, or the vector store is an older copy"},
	{MCPUnrecorded, FamStore, SevError, "an item of the MCP memory server's file (entity, observation or relation) that no write recorded by memscope record explains: written around the gateway"},
	{MCPDeletedPresent, FamStore, SevError, "an item of the MCP memory server's file whose recorded write a signed tombstone deleted: the server did not delete it, or it was restored behind the gateway"},
	{MCPRecordedAbsent, FamStore, SevError, "an item memscope record recorded and no tombstone deleted is missing from the MCP memory server's file: removed behind the gateway"},
	{MCPObservationEdited, FamStore, SevError, "an observation in the MCP memory server's file differs from the one recorded for the same entity: edited behind the gateway"},
	{MCPMemDuplicate, FamStore, SevInfo, "the MCP memory server's file holds two entities of one name or two identical relations: the server writes them itself when one create_entities or create_relations call carries the item twice (it checks only against the file, index.ts); search returns both, add_observations reaches the first"},
	{MCPMemLoneSurrogate, FamStore, SevWarning, "a line of the MCP memory server's file holds a lone surrogate escape (\\udXXX without its pair): JSON.parse keeps it, Go reads U+FFFD, so memscope cannot tell the item from one that differs only there, and a match with the recorded evidence involving it is not exact (the server writes such text itself when a client sends it, e.g. a string cut inside an emoji)"},
	{MCPMemRelationDangling, FamStore, SevInfo, "an MCP memory relation names an entity the file does not hold: upstream create_relations does not check its endpoints, so the server itself writes such relations"},
	{TextControlChars, FamContent, SevError, "a text field of the evidence carries characters a terminal acts on (ESC, C1 controls, BEL, a bare CR, bidi embeddings, overrides or isolates): they start escape sequences, ring, overwrite or reorder what is shown, and ordinary memory text never holds them; shown escaped"},
	{TextInertControl, FamContent, SevWarning, "a text field of the evidence carries C0 controls or DEL that no terminal acts on (NUL, VT, FF...): text extracted from PDFs and office files carries them, so they are not hostile in themselves; shown escaped"},
	{TextHiddenChars, FamContent, SevWarning, "a text field of the evidence carries hidden characters (bidi controls, zero-width or format characters, tag characters, variation-selector runs, invalid UTF-8): legitimate in some scripts, also a way to hide text; shown escaped"},
	{ReplayDiverge, FamReplay, SevWarning, "the top-k on G and on G_auth select different sets (on a native store, an error when a culprit is a write the store does not explain: unexplained content changed the selection)"},
	{TextConfusableID, FamContent, SevWarning, "two ids (or entity names) of one kind differ only by invisible or confusable characters (same Unicode TR39 skeleton): they look alike on a screen; each is printed escaped and resolves only to itself"},
	{ReplayIFCBlind, FamReplay, SevError, "a diverging replay row in which every item selected on G is authenticated: provenance checks pass it, only replay finds it"},
	{ReplayRecordedMismatch, FamReplay, SevWarning, "the selection the agent recorded differs from the replay on G"},
	{ReplayUnavailable, FamReplay, SevWarning, "the replay could not run on this evidence (the message says why)"},
	{ReplayFailed, FamReplay, SevError, "a recorded query could not be replayed (its reset vector is invalid, or PPR did not converge): the row is FAILED and no selection verdict exists for it"},

	{MWPPRLRTrace, FamMWP, SevError, "a rejected candidate's id or content hash appears where reasoning reads: a parent, a write's sources, an action's justification or parameter sources, a recorded selection or a log leaf (MWP's PRLR proxy)"},
	{MWPGateBypass, FamMWP, SevError, "an entry or structural write reached the store inside the declared mediated window (meta gate_mediated_since, as the store operator signed it) with no accept event"},
	{MWPCandidateHashMismatch, FamMWP, SevError, "a gate event's candidate_hash differs from the SHA-256 of the candidate's signed bytes in the store (content changed after staging)"},
	{MWPNonceReuse, FamMWP, SevError, "two signed records carry the same nonce (a replayed write the gate should have refused)"},
	{MWPVersionChainBroken, FamMWP, SevError, "the gate events' version chain is broken: a version went back, an accept did not advance it by one, or inside the mediated window version steps passed no gate"},
	{MWPVectorResidue, FamMWP, SevError, "the store's vector table holds an entry for a rejected candidate (its id or the SHA-256 its gate event recorded): the rejection left a vector behind (MWP's alpha_vec)"},

	{DiffFork, FamDiff, SevError, "the two snapshots' checkpoints are not consistent: same size with different roots, or the consistency proof fails (a fork)"},
	{DiffRollback, FamDiff, SevError, "snapshot B's checkpoint is smaller than A's: B is older, or the log was rolled back"},
	{DiffConsistencyNotChecked, FamDiff, SevWarning, "the consistency of the two checkpoints was not checked (no log given, a checkpoint missing or unreadable)"},
	{DiffRemovedWithoutTombstone, FamDiff, SevError, "a signed record in A is missing from B and B holds no tombstone for it (a silent deletion)"},
	{DiffSignedChanged, FamDiff, SevError, "a signed record has different bytes in A and B (a record was modified after signing)"},
	{DiffUnsignedChanged, FamDiff, SevWarning, "an unsigned row (query, action, gate event) was changed or removed between A and B; nothing proves either version"},
}, watchCatalogue...)

var index = func() map[Code]Spec {
	m := make(map[Code]Spec, len(Catalogue))
	for _, s := range Catalogue {
		m[s.Code] = s
	}
	return m
}()

// Lookup returns the catalogue entry of code (a map lookup: verify calls
// it once per finding, and a bad tile yields one finding per proof).
func Lookup(code Code) (Spec, bool) {
	s, ok := index[code]
	return s, ok
}
