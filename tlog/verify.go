package tlog

import (
	"context"
	"errors"
	"fmt"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// VerifyInclusion checks that leaf (raw bytes, hashed here as an RFC 6962
// leaf) is at index in the tree of size leaves whose root is root.
func VerifyInclusion(leaf []byte, index, size uint64, p [][]byte, root []byte) error {
	return VerifyInclusionHash(rfc6962.DefaultHasher.HashLeaf(leaf), index, size, p, root)
}

// VerifyInclusionHash is VerifyInclusion for an already hashed leaf.
func VerifyInclusionHash(leafHash []byte, index, size uint64, p [][]byte, root []byte) error {
	if err := checkHashes("inclusion proof", leafHash, root, p); err != nil {
		return err
	}
	if err := proof.VerifyInclusion(rfc6962.DefaultHasher, index, size, leafHash, p, root); err != nil {
		return fmt.Errorf("inclusion of leaf %d in tree size %d: %w", index, size, err)
	}
	return nil
}

// VerifyConsistency checks that the tree of size larger with root
// largerRoot extends the tree of size smaller with root smallerRoot.
func VerifyConsistency(smaller, larger uint64, p [][]byte, smallerRoot, largerRoot []byte) error {
	if err := checkConsistencySizes(smaller, larger); err != nil {
		return err
	}
	if err := checkHashes("consistency proof", smallerRoot, largerRoot, p); err != nil {
		return err
	}
	if err := proof.VerifyConsistency(rfc6962.DefaultHasher, smaller, larger, p, smallerRoot, largerRoot); err != nil {
		return fmt.Errorf("consistency %d -> %d: %w", smaller, larger, err)
	}
	return nil
}

// checkConsistencySizes rejects size 0 as the smaller tree: every tree
// extends the empty tree, so merkle/proof accepts an empty proof whatever
// the roots are. Treating that as "consistent" would let a forged or
// unrelated larger checkpoint pass as verified history.
func checkConsistencySizes(smaller, larger uint64) error {
	if smaller == 0 {
		return errors.New("consistency from size 0 proves nothing (any tree extends the empty tree); refusing")
	}
	if smaller > larger {
		return fmt.Errorf("consistency %d -> %d: smaller size is larger", smaller, larger)
	}
	return nil
}

// checkHashes enforces 32-byte hashes: merkle/proof would hash other
// lengths without complaint.
func checkHashes(what string, a, b []byte, p [][]byte) error {
	if len(a) != HashSize {
		return fmt.Errorf("%s: hash is %d bytes, want %d", what, len(a), HashSize)
	}
	if len(b) != HashSize {
		return fmt.Errorf("%s: root is %d bytes, want %d", what, len(b), HashSize)
	}
	for i, h := range p {
		if len(h) != HashSize {
			return fmt.Errorf("%s: element %d is %d bytes, want %d", what, i, len(h), HashSize)
		}
	}
	return nil
}

// PathStep is one level of an inclusion path, from the leaf upwards.
type PathStep struct {
	Sibling []byte // the proof hash at this level
	Left    bool   // the sibling is the left child
	Node    []byte // the hash computed at this level (the parent)
}

// InclusionPath walks proof p from leafHash towards the root (RFC 9162
// section 2.1.3.2) and returns every level, for views that show the path.
// The error is VerifyInclusionHash's verdict: the path is drawn from the
// same proof the library checks, never trusted on its own.
func InclusionPath(leafHash []byte, index, size uint64, p [][]byte, root []byte) ([]PathStep, error) {
	if index >= size {
		return nil, fmt.Errorf("inclusion: leaf %d is not in a tree of size %d", index, size)
	}
	if err := checkHashes("inclusion proof", leafHash, root, p); err != nil {
		return nil, err
	}
	steps := make([]PathStep, 0, len(p))
	fn, sn := index, size-1
	node := leafHash
	for _, h := range p {
		if sn == 0 {
			break // the proof is longer than the tree is tall; the check below says so
		}
		step := PathStep{Sibling: h}
		if fn&1 == 1 || fn == sn {
			node = rfc6962.DefaultHasher.HashChildren(h, node)
			step.Left = true
			for fn&1 == 0 && fn != 0 {
				fn >>= 1
				sn >>= 1
			}
		} else {
			node = rfc6962.DefaultHasher.HashChildren(node, h)
		}
		step.Node = node
		steps = append(steps, step)
		fn >>= 1
		sn >>= 1
	}
	return steps, VerifyInclusionHash(leafHash, index, size, p, root)
}

// InclusionPath fetches the inclusion proof of leaf index in the tree of
// size leaves and walks it (see the function InclusionPath).
func (r *Reader) InclusionPath(ctx context.Context, index, size uint64, leafHash, root []byte) ([]PathStep, error) {
	p, err := r.InclusionProof(ctx, index, size)
	if err != nil {
		return nil, err
	}
	return InclusionPath(leafHash, index, size, p, root)
}
