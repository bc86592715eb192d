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
	FamCoverage   Family = "coverage"
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
	{"ROW_MALFORMED", FamEncoding, SevError, "a non-record table row could not be read"},
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
	{"SOURCE_MISSING", FamLineage, SevWarning, "a structural write names a source entry that does not exist"},
	{"TABLE_UNSIGNED", FamCoverage, SevWarning, "rows of a table (or a column) are covered by no signature or tag: their values are unsigned claims, not verified"},
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
