package verify

import (
	"slices"

	"github.com/memscope/memscope/internal/present/finding"
)

// Check is the outcome of one check on one record. NotChecked is never a
// pass: it says there was no key to check with, or the evidence the check
// needs could not be read.
type Check uint8

const (
	NotChecked Check = iota
	Passed
	Failed
	// NotInEvidence answers for a record the evidence does not hold: there
	// was nothing to check, which is never a pass.
	NotInEvidence
)

func (c Check) String() string {
	switch c {
	case Passed:
		return "passed"
	case Failed:
		return "failed"
	case NotInEvidence:
		return "not in this evidence"
	}
	return "not checked"
}

// CheckpointVerdict is what verify concluded about one recorded checkpoint.
type CheckpointVerdict struct {
	Seq    int64 // as in the finding subject "checkpoint N"
	Parsed bool
	Size   uint64
	Root   []byte
	// Signature is Passed only under a pinned --log-key; without one it is
	// NotChecked (unanchored).
	Signature Check
	// Consistent: agrees with other checkpoints of its size and with the
	// log (NotChecked when the log is unreadable or the signature failed).
	Consistent Check
	// Sighting is the operator's signed record of when the store saw the
	// checkpoint (seen_at and the note's hash): NotChecked when the row is
	// unsigned (older stores, imports).
	Sighting Check
	// Code and Message are the first finding about this checkpoint.
	Code    finding.Code
	Message string
}

// EntryVerdict is what verify concluded about one entry.
type EntryVerdict struct {
	// Signature: the record decodes canonically, its writer is registered
	// and the signature verifies within the key's validity. SignatureCode
	// names the failure.
	Signature     Check
	SignatureCode finding.Code
	// HMAC: NotChecked without --hmac-key or when the record does not
	// decode.
	HMAC     Check
	HMACCode finding.Code
	// Inclusion: the record's leaf is in the log where the snapshot says,
	// with a proof to the checkpoint root. NotChecked when the log could not
	// be read or the record does not decode.
	Inclusion     Check
	InclusionCode finding.Code
	// Codes are the entry's finding codes except inclusion's (as in
	// Report.EntryStatus).
	Codes []finding.Code
}

// Entry returns the verdict for entry eid. Entries without findings passed
// every check that ran; an id that is no entry row of the evidence (of a
// partial report: no entry given to CheckEntry) is NotInEvidence for every
// check.
func (r *Report) Entry(eid string) EntryVerdict {
	if _, failed := r.EntryStatus[eid]; !failed && !r.entries.has(eid) {
		return EntryVerdict{Signature: NotInEvidence, HMAC: NotInEvidence, Inclusion: NotInEvidence}
	}
	v := EntryVerdict{Signature: Passed, HMAC: NotChecked, Inclusion: NotChecked}
	if r.HMACChecked {
		v.HMAC = Passed
	}
	if r.LogChecked {
		v.Inclusion = Passed
	}
	v.Codes = r.EntryStatus[eid].Codes
	undecoded := false
	for _, c := range v.Codes {
		switch {
		case c == finding.RowMalformed || c == finding.RecordMalformed || c == finding.RecordNotCanonical:
			undecoded = true
			v.Signature, v.SignatureCode = Failed, c
		case SignatureFailed(c) || c == finding.WriterUnregistered:
			if v.Signature != Failed {
				v.Signature, v.SignatureCode = Failed, c
			}
		case c == finding.HMACMissing || c == finding.HMACWrong:
			v.HMAC, v.HMACCode = Failed, c
		}
	}
	if c, ok := r.InclusionFailures[eid]; ok {
		v.Inclusion, v.InclusionCode = Failed, c
	}
	if undecoded {
		// The checks after decoding did not run.
		v.HMAC, v.HMACCode, v.Inclusion, v.InclusionCode = NotChecked, "", NotChecked, ""
	}
	return v
}

// SignatureFailed says whether a record with this finding code has a
// signature that cannot be relied on (it does not verify, was made outside
// the key's validity, or covers bytes that do not decode canonically).
// WRITER_UNREGISTERED is separate: the signature may be fine, the writer is
// unknown.
func SignatureFailed(c finding.Code) bool {
	switch c {
	case finding.SigInvalid, finding.KeyOutsideValidity, finding.RecordMalformed, finding.RecordNotCanonical:
		return true
	}
	return false
}

// RecordFailures lists the codes of entry eid that say its record failed
// verification: its EntryStatus codes and, when its inclusion failed, that
// code (kept apart in InclusionFailures). Lineage, the gate and G_auth read
// an entry with any of them as External.
func (r *Report) RecordFailures(eid string) []finding.Code {
	codes := r.EntryStatus[eid].Codes
	if c, ok := r.InclusionFailures[eid]; ok && !slices.Contains(codes, c) {
		codes = append(slices.Clip(codes), c)
	}
	return codes
}
