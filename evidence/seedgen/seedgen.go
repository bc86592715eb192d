// Package seedgen derives everything a reproducible store needs from one
// seed: signing keys per principal, UUIDv7 ids, nonces and a note key for
// the log. The scenario generator and the importer both promise "same
// input and seed, same bytes", and both keep that promise through here.
// Keys derived from a known seed protect nothing; they only make fixtures
// and imports reproducible.
package seedgen

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
)

// Gen is a deterministic source for one store. Domain separates the
// derivations of different tools sharing a seed.
type Gen struct {
	seed   uint64
	domain string
	rng    *rand.Rand
	keys   map[string]ed25519.PrivateKey
}

// New starts a generator for seed under domain (for example
// "memscope-import" or "scenario:clean").
func New(seed uint64, domain string) *Gen {
	g := &Gen{seed: seed, domain: domain, keys: map[string]ed25519.PrivateKey{}}
	g.rng = rand.New(rand.NewChaCha8(g.Derive("rng")))
	return g
}

// Derive returns 32 bytes for one purpose under the seed and domain.
func (g *Gen) Derive(purpose string) [32]byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], g.seed)
	return sha256.Sum256(append(b[:], g.domain+":"+purpose...))
}

// Rand is the generator's random stream (for choices beyond ids and keys).
func (g *Gen) Rand() *rand.Rand { return g.rng }

// ID makes a UUIDv7 whose timestamp is ts (nanoseconds) and whose random
// bits come from the stream.
func (g *Gen) ID(ts uint64) record.ID {
	var id record.ID
	ms := ts / 1e6
	for i := 0; i < 6; i++ {
		id[i] = byte(ms >> (40 - 8*i))
	}
	binary.BigEndian.PutUint64(id[6:14], g.rng.Uint64())
	binary.BigEndian.PutUint16(id[14:16], uint16(g.rng.Uint32()))
	id[6] = 0x70 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	return id
}

// Nonce returns 16 bytes from the stream.
func (g *Gen) Nonce() [16]byte {
	var n [16]byte
	binary.BigEndian.PutUint64(n[:8], g.rng.Uint64())
	binary.BigEndian.PutUint64(n[8:], g.rng.Uint64())
	return n
}

// Key returns the Ed25519 key of a principal (the same on every call).
func (g *Gen) Key(principal string) ed25519.PrivateKey {
	if k, ok := g.keys[principal]; ok {
		return k
	}
	s := g.Derive("principal:" + principal)
	k := ed25519.NewKeyFromSeed(s[:])
	g.keys[principal] = k
	return k
}

// NoteKey generates the log's note signer and verifier key for origin.
func (g *Gen) NoteKey(origin string) (note.Signer, string, error) {
	skey, vkey, err := note.GenerateKey(chachaReader{rand.NewChaCha8(g.Derive("log-key"))}, origin)
	if err != nil {
		return nil, "", err
	}
	signer, err := note.NewSigner(skey)
	return signer, vkey, err
}

type chachaReader struct{ r *rand.ChaCha8 }

func (c chachaReader) Read(p []byte) (int, error) { return c.r.Read(p) }
