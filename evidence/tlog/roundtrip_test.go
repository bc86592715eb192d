package tlog

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/client"
)

// naiveRoot is an independent RFC 6962 MTH (RFC 6962 section 2.1),
// written from the definition with recursion, to cross-check the log.
func naiveRoot(leaves [][]byte) []byte {
	switch len(leaves) {
	case 0:
		return rfc6962.DefaultHasher.EmptyRoot()
	case 1:
		return rfc6962.DefaultHasher.HashLeaf(leaves[0])
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return rfc6962.DefaultHasher.HashChildren(naiveRoot(leaves[:k]), naiveRoot(leaves[k:]))
}

func TestRoundTripSizes(t *testing.T) {
	t.Parallel()
	signer, verifier := testKey(t, testOrigin, 1)
	for _, n := range []uint64{1, 2, 255, 256, 257, 511, 512, 513, 3000} {
		leaves := testLeaves(n)
		dir, cpRaw := writeLog(t, signer, leaves)
		cp, err := ParseCheckpoint(cpRaw, verifier)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		want := naiveRoot(leaves)
		if cp.Status != Verified || cp.Size != n || !bytes.Equal(cp.Root, want) || cp.Origin != testOrigin || !cp.OriginMatchesKey {
			t.Fatalf("n=%d: checkpoint %+v, want verified size %d root %x", n, cp, n, want)
		}
		srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
		for _, loc := range []string{dir, srv.URL, srv.URL + "/"} {
			checkReader(t, loc, leaves, cp.Root)
		}
		srv.Close()
	}
}

func checkReader(t *testing.T, loc string, leaves [][]byte, root []byte) {
	t.Helper()
	ctx := context.Background()
	n := uint64(len(leaves))
	r, err := Open(ctx, loc)
	if err != nil {
		t.Fatalf("%s: %v", loc, err)
	}
	if size, err := r.Size(); err != nil || size != n {
		t.Fatalf("%s: Size = %d, %v; want %d", loc, size, err, n)
	}
	// Streaming returns every leaf, in order, with its index.
	next := uint64(0)
	for l, err := range r.Leaves(ctx, 0, n) {
		if err != nil {
			t.Fatalf("%s: leaf stream: %v", loc, err)
		}
		if l.Index != next || !bytes.Equal(l.Data, leaves[next]) {
			t.Fatalf("%s: streamed leaf %d (index %d) differs", loc, next, l.Index)
		}
		next++
	}
	if next != n {
		t.Fatalf("%s: streamed %d leaves, want %d", loc, next, n)
	}
	// A sub-range starting mid-bundle.
	if n > 300 {
		got := uint64(0)
		for l, err := range r.Leaves(ctx, 250, 300) {
			if err != nil || l.Index != 250+got || !bytes.Equal(l.Data, leaves[l.Index]) {
				t.Fatalf("%s: sub-range leaf %d: %v", loc, l.Index, err)
			}
			got++
		}
		if got != 50 {
			t.Fatalf("%s: sub-range gave %d leaves", loc, got)
		}
	}
	// Every inclusion proof verifies against the checkpoint root and equals
	// what tessera's own ProofBuilder builds.
	pb, err := client.NewProofBuilder(ctx, n, r.readTile)
	if err != nil {
		t.Fatal(err)
	}
	step := uint64(1)
	if n > 600 {
		step = 7
	}
	for i := uint64(0); i < n; i += step {
		p, err := r.InclusionProof(ctx, i, n)
		if err != nil {
			t.Fatalf("%s: inclusion %d: %v", loc, i, err)
		}
		if err := VerifyInclusion(leaves[i], i, n, p, root); err != nil {
			t.Fatalf("%s: %v", loc, err)
		}
		ref, err := pb.InclusionProof(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if !equalProofs(p, ref) {
			t.Fatalf("%s: inclusion %d differs from client.ProofBuilder", loc, i)
		}
		if i > 0 {
			if err := VerifyInclusion(leaves[i-1], i, n, p, root); err == nil {
				t.Fatalf("%s: leaf %d verified at index %d", loc, i-1, i)
			}
		}
	}
	// Roots and consistency between several earlier sizes.
	sizes := []uint64{1, 2, 3, n / 3, n / 2, n - 1, n}
	for _, s1 := range sizes {
		if s1 == 0 || s1 > n {
			continue
		}
		r1, err := r.RootAt(ctx, s1)
		if err != nil {
			t.Fatalf("%s: RootAt(%d): %v", loc, s1, err)
		}
		if want := naiveRoot(leaves[:s1]); !bytes.Equal(r1, want) {
			t.Fatalf("%s: RootAt(%d) = %x, want %x", loc, s1, r1, want)
		}
		// Inclusion at an earlier size uses partial tiles that Close removed.
		if p, err := r.InclusionProof(ctx, s1-1, s1); err != nil || VerifyInclusion(leaves[s1-1], s1-1, s1, p, r1) != nil {
			t.Fatalf("%s: inclusion of last leaf at size %d: %v", loc, s1, err)
		}
		for _, s2 := range sizes {
			if s2 < s1 || s2 > n {
				continue
			}
			r2 := naiveRoot(leaves[:s2])
			p, err := r.ConsistencyProof(ctx, s1, s2)
			if err != nil {
				t.Fatalf("%s: consistency %d->%d: %v", loc, s1, s2, err)
			}
			if err := VerifyConsistency(s1, s2, p, r1, r2); err != nil {
				t.Fatalf("%s: %v", loc, err)
			}
			ref, err := pb.ConsistencyProof(ctx, s1, s2)
			if err != nil {
				t.Fatal(err)
			}
			if !equalProofs(p, ref) {
				t.Fatalf("%s: consistency %d->%d differs from client.ProofBuilder", loc, s1, s2)
			}
			if s1 < s2 {
				if err := VerifyConsistency(s1, s2, p, r1, root); s2 != n && err == nil {
					t.Fatalf("%s: consistency %d->%d verified against the wrong larger root", loc, s1, s2)
				}
			}
		}
	}
	probs, err := r.Check(ctx, n, root)
	if err != nil || len(probs) != 0 {
		t.Fatalf("%s: Check of an intact log: %v %v", loc, probs, err)
	}
	for _, s := range sizes {
		if s == 0 || s > n {
			continue
		}
		if probs, err := r.Check(ctx, s, naiveRoot(leaves[:s])); err != nil || len(probs) != 0 {
			t.Fatalf("%s: Check at earlier size %d: %v %v", loc, s, probs, err)
		}
	}
}

func equalProofs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// One Reader serves concurrent proofs (run with -race).
func TestReaderConcurrentProofs(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	const n = 1500
	leaves := testLeaves(n)
	dir, _ := writeLog(t, signer, leaves)
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	root := naiveRoot(leaves)
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for i := uint64(g); i < n; i += 4 {
				p, err := r.InclusionProof(ctx, i, n)
				if err == nil {
					err = VerifyInclusion(leaves[i], i, n, p, root)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
