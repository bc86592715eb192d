package tlog

import (
	"bytes"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
)

// InclusionPath ends at the root for every leaf of trees of every shape up
// to 33 leaves, with one step per proof element; a flipped proof byte
// makes it fail while the steps still show where the path went.
func TestInclusionPath(t *testing.T) {
	t.Parallel()
	tree := testonly.New(rfc6962.DefaultHasher)
	for size := uint64(1); size <= 33; size++ {
		tree.AppendData(testLeaf(size - 1))
		root := tree.HashAt(size)
		for i := uint64(0); i < size; i++ {
			p, err := tree.InclusionProof(i, size)
			if err != nil {
				t.Fatal(err)
			}
			steps, err := InclusionPath(tree.LeafHash(i), i, size, p, root)
			if err != nil {
				t.Fatalf("size %d leaf %d: %v", size, i, err)
			}
			if len(steps) != len(p) {
				t.Fatalf("size %d leaf %d: %d steps for %d proof hashes", size, i, len(steps), len(p))
			}
			if size > 1 && !bytes.Equal(steps[len(steps)-1].Node, root) {
				t.Fatalf("size %d leaf %d: path ends at %x, root %x", size, i, steps[len(steps)-1].Node, root)
			}
			if len(p) > 0 {
				bad := append([][]byte(nil), p...)
				bad[0] = append([]byte(nil), p[0]...)
				bad[0][0] ^= 1
				steps, err := InclusionPath(tree.LeafHash(i), i, size, bad, root)
				if err == nil || bytes.Equal(steps[len(steps)-1].Node, root) {
					t.Fatalf("size %d leaf %d: altered proof accepted", size, i)
				}
			}
		}
	}
	if _, err := InclusionPath(make([]byte, HashSize), 3, 3, nil, make([]byte, HashSize)); err == nil {
		t.Error("leaf beyond the tree accepted")
	}
}
