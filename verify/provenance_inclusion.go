package verify

import (
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// CheckInclusion proves that an entry row's record is the leaf at the index
// the row claims, against the published checkpoint's root, and records a
// failure in the report's InclusionFailures as Run does: labels treat an
// entry the log does not prove as unverified, so the provenance pass must
// answer inclusion for the entries it labels. A claimed leaf beyond the
// tree is RECORD_NOT_IN_LOG; a claimed leaf that does not prove is
// INCLUSION_FAILED; a row that claims no leaf is left undecided
// (Undecided). Without a readable log nothing is recorded (Run proves no
// inclusion then either).
func (p *Provenance) CheckInclusion(r *loader.EntryRow) {
	if r.DecodeErr != nil || r.Entry == nil {
		return
	}
	p.v.provInclusion(r.EID, record.RecordLeaf(r.Entry.EID, r.Entry.Sig), r.LeafIndex)
}

// provInclusion is CheckInclusion for any record: its leaf bytes and the
// leaf index its row claims.
//
// Run looks a record's leaf up by id and then checks the row's claim; here
// the claimed index is proved directly. Both fail a record whose claimed
// leaf does not prove; a row that claims no leaf is undecided here.
func (v *verifier) provInclusion(id string, leaf []byte, leafIndex int64) {
	if !v.logOK || v.log == nil {
		return
	}
	if leafIndex < 0 {
		// Run finds such a record's leaf by its id, which needs the whole
		// leaf table this pass does not read: the caller must verify in
		// full (Provenance.Undecided).
		v.mu.Lock()
		v.provUndecided = true
		v.mu.Unlock()
		return
	}
	var code finding.Code
	if uint64(leafIndex) >= v.size {
		code = finding.RecordNotInLog
	} else {
		ok, err := v.log.CheckLeaf(v.ctx, rfc6962.DefaultHasher.HashLeaf(leaf), uint64(leafIndex), v.size, v.root)
		if err != nil && v.ctx.Err() != nil {
			return // interrupted: the caller's loop reports it
		}
		if err != nil || !ok {
			code = finding.InclusionFailed
		}
	}
	if code != "" {
		v.mu.Lock()
		v.rep.InclusionFailures[id] = code
		v.mu.Unlock()
	}
}

// Undecided reports whether some record's inclusion could not be decided
// without reading the whole log (a row that claims no leaf): the caller
// then verifies in full.
func (p *Provenance) Undecided() bool {
	p.v.mu.Lock()
	defer p.v.mu.Unlock()
	return p.v.provUndecided
}
