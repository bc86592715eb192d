package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"

	"filippo.io/edwards25519"
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
	r := new(edwards25519.Point).VarTimeDoubleScalarBaseMult(kh, &k.minusA, s)
	return bytes.Equal(sig[:32], r.Bytes())
}
