package verify

import (
	"crypto/ed25519"
	"math/rand/v2"
	"testing"

	"filippo.io/edwards25519"
)

// edKey must answer exactly as crypto/ed25519.Verify: on valid signatures,
// on every single-bit corruption of signature and message, on a
// non-canonical S (S + L, which crypto/ed25519 rejects) and on another
// key's signature.
func TestEdKeyAgreesWithStdlib(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	seed := make([]byte, ed25519.SeedSize)
	// Every check is also made again in one batch (verifyBatch), mixing
	// rounds, keys, good and bad signatures.
	var jobs []sigJob
	var wants []bool
	var whats []string
	defer func() {
		verifyBatch(jobs)
		for i, j := range jobs {
			if j.ok != wants[i] {
				t.Fatalf("batch job %d (%s): verifyBatch says %v, crypto/ed25519 says %v", i, whats[i], j.ok, wants[i])
			}
		}
	}()
	for round := 0; round < 40; round++ {
		for i := range seed {
			seed[i] = byte(rng.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed)
		pub := priv.Public().(ed25519.PublicKey)
		k, err := newEdKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		k.tabOnce.Do(func() { k.tab = newNafTable(&k.minusA) })
		// The same key without its table (past maxKeyTables) takes
		// edwards25519's VarTimeDoubleScalarBaseMult.
		plain, _ := newEdKey(pub)
		plain.tabOnce.Do(func() {})
		msg := make([]byte, rng.IntN(200))
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		sig := ed25519.Sign(priv, msg)
		check := func(what string, m, s []byte) {
			t.Helper()
			want := ed25519.Verify(pub, m, s)
			if got := k.verify(m, s); got != want {
				t.Fatalf("round %d, %s: edKey says %v, crypto/ed25519 says %v", round, what, got, want)
			}
			if got := plain.verify(m, s); got != want {
				t.Fatalf("round %d, %s: edKey without its table says %v, crypto/ed25519 says %v", round, what, got, want)
			}
			jobs, wants, whats = append(jobs, sigJob{k: k, msg: m, sig: s}), append(wants, want), append(whats, what)
		}
		check("valid", msg, sig)
		if !k.verify(msg, sig) {
			t.Fatal("a valid signature does not verify")
		}
		for bit := 0; bit < len(sig)*8; bit += 7 {
			bad := append([]byte{}, sig...)
			bad[bit/8] ^= 1 << (bit % 8)
			check("signature bit flipped", msg, bad)
		}
		if len(msg) > 0 {
			bad := append([]byte{}, msg...)
			bad[rng.IntN(len(bad))] ^= 0x10
			check("message changed", bad, sig)
		}
		check("truncated", msg, sig[:63])
		// S + L encodes the same scalar non-canonically.
		var s edwards25519.Scalar
		if _, err := s.SetCanonicalBytes(sig[32:]); err != nil {
			t.Fatal(err)
		}
		var sl [32]byte
		copy(sl[:], sig[32:])
		carry := 0
		for i, b := range lOrder {
			x := int(sl[i]) + int(b) + carry
			sl[i], carry = byte(x), x>>8
		}
		check("S + L", msg, append(append([]byte{}, sig[:32]...), sl[:]...))
		other := ed25519.Sign(ed25519.NewKeyFromSeed(append(seed[1:], 9)), msg)
		check("another key's signature", msg, other)
	}
}

// lOrder is the group order L, little-endian.
var lOrder = [32]byte{0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10}

func FuzzEdKeyAgreesWithStdlib(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	f.Add([]byte(priv.Public().(ed25519.PublicKey)), []byte("m"), ed25519.Sign(priv, []byte("m")))
	f.Add(make([]byte, 32), []byte{}, make([]byte, 64))
	goodPriv := ed25519.NewKeyFromSeed(append(make([]byte, 31), 1))
	good, _ := newEdKey(goodPriv.Public().(ed25519.PublicKey))
	goodSig := ed25519.Sign(goodPriv, []byte("m"))
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		k, err := newEdKey(pub)
		if err != nil {
			return // registration refuses such a key (CheckPublicKey)
		}
		// Every key gets its table here (the process-wide cap would leave
		// all but the first 1024 fuzzed keys without one), and a copy
		// without one checks edwards25519's routine.
		k.tabOnce.Do(func() { k.tab = newNafTable(&k.minusA) })
		plain, _ := newEdKey(pub)
		plain.tabOnce.Do(func() {})
		want := ed25519.Verify(pub, msg, sig)
		if got := k.verify(msg, sig); got != want {
			t.Fatalf("edKey %v, crypto/ed25519 %v", got, want)
		}
		if got := plain.verify(msg, sig); got != want {
			t.Fatalf("edKey without its table %v, crypto/ed25519 %v", got, want)
		}
		// In a batch, next to a good signature of another key.
		jobs := []sigJob{{k: k, msg: msg, sig: sig}, {k: good, msg: []byte("m"), sig: goodSig}, {k: k, msg: msg, sig: sig}}
		verifyBatch(jobs)
		if jobs[0].ok != want || !jobs[1].ok || jobs[2].ok != want {
			t.Fatalf("verifyBatch %v %v %v, crypto/ed25519 %v true %v", jobs[0].ok, jobs[1].ok, jobs[2].ok, want, want)
		}
	})
}

// BenchmarkEdKeyVsStdlib compares one verification with the key decoded
// once (edKey) against crypto/ed25519.Verify, which decodes it each call.
func BenchmarkEdKeyVsStdlib(b *testing.B) {
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	pub := priv.Public().(ed25519.PublicKey)
	msg := make([]byte, 300)
	sig := ed25519.Sign(priv, msg)
	k, _ := newEdKey(pub)
	b.Run("edKey", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			k.verify(msg, sig)
		}
	})
	b.Run("stdlib", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			ed25519.Verify(pub, msg, sig)
		}
	})
}
