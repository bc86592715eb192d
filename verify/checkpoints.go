package verify

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"golang.org/x/mod/sumdb/note"
)

func (v *verifier) checkpoints(ctx context.Context, lv note.Verifier) error {
	rows, err := v.snap.Checkpoints(ctx)
	for _, r := range rows {
		if r.Record != nil {
			v.cpRecords = append(v.cpRecords, r.Record)
		}
	}
	if err != nil {
		v.add(phaseCheckpoints, 0, finding.RowMalformed, "checkpoints", err.Error())
		return nil
	}
	v.rep.Checkpoints = len(rows)
	var verifiers []note.Verifier
	if lv != nil {
		verifiers = append(verifiers, lv)
	}
	bySize := map[uint64][]byte{}
	v.checkpointOrder(rows)
	for _, row := range rows {
		cv := v.checkpoint(ctx, row, lv != nil, verifiers, bySize)
		v.rep.CheckpointVerdicts = append(v.rep.CheckpointVerdicts, cv)
	}
	return nil
}

// checkpoint checks one recorded checkpoint: its signature under the pinned
// key, its agreement with others of its size, and its consistency with the
// log. Each failure is a finding; the verdict says what was and was not
// checked.
func (v *verifier) checkpoint(ctx context.Context, row loader.CheckpointRow, pinned bool, verifiers []note.Verifier, bySize map[uint64][]byte) CheckpointVerdict {
	subj := "checkpoint " + strconv.FormatInt(row.Seq, 10)
	cv := CheckpointVerdict{Seq: row.Seq}
	fail := func(which *Check, code finding.Code, msg string) {
		v.add(phaseCheckpoints, row.Seq, code, subj, msg)
		*which = Failed
		if cv.Code == "" {
			cv.Code, cv.Message = code, msg
		}
	}
	cp, err := tlog.ParseCheckpoint(row.Note, verifiers...)
	if err != nil {
		fail(&cv.Signature, finding.RowMalformed, err.Error())
		return cv
	}
	cv.Parsed, cv.Size, cv.Root = true, cp.Size, cp.Root
	if pinned {
		if cp.Status != tlog.Verified {
			fail(&cv.Signature, finding.CheckpointSigInvalid, fmt.Sprintf("checkpoint of size %d is not validly signed by the pinned log key (%s)", cp.Size, cp.Status))
			return cv
		}
		cv.Signature = Passed
	}
	v.seenCheckpoints = append(v.seenCheckpoints, seenCheckpoint{row.Seq, cp.Size, row.SeenAt})
	if prev, ok := bySize[cp.Size]; ok && !bytes.Equal(prev, cp.Root) {
		fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("two checkpoints of size %d with different roots", cp.Size))
	}
	bySize[cp.Size] = cp.Root
	if !v.logOK {
		return cv
	}
	switch {
	case cp.Size > v.size:
		fail(&cv.Consistent, finding.LogRollback, fmt.Sprintf("the store saw a checkpoint of size %d but the log has only %d leaves", cp.Size, v.size))
	case cp.Size == v.size:
		if !bytes.Equal(cp.Root, v.root) {
			fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("checkpoint of size %d has a different root than the log's", cp.Size))
		}
	case cp.Size == 0:
		// Every tree extends the empty one; there is nothing to prove, and
		// proofs from size 0 are rejected outright.
	default:
		p, err := v.log.ConsistencyProof(ctx, cp.Size, v.size)
		if err != nil {
			fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("cannot build a consistency proof from size %d to %d: %v", cp.Size, v.size, err))
		} else if err := tlog.VerifyConsistency(cp.Size, v.size, p, cp.Root, v.root); err != nil {
			fail(&cv.Consistent, finding.CheckpointFork, fmt.Sprintf("checkpoint of size %d is not consistent with the log at size %d: the consistency proof does not link its root %s to the log's root", cp.Size, v.size, shortHash(cp.Root)))
		}
	}
	if cv.Consistent != Failed {
		cv.Consistent = Passed
	}
	return cv
}
