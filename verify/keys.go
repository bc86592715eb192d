package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"sync"

	"filippo.io/edwards25519"
	"filippo.io/edwards25519/field"
)

// CheckPublicKey rejects Ed25519 public keys that are not the canonical
// encoding of a curve point, or that have small order. crypto/ed25519 does
// not check either: a small-order key lets one signature verify for many
// messages, so registries must refuse them once, per key.
func CheckPublicKey(pub []byte) error {
	if len(pub) != 32 {
		return errors.New("public key is not 32 bytes")
	}
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return errors.New("public key is not a valid curve point")
	}
	// SetBytes accepts y >= p; re-encoding exposes the non-canonical form.
	if !bytes.Equal(p.Bytes(), pub) {
		return errors.New("public key is not canonically encoded")
	}
	if new(edwards25519.Point).MultByCofactor(p).Equal(edwards25519.NewIdentityPoint()) == 1 {
		return errors.New("public key has small order")
	}
	return nil
}

// edKey is a registered Ed25519 public key decoded once. crypto/ed25519's
// Verify decompresses the key's point on every call (a square root, about
// 5 % of a verification); a store signs millions of records under a few
// keys. verify runs the same RFC 8032 check as crypto/ed25519.Verify
// (cofactorless, S canonical, R compared by its encoding) with the point
// kept; TestEdKeyAgreesWithStdlib and FuzzEdKeyAgreesWithStdlib hold it to
// the standard library's answers.
type edKey struct {
	raw    [32]byte
	minusA edwards25519.Point

	tabOnce sync.Once
	tab     *nafTable // -A's odd multiples (edmul.go); nil past maxKeyTables
}

func (k *edKey) table() *nafTable {
	k.tabOnce.Do(func() {
		if keyTables.Add(1) <= maxKeyTables {
			k.tab = newNafTable(&k.minusA)
		}
	})
	return k.tab
}

func newEdKey(pub []byte) (*edKey, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, errors.New("public key is not 32 bytes")
	}
	a, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return nil, errors.New("public key is not a valid curve point")
	}
	k := &edKey{}
	copy(k.raw[:], pub)
	k.minusA.Negate(a)
	return k, nil
}

// verify reports whether sig is k's valid Ed25519 signature of msg.
func (k *edKey) verify(msg, sig []byte) bool {
	var r p2
	if !k.point(msg, sig, &r) {
		return false
	}
	var zInv field.Element
	zInv.Invert(&r.z)
	var enc [32]byte
	encodeP2(&r, &zInv, &enc)
	return bytes.Equal(sig[:32], enc[:])
}

// point computes [S]B - [k]A into r, the point whose encoding must be the
// signature's R; false when the signature is rejected before that.
func (k *edKey) point(msg, sig []byte, r *p2) bool {
	if len(sig) != ed25519.SignatureSize || sig[63]&224 != 0 {
		return false
	}
	h := sha512.New()
	h.Write(sig[:32])
	h.Write(k.raw[:])
	h.Write(msg)
	var digest [sha512.Size]byte
	kh, err := new(edwards25519.Scalar).SetUniformBytes(h.Sum(digest[:0]))
	if err != nil {
		return false
	}
	s, err := new(edwards25519.Scalar).SetCanonicalBytes(sig[32:])
	if err != nil {
		return false
	}
	// [S]B = R + [k]A  <=>  [k](-A) + [S]B = R
	if tab := k.table(); tab != nil {
		doubleScalarMult(kh.Bytes(), tab, s.Bytes(), r)
		return true
	}
	var p edwards25519.Point
	p.VarTimeDoubleScalarBaseMult(kh, &k.minusA, s)
	X, Y, Z, _ := p.ExtendedCoordinates()
	r.x.Set(X)
	r.y.Set(Y)
	r.z.Set(Z)
	return true
}

// sigJob is one signature to check in a batch: the signer's decoded key,
// the signed bytes and the signature. ok is the answer.
type sigJob struct {
	k        *edKey
	msg, sig []byte
	ok       bool
}

// verifyBatch answers every job exactly as edKey.verify would, sharing
// the one field inversion that encoding each [S]B - [k]A point needs
// (Montgomery's trick: one inversion and three multiplications per point
// instead of an inversion each, which is about 6 % of a verification).
// Each signature is still checked on its own; no batch equation is used.
func verifyBatch(jobs []sigJob) {
	pts := make([]p2, len(jobs))
	live := make([]int, 0, len(jobs))
	for i := range jobs {
		jobs[i].ok = false
		if jobs[i].k.point(jobs[i].msg, jobs[i].sig, &pts[i]) {
			live = append(live, i)
		}
	}
	if len(live) == 0 {
		return
	}
	prefix := make([]field.Element, len(live))
	var acc field.Element
	acc.One()
	for j, i := range live {
		prefix[j].Set(&acc)
		acc.Multiply(&acc, &pts[i].z)
	}
	if acc.Equal(new(field.Element).Zero()) == 1 {
		// A zero Z cannot come out of the curve arithmetic; should one
		// ever, each point is encoded on its own.
		for _, i := range live {
			var zInv field.Element
			zInv.Invert(&pts[i].z)
			var enc [32]byte
			encodeP2(&pts[i], &zInv, &enc)
			jobs[i].ok = bytes.Equal(jobs[i].sig[:32], enc[:])
		}
		return
	}
	var inv, zInv field.Element
	inv.Invert(&acc)
	for j := len(live) - 1; j >= 0; j-- {
		i := live[j]
		zInv.Multiply(&inv, &prefix[j]) // 1/z_j
		inv.Multiply(&inv, &pts[i].z)   // 1/(z_0...z_{j-1})
		var enc [32]byte
		encodeP2(&pts[i], &zInv, &enc)
		jobs[i].ok = bytes.Equal(jobs[i].sig[:32], enc[:])
	}
}
