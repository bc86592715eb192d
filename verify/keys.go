package verify

import (
	"bytes"
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
