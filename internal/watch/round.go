// Package watch monitors memscope evidence logs continuously, as
// certspotter and rekor-monitor monitor certificate and artifact logs: each
// round verifies the log's new checkpoint, its witness cosignatures
// against a quorum policy, its consistency with the last checkpoint the
// monitor verified (kept in a state file), and the new leaves, and reports
// each change as an event. A round reads the checkpoint, a logarithmic
// proof and the new leaves only: its work follows what is new, not the
// size of the log.
package watch

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"slices"
	"time"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
	"golang.org/x/mod/sumdb/note"
)

// Target is one log to watch.
type Target struct {
	// Tenant names the log in a fleet ("" for a single log).
	Tenant string
	// Log is a tlog-tiles directory or http(s) URL.
	Log string
	// LogKey is the log's note verifier key. Required: a monitor that
	// cannot check the checkpoint's signature proves nothing.
	LogKey string
	// Policy is the witness quorum policy (nil: witnesses not checked).
	Policy *Policy
	// Snapshot is the store's SQLite snapshot, read as a live reader
	// while a recorder may be writing it ("" for none).
	Snapshot string
	// TrustRoots are the registry root keys, for the new records' checks.
	TrustRoots []ed25519.PublicKey
	// LogOptions bound the log's reads.
	LogOptions tlog.Options
}

// roundResult is what one round learned before events get their ids.
type roundResult struct {
	events []Event
	next   State
}

// Round runs one round against st and returns its events and the state
// to keep. It has no side effects: the caller writes the state and
// delivers the events (Run). An error means the round could not run (the
// log unreadable, the key unusable); st is then unchanged.
func Round(ctx context.Context, t Target, st *State, now time.Time) ([]Event, *State, error) {
	verifier, err := note.NewVerifier(t.LogKey)
	if err != nil {
		return nil, nil, fmt.Errorf("log key: %w", err)
	}
	r, err := tlog.OpenWith(ctx, t.Log, t.LogOptions)
	if err != nil {
		return nil, nil, err
	}
	raw, err := r.Checkpoint(ctx)
	if err != nil {
		return nil, nil, err
	}
	rr := &roundResult{next: *st}
	rr.next.Pending = nil
	rr.next.Log = canonicalLog(t.Log)
	ev := func(code finding.Code, subject, msg string, cp tlog.Checkpoint, idParts ...any) {
		e := Event{Time: now.UTC(), Tenant: t.Tenant, Log: t.Log, Finding: finding.New(code, subject, msg),
			Size: cp.Size, Root: cp.Root, PrevSize: st.Size, PrevRoot: st.Root}
		e.ID = eventID(append([]any{t.Tenant, t.Log, code, subject}, idParts...)...)
		rr.events = append(rr.events, e)
	}
	cp, err := tlog.ParseCheckpoint(raw, verifier)
	if err != nil || cp.Status != tlog.Verified {
		why := "does not carry a valid signature by the pinned log key"
		if err != nil {
			why = err.Error()
		}
		rr.alertOnce(ev, finding.CheckpointSigInvalid, "checkpoint", "the published checkpoint "+why+"; the round stops here and the state keeps the last verified checkpoint", cp, sha256.Sum256(raw))
		rr.next.Round++
		return rr.events, &rr.next, nil
	}
	if t.Policy != nil {
		rr.witnesses(ev, t.Policy, raw, cp, st)
	}
	if !rr.compare(ctx, ev, r, cp, st) {
		rr.next.Round++
		return rr.events, &rr.next, nil
	}
	if cp.Size > st.Size && !(st.Size == 0 && st.Root == nil) {
		if err := rr.newLeaves(ctx, ev, r, t, cp, st); err != nil {
			return nil, nil, err
		}
	}
	rr.next.Origin, rr.next.Size, rr.next.Root, rr.next.Checkpoint = cp.Origin, cp.Size, cp.Root, string(raw)
	rr.next.Round++
	return rr.events, &rr.next, nil
}

type emit func(code finding.Code, subject, msg string, cp tlog.Checkpoint, idParts ...any)

// alertOnce reports a standing error condition the first round it is seen.
func (rr *roundResult) alertOnce(ev emit, code finding.Code, subject, msg string, cp tlog.Checkpoint, idParts ...any) {
	n := len(rr.events)
	ev(code, subject, msg, cp, idParts...)
	id := rr.events[n].ID
	if rr.next.alerted(id) {
		rr.events = rr.events[:n]
		return
	}
	rr.next.Alerted = append(rr.next.Alerted, id)
}

// witnesses checks the cosignatures and reports quorum changes.
func (rr *roundResult) witnesses(ev emit, p *Policy, raw []byte, cp tlog.Checkpoint, st *State) {
	cc, err := p.CheckCosignatures(raw)
	if err != nil {
		cc = CosignatureCheck{}
	}
	for _, name := range cc.Mismatched {
		rr.alertOnce(ev, finding.WitnessCosignatureMismatch, "witness "+name,
			fmt.Sprintf("witness %s's cosignature on the checkpoint of size %d does not verify over it: the witness cosigned another checkpoint (a split view) or the line is forged", name, cp.Size), cp, cp.Size, fmt.Sprintf("%x", cp.Root))
	}
	met := cc.QuorumMet
	switch {
	case !met && (st.QuorumMet == nil || *st.QuorumMet):
		ev(finding.WitnessQuorumLost, "checkpoint", fmt.Sprintf("%d of the policy's %d witnesses cosigned the checkpoint of size %d (%v): the quorum is not met, so nothing shows that other parties see this same log", len(cc.Verified), p.Witnesses(), cp.Size, cc.Verified), cp, cp.Size, rr.next.Round)
	case met && st.QuorumMet != nil && !*st.QuorumMet:
		ev(finding.WitnessQuorumMet, "checkpoint", fmt.Sprintf("the witness quorum is met again at size %d (%v)", cp.Size, cc.Verified), cp, cp.Size, rr.next.Round)
	}
	rr.next.QuorumMet = &met
}

// compare checks the new checkpoint against the last verified one. It
// returns false when the state must not advance (a rollback or a fork).
func (rr *roundResult) compare(ctx context.Context, ev emit, r *tlog.Reader, cp tlog.Checkpoint, st *State) bool {
	if st.Size == 0 && st.Root == nil {
		ev(finding.WatchStateNew, "checkpoint", fmt.Sprintf("first round for this log: the checkpoint of size %d (origin \"%s\") is trusted on first use; run memscope verify once for the history before it", cp.Size, cp.Origin), cp, cp.Size, fmt.Sprintf("%x", cp.Root))
		return true
	}
	root := fmt.Sprintf("%x", cp.Root)
	if st.Origin != "" && cp.Origin != st.Origin {
		rr.alertOnce(ev, finding.CheckpointFork, "checkpoint", fmt.Sprintf("the checkpoint's origin changed from \"%s\" to \"%s\" under the same key", st.Origin, cp.Origin), cp, cp.Origin)
		return false
	}
	switch {
	case cp.Size < st.Size:
		rr.alertOnce(ev, finding.WatchRollback, "checkpoint", fmt.Sprintf("the log now shows size %d, smaller than the size %d this monitor verified before", cp.Size, st.Size), cp, cp.Size, root)
		return false
	case cp.Size == st.Size:
		if !bytes.Equal(cp.Root, st.Root) {
			rr.alertOnce(ev, finding.CheckpointFork, "checkpoint", fmt.Sprintf("two roots for size %d, both signed by the log key: %x verified before, %x now (a fork)", cp.Size, st.Root, cp.Root), cp, cp.Size, root)
			return false
		}
		return true
	}
	proof, err := r.ConsistencyProof(ctx, st.Size, cp.Size)
	if err == nil {
		err = tlog.VerifyConsistency(st.Size, cp.Size, proof, st.Root, cp.Root)
	}
	if err != nil {
		rr.alertOnce(ev, finding.CheckpointFork, "checkpoint", fmt.Sprintf("the checkpoint of size %d is not consistent with the one of size %d verified before (%v): a fork, or tiles that do not match the checkpoint", cp.Size, st.Size, err), cp, cp.Size, root)
		return false
	}
	return true
}

// leafCounts tallies the new leaves by kind for the advance event.
type leafCounts struct{ records, tombstones, events, malformed int }

// newLeaves reads the leaves added since the last verified checkpoint,
// proves each into the new root (so every byte used below was hashed into
// what was verified), and checks what they say.
func (rr *roundResult) newLeaves(ctx context.Context, ev emit, r *tlog.Reader, t Target, cp tlog.Checkpoint, st *State) error {
	var n leafCounts
	// With a snapshot, the new leaves' bytes go to its incremental check
	// (nil: too many to hold, or one did not prove).
	var nl *verify.NewLeaves
	if t.Snapshot != "" && cp.Size-st.Size <= maxIncrementalLeaves {
		nl = &verify.NewLeaves{From: st.Size, Size: cp.Size, Root: cp.Root, Leaves: make([][]byte, 0, cp.Size-st.Size), Log: r}
	}
	for leaf, err := range r.Leaves(ctx, st.Size, cp.Size) {
		if err != nil {
			return fmt.Errorf("new leaves [%d, %d): %w", st.Size, cp.Size, err)
		}
		h := leafHash(leaf.Data)
		ok, err := r.CheckLeaf(ctx, h, leaf.Index, cp.Size, cp.Root)
		if err != nil {
			return err
		}
		if !ok {
			nl = nil
			ev(finding.InclusionFailed, fmt.Sprintf("leaf %d", leaf.Index), fmt.Sprintf("leaf %d as served does not prove into the checkpoint of size %d: the entry bundle and the tree disagree", leaf.Index, cp.Size), cp, leaf.Index, fmt.Sprintf("%x", cp.Root))
			continue
		}
		if nl != nil {
			nl.Leaves = append(nl.Leaves, leaf.Data)
		}
		pl, perr := record.ParseLeaf(leaf.Data)
		switch {
		case perr != nil:
			n.malformed++
			ev(finding.LeafMalformed, fmt.Sprintf("leaf %d", leaf.Index), perr.Error(), cp, leaf.Index)
			continue
		case pl.Kind == record.LeafTombstone:
			n.tombstones++
		case pl.Kind == record.LeafRecord:
			n.records++
		default:
			n.events++
		}
	}
	note := ""
	if t.Snapshot != "" {
		if nl != nil && uint64(len(nl.Leaves)) != cp.Size-st.Size {
			nl = nil
		}
		var err error
		if note, err = rr.snapshot(ctx, ev, t, cp, st, nl); err != nil {
			return err
		}
		note = "; " + note
	}
	ev(finding.WatchCheckpointAdvanced, "checkpoint", fmt.Sprintf("size %d -> %d, consistent: %d new leaves (%d records, %d tombstones, %d events, %d malformed)%s", st.Size, cp.Size, cp.Size-st.Size, n.records, n.tombstones, n.events, n.malformed, note), cp, cp.Size, fmt.Sprintf("%x", cp.Root))
	return nil
}

// leafHash is RFC 6962's leaf hash.
func leafHash(data []byte) []byte {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(data)
	return h.Sum(nil)
}

// transient are the codes a live store can show for a moment between
// the recorder's log append and its snapshot commit: reported only when
// a second round still sees them.
var transient = map[finding.Code]bool{finding.RecordNotInLog: true, finding.LeafWithoutRecord: true}

// snapshot reports what the round's snapshot check found, each standing
// condition once.
func (rr *roundResult) snapshot(ctx context.Context, ev emit, t Target, cp tlog.Checkpoint, st *State, nl *verify.NewLeaves) (string, error) {
	o, err := checkSnapshot(ctx, t, st, cp.Size, nl)
	if err != nil {
		return "", err
	}
	var suspect []string
	for _, f := range o.findings {
		id := eventID(t.Tenant, t.Log, f.Code, f.Subject, f.Message)
		if transient[f.Code] && !slices.Contains(st.Suspect, id) {
			suspect = append(suspect, id)
			continue
		}
		rr.alertOnce(ev, f.Code, f.Subject, f.Message, cp, f.Subject, f.Message)
	}
	rr.next.Suspect = suspect
	rr.next.Snapshot = &SnapshotState{Diverged: o.diverged, Marks: o.marks}
	return o.note, nil
}
