package record_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/memscope/memscope/evidence/record"
)

func testKey(b byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize))
}

// v7 makes a UUIDv7-shaped id whose other bytes start at first.
func v7(first byte) record.ID {
	var id record.ID
	for i := range id {
		id[i] = first + byte(i)
	}
	id[6] = 0x70 | id[6]&0x0f
	id[8] = 0x80 | id[8]&0x3f
	return id
}

func signedEntry(t testing.TB) (*record.Entry, ed25519.PrivateKey) {
	t.Helper()
	key := testKey(7)
	e := &record.Entry{V: record.FormatVersion, Kind: record.KindEntry, EID: v7(1), Content: "Remember the prize goes to the author born first.",
		Writer: "agent:planner", KID: record.KeyIDOf(key.Public().(ed25519.PublicKey)), HSrc: sha256.Sum256([]byte("s")), HCtx: sha256.Sum256([]byte("c")),
		Trust: record.DerivedTrusted, Parents: []record.ID{v7(0x20), v7(0x40)}, Weights: []float64{0.5, 0.9}, TS: 1772442000123456789, Nonce: [16]byte{9, 8, 7}}
	if err := record.Sign(e, key); err != nil {
		t.Fatal(err)
	}
	return e, key
}

func signedWrite(t testing.TB) (*record.Write, ed25519.PrivateKey) {
	t.Helper()
	key := testKey(8)
	w := &record.Write{V: record.FormatVersion, Kind: record.KindRelation, WID: v7(0x30), Src: "entity:Chatwin", Dst: "passage:p1", Rel: "related_to",
		Weight: 60, Writer: "agent:peer", KID: record.KeyIDOf(key.Public().(ed25519.PublicKey)), Sources: []record.ID{v7(1)}, TS: 1772442000000000000, Nonce: [16]byte{1}}
	if err := record.Sign(w, key); err != nil {
		t.Fatal(err)
	}
	return w, key
}

func signedPrincipal(t testing.TB) (*record.PrincipalEvent, ed25519.PrivateKey) {
	t.Helper()
	root := testKey(9)
	p := &record.PrincipalEvent{V: record.FormatVersion, Kind: record.KindPrincipal, RID: v7(0x50), Op: record.OpRegister, Principal: "tool:search",
		Channel: record.ChannelAuthenticated, TS: 1772442000000000001, Nonce: [16]byte{2}}
	copy(p.PublicKey[:], testKey(10).Public().(ed25519.PublicKey))
	copy(p.Root[:], root.Public().(ed25519.PublicKey))
	if err := record.Sign(p, root); err != nil {
		t.Fatal(err)
	}
	return p, root
}

func signedTombstone(t testing.TB) (*record.Tombstone, ed25519.PrivateKey) {
	t.Helper()
	key := testKey(11)
	ts := &record.Tombstone{V: record.FormatVersion, Kind: record.KindTombstone, Target: v7(1), Reason: "user requested erasure",
		Writer: "user", KID: record.KeyIDOf(key.Public().(ed25519.PublicKey)), TS: 1772442000000000002, Nonce: [16]byte{3}}
	if err := record.Sign(ts, key); err != nil {
		t.Fatal(err)
	}
	return ts, key
}

func mustEncode(t testing.TB, v any) []byte {
	t.Helper()
	b, err := record.Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pair is one top-level key/value of an encoded map, as raw CBOR.
type pair struct {
	key  string
	k, v []byte
}

var lenient = func() cbor.DecMode {
	m, err := cbor.DecOptions{DupMapKey: cbor.DupMapKeyQuiet, IndefLength: cbor.IndefLengthAllowed, TagsMd: cbor.TagsAllowed, UTF8: cbor.UTF8DecodeInvalid}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// splitMap takes a canonical record encoding (map header below 24 pairs)
// apart so that tests can splice in malformed values byte by byte.
func splitMap(t testing.TB, raw []byte) []pair {
	t.Helper()
	if raw[0]>>5 != 5 || raw[0]&0x1f >= 24 {
		t.Fatalf("not a small definite map: %x", raw[:1])
	}
	n := int(raw[0] & 0x1f)
	dec := lenient.NewDecoder(bytes.NewReader(raw[1:]))
	var out []pair
	for i := 0; i < n; i++ {
		var k, v cbor.RawMessage
		if err := dec.Decode(&k); err != nil {
			t.Fatal(err)
		}
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var name string
		if err := lenient.Unmarshal(k, &name); err != nil {
			t.Fatal(err)
		}
		out = append(out, pair{key: name, k: k, v: v})
	}
	return out
}

func joinMap(pairs []pair) []byte {
	if len(pairs) >= 24 {
		panic("joinMap: too many pairs")
	}
	out := []byte{0xa0 | byte(len(pairs))}
	for _, p := range pairs {
		out = append(out, p.k...)
		out = append(out, p.v...)
	}
	return out
}

// textKey is the CBOR encoding of a short text key.
func textKey(s string) []byte { return append([]byte{0x60 | byte(len(s))}, s...) }

// withValue replaces key's value by raw bytes (appending the pair, in
// canonical position, when key is absent).
func withValue(t testing.TB, raw []byte, key string, value []byte) []byte {
	t.Helper()
	ps := splitMap(t, raw)
	for i := range ps {
		if ps[i].key == key {
			ps[i].v = value
			return joinMap(ps)
		}
	}
	ps = append(ps, pair{key: key, k: textKey(key), v: value})
	sortCanonical(ps)
	return joinMap(ps)
}

func without(t testing.TB, raw []byte, key string) []byte {
	t.Helper()
	var out []pair
	for _, p := range splitMap(t, raw) {
		if p.key != key {
			out = append(out, p)
		}
	}
	return joinMap(out)
}

// sortCanonical orders pairs by the bytes of their encoded keys (RFC 8949
// section 4.2.1).
func sortCanonical(ps []pair) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && bytes.Compare(ps[j].k, ps[j-1].k) < 0; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// cborBytes encodes a byte string header plus body.
func cborBytes(b []byte) []byte {
	if len(b) < 24 {
		return append([]byte{0x40 | byte(len(b))}, b...)
	}
	if len(b) < 256 {
		return append([]byte{0x58, byte(len(b))}, b...)
	}
	return append([]byte{0x59, byte(len(b) >> 8), byte(len(b))}, b...)
}

func cborText(s string) []byte {
	b := cborBytes([]byte(s))
	b[0] = b[0]&0x1f | 0x60
	return b
}
