package tlog

import (
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
