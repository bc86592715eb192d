package verify

import (
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/loader"
)

// CheckInclusion proves that an entry row's record is the leaf at the index
// the row claims, against the published checkpoint's root. Labels treat an
// entry the log does not prove as unverified, so the provenance pass must
// answer inclusion for the entries it labels; it answers only the
// agreeing case. A row that claims no leaf, a claimed leaf beyond the
// tree, and a claimed leaf that does not prove through the tiles are left
// undecided (Undecided): Run decides them, finding a record's leaf by its
// id and telling a tile that disagrees with its entry bundles
// (TILE_MISMATCH, inclusion then proved from the bundles) from a record
// the log does not hold, which takes the whole log. Without a readable log
// nothing is recorded (Run proves no inclusion then either).
func (p *Provenance) CheckInclusion(r *loader.EntryRow) {
	if r.DecodeErr != nil || r.Entry == nil {
		return
	}
	p.v.provInclusion(r.EID, record.RecordLeaf(r.Entry.EID, r.Entry.Sig), r.LeafIndex)
}

// provInclusion is CheckInclusion for any record: its leaf bytes and the
// leaf index its row claims.
func (v *verifier) provInclusion(id string, leaf []byte, leafIndex int64) {
	if !v.logOK || v.log == nil {
		return
	}
	proved := false
	if leafIndex >= 0 && uint64(leafIndex) < v.size {
		ok, err := v.log.CheckLeaf(v.ctx, rfc6962.DefaultHasher.HashLeaf(leaf), uint64(leafIndex), v.size, v.root)
		if err != nil && v.ctx.Err() != nil {
			return // interrupted: the caller's loop reports it
		}
		proved = err == nil && ok
	}
	if !proved {
		v.mu.Lock()
		v.provUndecided = true
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
