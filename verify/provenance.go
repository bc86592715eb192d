package verify

import (
	"context"
	"errors"
	"slices"

	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/loader"
)

// Provenance is the part of verification that replay's edge labels depend
// on, run without checking every entry: the registry (applied in log order,
// so the log's leaves are read), every structural write's signature, and
// only the entries the caller hands to CheckEntry (the writes' cited
// sources, their ancestors, the passages' entries). Each of these is the
// same check Run makes, through the same code.
//
// Its Report is partial: Channels, WriteStatus, BadRecords and, for the
// checked entries only, EntryStatus. It has no findings, no inclusion
// proofs, checkpoints, gate, coverage or cross-record checks, and must never
// be shown as a verification (Report.Partial says so).
type Provenance struct {
	v *verifier
}

// OpenProvenance reads the log, applies the registry and checks every
// structural write's signature on opts.Workers cores.
func OpenProvenance(ctx context.Context, opts Options) (*Provenance, error) {
	v, logVerifier, err := openVerifier(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer v.closeSnap()
	v.rep.Partial = true
	if err := v.registryLog(ctx, logVerifier); err != nil {
		return nil, err
	}
	if err := v.registry(ctx); err != nil {
		return nil, err
	}
	if err := v.writeSignatures(ctx); err != nil {
		return nil, err
	}
	if err := v.provenanceCoverage(ctx); err != nil {
		return nil, err
	}
	// Only the ids the registry needed stay: the leaf table of a big log
	// is not needed by CheckEntry, unless a key was revoked (CheckEntry
	// then needs each entry's log position).
	if !v.revocations {
		v.leafByID = nil
	}
	v.seenLeaf, v.findings = nil, nil
	return &Provenance{v: v}, nil
}

// registryLog reads what of the log the registry needs. Run applies
// registry events in log order when the log reads and checks, and by signed
// time when it does not. So when the two orders agree (a registry written
// in time order) the tiles need no check and only the events' own leaves
// are kept; otherwise, or when an event's id is on two leaves, the log is
// read exactly as Run reads it.
func (v *verifier) registryLog(ctx context.Context, lv note.Verifier) error {
	var events []*loader.PrincipalRow
	wanted := map[record.ID]bool{}
	err := v.snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error {
		events = append(events, r)
		if r.Event != nil {
			wanted[r.Event.RID] = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	// A revoked key's validity ends at the revocation's log position, so
	// every record's position is needed: the log is read as Run reads it.
	v.revocations = slices.ContainsFunc(events, func(r *loader.PrincipalRow) bool { return r.Event != nil && r.Event.Op == record.OpRevoke })
	if v.revocations {
		return v.openLog(ctx, lv)
	}
	keep := func(id record.ID) bool { return wanted[id] }
	if v.opts.RegistryAtClaimedLeaves {
		// One published checkpoint serves the claims' proofs and, when a
		// claim does not prove, the read of the leaves.
		r, cp, err := v.logCheckpoint(ctx, lv, false)
		if err != nil {
			return err
		}
		if cp != nil { // nil: unreadable, as readLog would leave it
			claimed, err := v.registryAtClaims(ctx, r, cp, events)
			if err != nil {
				return err
			}
			if !claimed {
				v.readLeaves(ctx, r, cp, false, keep)
			}
		}
	} else if err := v.readLog(ctx, lv, false, keep); err != nil {
		return err
	}
	if !v.logOK {
		return nil // unreadable: Run orders by time too
	}
	twice := false
	for i := 1; i < len(v.leafByID); i++ {
		twice = twice || v.leafByID[i].id == v.leafByID[i-1].id
	}
	byLog := slices.Clone(events)
	v.sortByLog(byLog)
	v.logOK = false
	byTime := slices.Clone(events)
	v.sortByLog(byTime)
	v.logOK = true
	if !twice && slices.Equal(byLog, byTime) {
		return nil
	}
	v.leafByID, v.logOK, v.rep.LogChecked, v.findings = nil, false, false, nil
	v.tombLeaves, v.tombLeafData = map[record.ID]uint64{}, map[record.ID][]byte{}
	return v.openLog(ctx, lv)
}

// registryAtClaims, with Options.RegistryAtClaimedLeaves, fills the leaf
// table with each registry event's leaf as its row claims it, once an
// inclusion proof of the event's record there verifies against the
// published checkpoint cp, instead of reading every leaf to find them.
// It returns false, the table left empty, when an event names no leaf or
// its claim does not prove (the leaves are then read as without the
// option). What this cannot see is an event's record on a second leaf
// (DUPLICATE_ID, which the whole read would catch and then order as Run
// does); a monitor's incremental check has the same limit
// (docs/WATCH.md).
func (v *verifier) registryAtClaims(ctx context.Context, r *tlog.Reader, cp *tlog.Checkpoint, events []*loader.PrincipalRow) (bool, error) {
	var refs leafTable
	for _, e := range events {
		if e.Event == nil {
			continue
		}
		if e.LeafIndex < 0 || uint64(e.LeafIndex) >= cp.Size {
			return false, nil
		}
		leaf := record.RecordLeaf(e.Event.RID, e.Event.Sig)
		ok, err := r.CheckLeaf(ctx, rfc6962.DefaultHasher.HashLeaf(leaf), uint64(e.LeafIndex), cp.Size, cp.Root)
		if err != nil && ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil || !ok {
			return false, nil
		}
		refs = append(refs, leafRef{e.Event.RID, uint32(e.LeafIndex)})
	}
	refs.sort()
	v.leafByID, v.logOK, v.rep.LogChecked = refs, true, true
	return true, nil
}

// provenanceCoverage counts the tables as Run's phases do and reports
// their coverage through the same code, so that replay's unsigned labels
// are those a verification gives.
func (v *verifier) provenanceCoverage(ctx context.Context) error {
	if !v.opts.SkipEntryCount {
		n, err := v.snap.Count(ctx, "entries")
		if err != nil {
			return err
		}
		v.rep.Entries = n
	}
	if err := v.snap.EachTombstone(ctx, func(*loader.TombstoneRow) error {
		v.rep.Tombstones++
		return nil
	}); err != nil {
		return err
	}
	if rows, err := v.snap.Checkpoints(ctx); err == nil {
		v.rep.Checkpoints = len(rows)
		for _, r := range rows {
			if r.Record != nil {
				v.cpRecords = append(v.cpRecords, r.Record)
			}
		}
	}
	events, err := v.snap.GateEvents(ctx)
	if err != nil && !v.rowErrors(ctx, phaseGate, "gate_events", err) {
		return err
	}
	v.gateRows = len(events)
	v.gateEvents, v.gateErr = events, err
	var re loader.RowErrors
	if errors.As(err, &re) {
		v.gateRows += len(re)
	}
	return v.plainRows(ctx)
}

// writeSignatures fills WriteStatus as writes() does, checking signatures
// on every worker.
func (v *verifier) writeSignatures(ctx context.Context) error {
	return fanOut(v.opts.Workers, func(yield func(*loader.WriteRow) error) error {
		return v.snap.EachWrite(ctx, func(r *loader.WriteRow) error {
			v.rep.Edges++
			return yield(r)
		})
	}, func(r *loader.WriteRow) {
		// Replay's labels read a write's inclusion as Run gives it.
		if r.DecodeErr == nil && r.Write != nil {
			v.provInclusion(r.WID, record.RecordLeaf(r.Write.WID, r.Write.Sig), r.LeafIndex)
		}
		if code, _ := v.writeSigner(r); code != "" {
			v.mu.Lock()
			v.rep.BadRecords[r.WID] = true
			v.rep.WriteStatus[r.WID] = append(v.rep.WriteStatus[r.WID], code)
			v.mu.Unlock()
		}
	}, nil)
}

// CheckEntry checks one entry row (decoded by the caller, as
// loader.Snapshot.DecodeEntryRow does) for the codes that decide whether
// its record vouches for itself: decoding, registration, signature and key
// validity. They go into the report's EntryStatus under the row's id, as
// Run puts them.
func (p *Provenance) CheckEntry(r *loader.EntryRow) {
	v := p.v
	v.rep.entries.add(r.EID)
	if r.DecodeErr != nil {
		v.markEntry(r.EID, entryDecodeCode(r.DecodeErr))
		v.mu.Lock()
		v.rep.BadRecords[r.EID] = true
		v.mu.Unlock()
		return
	}
	e := r.Entry
	if code, _ := v.checkSigner(r.Raw, e.Sig, e.Writer, e.KID, e.TS, v.logPos(e.EID)); code != "" {
		v.markEntry(r.EID, code)
		v.mu.Lock()
		v.rep.BadRecords[r.EID] = true
		v.mu.Unlock()
	}
}

// Report is the partial report (see Provenance).
func (p *Provenance) Report() *Report { return p.v.rep }
