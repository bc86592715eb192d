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
// answer inclusion for the entries it labels. A row that claims no leaf is
// RECORD_NOT_IN_LOG; a claimed leaf that does not prove is
// INCLUSION_FAILED. Without a readable log nothing is recorded (Run proves
// no inclusion then either).
func (p *Provenance) CheckInclusion(r *loader.EntryRow) {
	v := p.v
	if !v.logOK || v.log == nil || r.DecodeErr != nil || r.Entry == nil {
		return
	}
	e := r.Entry
	var code finding.Code
	if r.LeafIndex < 0 || uint64(r.LeafIndex) >= v.size {
		code = finding.RecordNotInLog
	} else {
		ok, err := v.log.CheckLeaf(v.ctx, rfc6962.DefaultHasher.HashLeaf(record.RecordLeaf(e.EID, e.Sig)), uint64(r.LeafIndex), v.size, v.root)
		if err != nil && v.ctx.Err() != nil {
			return // interrupted: the caller's loop reports it
		}
		if err != nil || !ok {
			code = finding.InclusionFailed
		}
	}
	if code != "" {
		v.mu.Lock()
		v.rep.InclusionFailures[r.EID] = code
		v.mu.Unlock()
	}
}
