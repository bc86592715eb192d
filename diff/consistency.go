package diff

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
)

// Checkpoint is the checkpoint a snapshot is compared at.
type Checkpoint struct {
	Present bool   `json:"present"`
	Size    uint64 `json:"size"`
	Root    []byte `json:"root"`
	// Signature is "verified" (by the user's log key), "unanchored" (no
	// key given), "signature invalid" or SigNotByPinnedKey.
	Signature string `json:"signature"`
	// Problem says why the checkpoint could not be read (Present false).
	Problem string `json:"problem"`
}

// Consistency is the verdict on the two checkpoints.
type Consistency struct {
	A Checkpoint `json:"a"`
	B Checkpoint `json:"b"`
	// Status: "consistent" (proof verified), "identical" (same size and
	// root), "fork", "rollback" or "not checked".
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// ProofSource fetches a consistency proof from the log.
type ProofSource func(ctx context.Context, smaller, larger uint64) ([][]byte, error)

// CheckConsistency checks that B's checkpoint extends A's: a smaller B is
// a rollback, equal sizes with different roots or a failing proof a fork.
// proof may be nil (no log): then the answer is "not checked" unless the
// sizes alone decide.
func CheckConsistency(ctx context.Context, a, b Checkpoint, proof ProofSource) (Consistency, []finding.Finding) {
	c := Consistency{A: a, B: b, Status: "not checked"}
	var fs []finding.Finding
	notChecked := func(why string) (Consistency, []finding.Finding) {
		c.Detail = why
		return c, append(fs, finding.New(finding.DiffConsistencyNotChecked, "checkpoints", why))
	}
	if !a.Present || !b.Present {
		return notChecked(fmt.Sprintf("a checkpoint is missing (A: %s, B: %s)", orNone(a.Problem), orNone(b.Problem)))
	}
	// verify's checkpoint rule: under a pinned log key, a checkpoint the
	// key did not validly sign proves nothing, so nothing is compared.
	var unsigned []string
	for _, cp := range []struct {
		name string
		c    Checkpoint
	}{{"A", a}, {"B", b}} {
		switch cp.c.Signature {
		case tlog.SigInvalid.String():
			fs = append(fs, finding.New(finding.CheckpointSigInvalid, "checkpoint of "+cp.name, "the checkpoint's signature does not verify under the log key"))
			unsigned = append(unsigned, cp.name)
		case SigNotByPinnedKey:
			fs = append(fs, finding.New(finding.CheckpointSigInvalid, "checkpoint of "+cp.name, "the checkpoint carries no signature by the pinned log key"))
			unsigned = append(unsigned, cp.name)
		}
	}
	if len(unsigned) > 0 {
		return notChecked(fmt.Sprintf("the checkpoint of %s is not validly signed by the pinned log key: it proves nothing, so the two were not compared", strings.Join(unsigned, " and ")))
	}
	switch {
	case b.Size < a.Size:
		c.Status, c.Detail = "rollback", fmt.Sprintf("B's tree size %d is smaller than A's %d", b.Size, a.Size)
		return c, append(fs, finding.New(finding.DiffRollback, "checkpoints", c.Detail))
	case b.Size == a.Size:
		if bytes.Equal(a.Root, b.Root) {
			c.Status, c.Detail = "identical", fmt.Sprintf("both at tree size %d with the same root", a.Size)
			return c, fs
		}
		c.Status, c.Detail = "fork", fmt.Sprintf("both at tree size %d with different roots", a.Size)
		return c, append(fs, finding.New(finding.DiffFork, "checkpoints", c.Detail))
	case a.Size == 0:
		return notChecked("A's checkpoint is of the empty tree: every tree extends it, so consistency proves nothing")
	case proof == nil:
		return notChecked("no log given: the consistency proof between the checkpoints was not fetched")
	}
	p, err := proof(ctx, a.Size, b.Size)
	if err != nil {
		return notChecked(fmt.Sprintf("consistency proof %d -> %d could not be fetched: %v", a.Size, b.Size, err))
	}
	if err := tlog.VerifyConsistency(a.Size, b.Size, p, a.Root, b.Root); err != nil {
		c.Status, c.Detail = "fork", err.Error()
		return c, append(fs, finding.New(finding.DiffFork, "checkpoints", "B's checkpoint does not extend A's: "+err.Error()))
	}
	c.Status, c.Detail = "consistent", fmt.Sprintf("tree size %d extends %d (proof of %d hashes verified)", b.Size, a.Size, len(p))
	return c, fs
}

// SigNotByPinnedKey is a checkpoint's Signature when a log key was pinned
// and no signature on the checkpoint is by it.
const SigNotByPinnedKey = "no signature by the pinned log key"

func orNone(s string) string {
	if s == "" {
		return "present"
	}
	return s
}
