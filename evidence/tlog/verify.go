package tlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/transparency-dev/tessera/api/layout"

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

// CheckLeaf answers what InclusionProof followed by VerifyInclusionHash
// answers (is leafHash the leaf at index in the tree of size leaves with
// this root?) for many leaves at less cost. A leaf in a full level-0 tile
// is compared with that tile's stored hash once the tile itself is proven:
// the inclusion proof of the tile's first leaf, whose eight lowest steps are
// taken from the very tile held in memory, shows that the tile's 256 hashes
// hash up to a node of the tree; each leaf then costs one hash and one
// comparison instead of a proof. Leaves in the partial right-hand tile get
// a proof each, and so does every leaf of a tile that fails to prove. The
// error is for proofs that cannot be built (a tile that cannot be read); ok
// is false when the leaf is not included.
func (r *Reader) CheckLeaf(ctx context.Context, leafHash []byte, index, size uint64, root []byte) (ok bool, err error) {
	tileIdx := index / layout.TileWidth
	first := tileIdx * layout.TileWidth
	if index >= size || first+layout.TileWidth > size || len(root) != HashSize || len(leafHash) != HashSize {
		return r.proveLeaf(ctx, leafHash, index, size, root)
	}
	if err := r.checkSize(size); err != nil {
		return false, fmt.Errorf("inclusion proof of leaf %d: %w", index, err)
	}
	t, err := r.tiles.get(ctx, tileKey{0, tileIdx, layout.TileWidth}, r.provenTileHashes)
	if err != nil {
		return false, fmt.Errorf("inclusion proof of leaf %d at size %d: %w", index, size, err)
	}
	if !t.provenIn(size, root) {
		nodes, err := proof.Inclusion(first, size)
		if err != nil {
			return false, fmt.Errorf("inclusion proof of leaf %d at size %d: %w", index, size, err)
		}
		if len(nodes.IDs) < layout.TileHeight {
			return r.proveLeaf(ctx, leafHash, index, size, root)
		}
		hashes := make([][]byte, len(nodes.IDs))
		for k, id := range nodes.IDs {
			if k < layout.TileHeight {
				// The sibling of the tile's first leaf at height k: node 1 of
				// row k of this very tile.
				if uint(id.Level) != uint(k) || id.Index != (first>>k)^1 {
					return r.proveLeaf(ctx, leafHash, index, size, root)
				}
				hashes[k] = t.node(uint(k), 1)
				continue
			}
			if hashes[k], err = r.node(ctx, id, size); err != nil {
				return false, fmt.Errorf("inclusion proof of leaf %d at size %d: %w", index, size, err)
			}
		}
		p, err := nodes.Rehash(hashes, rfc6962.DefaultHasher.HashChildren)
		if err != nil {
			return false, fmt.Errorf("inclusion proof of leaf %d at size %d: %w", index, size, err)
		}
		if VerifyInclusionHash(t.node(0, 0), first, size, p, root) != nil {
			// The tile does not hash up to the root. A leaf's own proof
			// may still verify (one whose stored hash alone was altered
			// uses only its siblings), so each leaf gets its own proof.
			return r.proveLeaf(ctx, leafHash, index, size, root)
		}
		t.markProven(size, root)
	}
	return bytes.Equal(t.node(0, index-first), leafHash), nil
}

// proveLeaf is CheckLeaf by one inclusion proof.
func (r *Reader) proveLeaf(ctx context.Context, leafHash []byte, index, size uint64, root []byte) (bool, error) {
	p, err := r.InclusionProof(ctx, index, size)
	if err != nil {
		return false, err
	}
	return VerifyInclusionHash(leafHash, index, size, p, root) == nil, nil
}
