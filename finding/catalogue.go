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
)

// Codes of the replay analysis (docs/REPLAY.md).
const (
	ReplayDiverge          Code = "REPLAY_DIVERGE"
	ReplayIFCBlind         Code = "REPLAY_IFC_BLIND"
	ReplayRecordedMismatch Code = "REPLAY_RECORDED_MISMATCH"
	ReplayUnavailable      Code = "REPLAY_UNAVAILABLE"
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
var Catalogue = Catalog{
	{SigInvalid, FamSignatures, SevError, "the record's Ed25519 signature does not verify under the writer's registered key"},
	{WriterUnregistered, FamSignatures, SevError, "the record's writer (or its key id) is not in the principal registry"},
	{KeyOutsideValidity, FamSignatures, SevError, "the record was signed with a key outside its registered validity (before registration or after revocation)"},
	{RegistrySigInvalid, FamRegistry, SevError, "a principal-registry event is not signed by a registry root"},
	{RegistryRootUnanchored, FamRegistry, SevWarning, "no registry root was supplied by the user; roots were read from the snapshot itself"},
	{KeyMalformed, FamRegistry, SevError, "a registered public key is not a canonical, non-small-order Ed25519 point"},
	{RecordMalformed, FamEncoding, SevError, "the signed record could not be decoded strictly"},
	{RecordNotCanonical, FamEncoding, SevError, "the signed record is not in CBOR Core Deterministic Encoding"},
	{ColumnMismatch, FamEncoding, SevError, "a decoded convenience column disagrees with the signed record"},
	{RowMalformed, FamEncoding, SevError, "a non-record table row could not be read"},
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

	{LineageEmptyID, FamLineage, SevWarning, "an entry has an empty id; it is kept but nothing can name it as a parent"},
	{LineageDuplicateID, FamLineage, SevError, "two entries share an id; parent references resolve to the first"},
	{LineageWriterUnknown, FamLineage, SevWarning, "an entry's writer is malformed; it is treated as External"},
	{LineageTrustInvalid, FamLineage, SevError, "an entry's recorded trust is not a defined level (0..3)"},
	{LineageDanglingParent, FamLineage, SevWarning, "an entry names a parent that is not in the store; the edge is dropped"},
	{LineageWeightNaN, FamLineage, SevWarning, "a parent edge's weight is NaN; it is read as 1 (strong)"},
	{LineageWeightRange, FamLineage, SevWarning, "a parent edge's weight is outside [0, 1]; it is clamped"},
	{LineageWeightCount, FamLineage, SevWarning, "an entry's parent and weight counts differ; missing weights read as 1, extra ones are ignored"},
	{LineageDuplicateParent, FamLineage, SevWarning, "an entry lists a parent more than once; the largest weight is kept"},
	{LineageCycle, FamLineage, SevError, "the derivation graph has a cycle (one finding per strongly connected component and per self-parent)"},
	{LineageLaundering, FamLineage, SevError, "an entry's recorded trust is safer than its recomputed trust at tau (an error when it lets an untrusted entry pass the gate, else a warning)"},
	{LineageGateViolation, FamLineage, SevError, "a dispatched action that the gate, recomputed over lineage, would have refused"},

	{ReplayDiverge, FamReplay, SevWarning, "the top-k on G and on G_auth select different sets"},
	{ReplayIFCBlind, FamReplay, SevError, "a diverging replay row in which every item selected on G is authenticated: provenance checks pass it, only replay finds it"},
	{ReplayRecordedMismatch, FamReplay, SevWarning, "the selection the agent recorded differs from the replay on G"},
	{ReplayUnavailable, FamReplay, SevWarning, "the replay could not run on this evidence (the message says why)"},
}

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
