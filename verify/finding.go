// Package verify checks memscope evidence for integrity: signatures against
// the principal registry, canonical encoding, decoded columns against signed
// bytes, every record's inclusion in the Merkle log, the log against its
// checkpoints, tombstones, SMSR HMAC tags and commit-gate non-formation.
// It is pure analysis: it reads through the loader and tlog and prints
// nothing.
package verify

// Severity of a finding. Exit status 1 means at least one error.
type Severity string

const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Family groups finding codes for the summary lines.
type Family string

const (
	FamSignatures Family = "signatures"
	FamRegistry   Family = "registry"
	FamEncoding   Family = "encoding"
	FamLog        Family = "log"
	FamTombstones Family = "tombstones"
	FamHMAC       Family = "hmac"
	FamGate       Family = "gate"
	FamLineage    Family = "references"
	FamSnapshot   Family = "snapshot"
)

// Finding is one verified fact that something is wrong (or worth noting).
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Subject  string   `json:"subject"` // record id, "leaf N", or "checkpoint N"
	Message  string   `json:"message"`
	Family   Family   `json:"family"`
}

// Code describes one stable finding code.
type Code struct {
	Code     string
	Family   Family
	Severity Severity
	Meaning  string
}

// Codes is the catalogue of finding codes; names never change once released.
var Codes = []Code{
	{"SIG_INVALID", FamSignatures, SevError, "the record's Ed25519 signature does not verify under the writer's registered key"},
	{"WRITER_UNREGISTERED", FamSignatures, SevError, "the record's writer (or its key id) is not in the principal registry"},
	{"KEY_OUTSIDE_VALIDITY", FamSignatures, SevError, "the record was signed with a key outside its registered validity (before registration or after revocation)"},
	{"REGISTRY_SIG_INVALID", FamRegistry, SevError, "a principal-registry event is not signed by a registry root"},
	{"REGISTRY_ROOT_UNANCHORED", FamRegistry, SevWarning, "no registry root was supplied by the user; roots were read from the snapshot itself"},
	{"KEY_MALFORMED", FamRegistry, SevError, "a registered public key is not a canonical, non-small-order Ed25519 point"},
	{"RECORD_MALFORMED", FamEncoding, SevError, "the signed record could not be decoded strictly"},
	{"RECORD_NOT_CANONICAL", FamEncoding, SevError, "the signed record is not in CBOR Core Deterministic Encoding"},
	{"COLUMN_MISMATCH", FamEncoding, SevError, "a decoded convenience column disagrees with the signed record"},
	{"ROW_MALFORMED", FamEncoding, SevError, "a table row could not be read (a cell of the wrong type, NULL, or over its size limit, or an unsigned row that does not parse); the row is skipped and every other row is still read"},
	{"RECORD_NOT_IN_LOG", FamLog, SevError, "the record's leaf is not in the log"},
	{"LEAF_WITHOUT_RECORD", FamLog, SevError, "a log leaf names a record that is neither in the snapshot nor tombstoned (deletion without tombstone)"},
	{"LEAF_MALFORMED", FamLog, SevError, "a log leaf is neither a record leaf nor a tombstone"},
	{"INCLUSION_FAILED", FamLog, SevError, "the record's inclusion proof does not verify against the checkpoint root"},
	{"TILE_MISMATCH", FamLog, SevError, "a hash tile disagrees with the entries it covers"},
	{"CHECKPOINT_SIG_INVALID", FamLog, SevError, "a checkpoint's signature does not verify under the log key"},
	{"CHECKPOINT_UNANCHORED", FamLog, SevWarning, "no log key was supplied by the user; the checkpoint is not anchored"},
	{"CHECKPOINT_FORK", FamLog, SevError, "two checkpoints are not consistent with each other (a fork)"},
	{"LOG_ROLLBACK", FamLog, SevError, "the log is shorter than a checkpoint the snapshot recorded"},
	{"LOG_UNREADABLE", FamLog, SevError, "the log could not be read"},
	{"TOMBSTONED_LIVE", FamTombstones, SevError, "a tombstoned record is still live in the snapshot"},
	{"TOMBSTONE_NOT_IN_LOG", FamTombstones, SevError, "a tombstone in the snapshot has no tombstone leaf in the log"},
	{"HMAC_MISSING", FamHMAC, SevError, "an entry has no HMAC tag although a key was given"},
	{"HMAC_WRONG", FamHMAC, SevError, "an entry's HMAC tag does not match its content, session and timestamp"},
	{"GATE_MATERIALISED", FamGate, SevError, "a rejected commit-gate candidate advanced the store version or reached the store or log"},
	{"PARENT_MISSING", FamLineage, SevError, "an entry names a parent that does not exist (and was not tombstoned)"},
	{"SCHEMA_NOT_TABLE", FamSnapshot, SevError, "a format table is a view, a virtual table or has generated columns: it computes rows on read, so it was not read"},
	{"SCHEMA_TABLE_MISSING", FamSnapshot, SevError, "a format table is missing from the snapshot"},
	{"SCHEMA_EXTRA_OBJECT", FamSnapshot, SevWarning, "the snapshot holds a trigger, view or virtual table the format does not have (never read or fired)"},
	{"SNAPSHOT_WAL_PENDING", FamSnapshot, SevError, "a -wal file beside the snapshot holds committed transactions SQLite would show; the report covers the main file only"},
	{"SNAPSHOT_WAL_PRESENT", FamSnapshot, SevWarning, "a -wal file beside the snapshot holds no valid committed transaction, or could not be examined"},
	{"SNAPSHOT_JOURNAL_PRESENT", FamSnapshot, SevError, "a rollback journal beside the snapshot: SQLite would roll the file back; the report reads the file as it is"},
	{"SOURCE_MISSING", FamLineage, SevWarning, "a structural write names a source entry that does not exist"},
}

var codeIndex = func() map[string]Code {
	m := map[string]Code{}
	for _, c := range Codes {
		m[c.Code] = c
	}
	return m
}()

// LookupCode returns the catalogue entry of a code.
func LookupCode(code string) (Code, bool) {
	c, ok := codeIndex[code]
	return c, ok
}
