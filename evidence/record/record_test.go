package record_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/memscope/memscope/evidence/record"
)

// TestWorkedExample checks Encode, SigningBytes and Sign against bytes
// computed independently by Python's cbor2 and cryptography
// (testdata/worked_example.py says how the fixture was made).
func TestWorkedExample(t *testing.T) {
	b, err := os.ReadFile("testdata/worked_example.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Seed         string `json:"seed"`
		PublicKey    string `json:"public_key"`
		SigningBytes string `json:"signing_bytes"`
		Sig          string `json:"sig"`
		Record       string `json:"record"`
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	key := ed25519.NewKeyFromSeed(unhex(fx.Seed))
	pub := key.Public().(ed25519.PublicKey)
	if !bytes.Equal(pub, unhex(fx.PublicKey)) {
		t.Fatalf("public key %x, fixture %s", pub, fx.PublicKey)
	}
	id := func(first byte) record.ID {
		var id record.ID
		for i := range id {
			id[i] = first + byte(i)
		}
		id[6] = 0x70 | id[6]&0x0f
		id[8] = 0x80 | id[8]&0x3f
		return id
	}
	e := &record.Entry{V: 1, Kind: "entry", EID: id(0x01), Content: "Pay the prize to the author born first.", Writer: "agent:planner",
		KID: record.KeyIDOf(pub), HSrc: sha256.Sum256([]byte("src")), HCtx: sha256.Sum256([]byte("ctx")), Trust: 1,
		Parents: []record.ID{id(0x21), id(0x41)}, Weights: []float64{0.5, 0.9}, TS: 1772442000123456789}
	for i := range e.Nonce {
		e.Nonce[i] = 0xa0 + byte(i)
	}
	msg, err := record.SigningBytes(e)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(msg); got != fx.SigningBytes {
		t.Fatalf("signing bytes\n got %s\nwant %s", got, fx.SigningBytes)
	}
	if err := record.Sign(e, key); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(e.Sig); got != fx.Sig {
		t.Fatalf("signature\n got %s\nwant %s", got, fx.Sig)
	}
	if got := hex.EncodeToString(mustEncode(t, e)); got != fx.Record {
		t.Fatalf("record\n got %s\nwant %s", got, fx.Record)
	}
	dec, err := record.DecodeEntry(unhex(fx.Record))
	if err != nil {
		t.Fatalf("fixture does not decode: %v", err)
	}
	if !reflect.DeepEqual(dec, e) {
		t.Fatalf("decoded %+v\nwant %+v", dec, e)
	}
	if ok, err := record.VerifySignature(dec, pub); err != nil || !ok {
		t.Fatalf("fixture signature does not verify: %v %v", ok, err)
	}
}

func TestRoundTripEveryKind(t *testing.T) {
	e, ek := signedEntry(t)
	w, wk := signedWrite(t)
	p, pk := signedPrincipal(t)
	ts, tk := signedTombstone(t)
	cases := []struct {
		name   string
		rec    any
		key    ed25519.PrivateKey
		decode func([]byte) (any, error)
		edit   func(any) // changes one signed field
	}{
		{"entry", e, ek, func(b []byte) (any, error) { return record.DecodeEntry(b) }, func(v any) { v.(*record.Entry).Content += "!" }},
		{"write", w, wk, func(b []byte) (any, error) { return record.DecodeWrite(b) }, func(v any) { v.(*record.Write).Weight = 120 }},
		{"principal", p, pk, func(b []byte) (any, error) { return record.DecodePrincipalEvent(b) }, func(v any) { v.(*record.PrincipalEvent).Channel = record.ChannelUnauthenticated }},
		{"tombstone", ts, tk, func(b []byte) (any, error) { return record.DecodeTombstone(b) }, func(v any) { v.(*record.Tombstone).Reason = "other" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := mustEncode(t, c.rec)
			got, err := c.decode(raw)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(got, c.rec) {
				t.Fatalf("decoded %+v\nwant %+v", got, c.rec)
			}
			if again := mustEncode(t, got); !bytes.Equal(again, raw) {
				t.Fatal("re-encoding differs")
			}
			pub := c.key.Public().(ed25519.PublicKey)
			if ok, err := record.VerifySignature(got, pub); err != nil || !ok {
				t.Fatalf("signature does not verify: %v %v", ok, err)
			}
			if ok, _ := record.VerifySignature(got, testKey(99).Public().(ed25519.PublicKey)); ok {
				t.Fatal("signature verifies under an unrelated key")
			}
			c.edit(got)
			if ok, _ := record.VerifySignature(got, pub); ok {
				t.Fatal("signature still verifies after a signed field changed")
			}
			if _, err := record.VerifySignature(got, pub[:31]); err == nil {
				t.Fatal("31-byte public key accepted")
			}
		})
	}
}

// TestSigningBytesExcludeSig derives the signing bytes independently: decode
// the full encoding, drop "sig", re-encode canonically.
func TestSigningBytesExcludeSig(t *testing.T) {
	e, _ := signedEntry(t)
	w, _ := signedWrite(t)
	p, _ := signedPrincipal(t)
	ts, _ := signedTombstone(t)
	canon, err := cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []any{e, w, p, ts} {
		var m map[string]cbor.RawMessage
		if err := cbor.Unmarshal(mustEncode(t, rec), &m); err != nil {
			t.Fatal(err)
		}
		if _, ok := m["sig"]; !ok {
			t.Fatalf("%T encoding has no sig", rec)
		}
		delete(m, "sig")
		want, err := canon.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := record.SigningBytes(rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%T signing bytes\n got %x\nwant %x", rec, got, want)
		}
		// The signature's own value never changes the signing bytes.
		reflect.ValueOf(rec).Elem().FieldByName("Sig").SetBytes(bytes.Repeat([]byte{0xee}, 64))
		again, err := record.SigningBytes(rec)
		if err != nil || !bytes.Equal(again, want) {
			t.Fatalf("%T signing bytes depend on sig: %v", rec, err)
		}
	}
}

// fieldErr asserts err is a FieldError of kind naming field (prefix) and id.
func fieldErr(t *testing.T, err error, kind, field, id string) *record.FieldError {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error naming field %q", field)
	}
	var fe *record.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is %T, not a *record.FieldError", err, err)
	}
	if fe.Kind != kind {
		t.Errorf("kind %q, want %q (%v)", fe.Kind, kind, err)
	}
	if !strings.HasPrefix(fe.Field, field) || (field == "" && fe.Field != "") {
		t.Errorf("field %q, want %q (%v)", fe.Field, field, err)
	}
	if id != "" && fe.ID != id {
		t.Errorf("id %q, want %q (%v)", fe.ID, id, err)
	}
	if field != "" && !strings.Contains(err.Error(), "field "+field) {
		t.Errorf("message %q does not name field %q", err.Error(), field)
	}
	return fe
}

func TestDecodeEntryRejections(t *testing.T) {
	e, _ := signedEntry(t)
	raw := mustEncode(t, e)
	id := e.EID.String()
	f16 := func(h uint16) []byte { return []byte{0xf9, byte(h >> 8), byte(h)} }
	arr := func(items ...[]byte) []byte {
		out := []byte{0x80 | byte(len(items))}
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	swapped := func() []byte {
		ps := splitMap(t, raw)
		ps[2], ps[3] = ps[3], ps[2]
		return joinMap(ps)
	}()
	dup := func() []byte {
		ps := splitMap(t, raw)
		ps = append(ps, pair{key: "v", k: textKey("v"), v: []byte{0x01}})
		return joinMap(ps)
	}()
	bigParents := func() []byte {
		items := make([][]byte, record.MaxParents+1)
		for i := range items {
			zero := v7(0)
			items[i] = cborBytes(zero[:])
		}
		body := []byte{0x99, byte(len(items) >> 8), byte(len(items))}
		for _, it := range items {
			body = append(body, it...)
		}
		return body
	}()
	bigContent := func() []byte {
		s := strings.Repeat("x", record.MaxContentBytes+1)
		return append([]byte{0x7a, byte(len(s) >> 24), byte(len(s) >> 16), byte(len(s) >> 8), byte(len(s))}, s...)
	}()
	huge := func() []byte {
		s := strings.Repeat("x", record.MaxRecordBytes)
		return withValue(t, raw, "content", append([]byte{0x7a, byte(len(s) >> 24), byte(len(s) >> 16), byte(len(s) >> 8), byte(len(s))}, s...))
	}()
	notV7 := e.EID
	notV7[6] = 0x40
	cases := []struct {
		name      string
		raw       []byte
		field     string
		id        string // "" when the id itself is the bad field
		canonical bool   // the error is ErrNotCanonical
	}{
		{"duplicate key", dup, "v", id, false},
		{"indefinite-length text", withValue(t, raw, "content", []byte{0x7f, 0x61, 'h', 0x61, 'i', 0xff}), "content", id, false},
		{"indefinite-length array", withValue(t, raw, "weights", []byte{0x9f, 0xf9, 0x38, 0x00, 0xff}), "weights", id, false},
		{"tag on text", withValue(t, raw, "content", append([]byte{0xc0}, cborText("hi")...)), "content", id, false},
		{"tag on eid", withValue(t, raw, "eid", append([]byte{0xd8, 37}, cborBytes(e.EID[:])...)), "eid", "", false},
		{"unknown field", withValue(t, raw, "extra", []byte{0x01}), "extra", id, false},
		{"invalid UTF-8 content", withValue(t, raw, "content", []byte{0x62, 0xff, 'i'}), "content", id, false},
		{"invalid UTF-8 writer", withValue(t, raw, "writer", []byte{0x67, 'a', 'g', 'e', 'n', 't', ':', 0xc3}), "writer", id, false},
		{"NaN weight", withValue(t, raw, "weights", arr(f16(0x7e00))), "weights", id, false},
		{"infinite weight", withValue(t, raw, "weights", arr(f16(0x7c00))), "weights", id, false},
		{"eid 15 bytes", withValue(t, raw, "eid", cborBytes(e.EID[:15])), "eid", "", true},
		{"eid 17 bytes", withValue(t, raw, "eid", cborBytes(append(e.EID[:], 0))), "eid", "", true},
		{"eid not UUIDv7", withValue(t, raw, "eid", cborBytes(notV7[:])), "eid", notV7.String(), false},
		{"sig 63 bytes", withValue(t, raw, "sig", cborBytes(e.Sig[:63])), "sig", id, false},
		{"sig 65 bytes", withValue(t, raw, "sig", cborBytes(append(append([]byte{}, e.Sig...), 0))), "sig", id, false},
		{"empty sig", withValue(t, raw, "sig", []byte{0x40}), "sig", id, false},
		// After the swap the pair at index 3 (originally index 2) sorts before
		// its predecessor.
		{"keys out of order", swapped, splitMap(t, raw)[2].key + " (key order)", id, true},
		{"float not shortest", withValue(t, raw, "weights", arr([]byte{0xfb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0}, f16(0x3800))), "weights", id, true},
		{"integer where float expected", withValue(t, raw, "weights", arr([]byte{0x01})), "weights", id, true},
		{"integer not shortest", withValue(t, raw, "trust", []byte{0x18, 0x01}), "trust", id, true},
		{"trust 4", withValue(t, raw, "trust", []byte{0x04}), "trust", id, false},
		{"trust 256", withValue(t, raw, "trust", []byte{0x19, 0x01, 0x00}), "trust", id, false},
		{"negative trust", withValue(t, raw, "trust", []byte{0x20}), "trust", id, false},
		{"trust as text", withValue(t, raw, "trust", cborText("0")), "trust", id, false},
		{"negative ts", withValue(t, raw, "ts", []byte{0x20}), "ts", id, false},
		{"writer class unknown", withValue(t, raw, "writer", cborText("robot:x")), "writer", id, false},
		{"writer name empty", withValue(t, raw, "writer", cborText("agent:")), "writer", id, false},
		{"writer without class", withValue(t, raw, "writer", cborText("planner")), "writer", id, false},
		{"writer with escape", withValue(t, raw, "writer", cborText("agent:x\x1b[2J")), "writer", id, false},
		{"writer with space", withValue(t, raw, "writer", cborText("agent:a b")), "writer", id, false},
		{"writer too long", withValue(t, raw, "writer", cborText("tool:"+strings.Repeat("n", record.MaxNameBytes+1))), "writer", id, false},
		{"nesting too deep", withValue(t, raw, "parents", []byte{0x81, 0x81, 0x81, 0x81, 0x81, 0x40}), "parents", id, false},
		{"too many parents", withValue(t, raw, "parents", bigParents), "parents", id, false},
		{"content too long", withValue(t, raw, "content", bigContent), "content", id, false},
		{"missing nonce", without(t, raw, "nonce"), "nonce", id, true},
		{"version 2", withValue(t, raw, "v", []byte{0x02}), "v", id, false},
		{"kind write", withValue(t, raw, "kind", cborText("write")), "kind", id, false},
		{"record too large", huge, "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := record.DecodeEntry(c.raw)
			if got != nil {
				t.Errorf("returned a record along with the error")
			}
			fieldErr(t, err, record.KindEntry, c.field, c.id)
			if errors.Is(err, record.ErrNotCanonical) != c.canonical {
				t.Errorf("errors.Is(ErrNotCanonical) = %v, want %v (%v)", !c.canonical, c.canonical, err)
			}
		})
	}
}

// TestDecodeEntryUnreadable covers bytes that are not a record map at all:
// they are rejected as a whole, never with a panic.
func TestDecodeEntryUnreadable(t *testing.T) {
	e, _ := signedEntry(t)
	raw := mustEncode(t, e)
	for name, b := range map[string][]byte{
		"empty":              nil,
		"truncated":          raw[:len(raw)-3],
		"trailing byte":      append(append([]byte{}, raw...), 0),
		"array":              {0x80},
		"indefinite map":     append(append([]byte{0xbf}, raw[1:]...), 0xff),
		"map header only":    {0xa5},
		"huge map header":    {0xbb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		"text key too short": {0xa1, 0x7b, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
		"integer key":        {0xa1, 0x01, 0x01},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := record.DecodeEntry(b); err == nil {
				t.Fatal("accepted")
			} else if !errors.As(err, new(*record.FieldError)) {
				t.Fatalf("%T is not a FieldError: %v", err, err)
			}
		})
	}
}

func TestDecodeWriteRejections(t *testing.T) {
	w, _ := signedWrite(t)
	raw := mustEncode(t, w)
	id := w.WID.String()
	f64 := func(v float64) []byte {
		b := []byte{0xfb}
		u := math.Float64bits(v)
		for i := 7; i >= 0; i-- {
			b = append(b, byte(u>>(8*i)))
		}
		return b
	}
	for _, c := range []struct {
		name, field string
		raw         []byte
	}{
		{"kind principal", "kind", withValue(t, raw, "kind", cborText("principal"))},
		{"empty src", "src", withValue(t, raw, "src", cborText(""))},
		{"dst with newline", "dst", withValue(t, raw, "dst", cborText("passage:\n"))},
		{"rel with escape", "rel", withValue(t, raw, "rel", cborText("rel\x1b"))},
		{"negative weight", "weight", withValue(t, raw, "weight", []byte{0xf9, 0xbc, 0x00})},
		{"NaN weight", "weight", withValue(t, raw, "weight", []byte{0xf9, 0x7e, 0x00})},
		{"weight as float64", "weight", withValue(t, raw, "weight", f64(60))},
		{"writer class", "writer", withValue(t, raw, "writer", cborText("peer"))},
		{"unknown field", "color", withValue(t, raw, "color", cborText("red"))},
		{"sig short", "sig", withValue(t, raw, "sig", cborBytes(w.Sig[:10]))},
		{"wid short", "wid", withValue(t, raw, "wid", cborBytes(w.WID[:8]))},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := record.DecodeWrite(c.raw)
			wantID := id
			if c.field == "wid" {
				wantID = ""
			}
			fieldErr(t, err, "write", c.field, wantID)
		})
	}
}

func TestDecodePrincipalRejections(t *testing.T) {
	p, _ := signedPrincipal(t)
	raw := mustEncode(t, p)
	for _, c := range []struct {
		name, field string
		raw         []byte
	}{
		{"op", "op", withValue(t, raw, "op", cborText("promote"))},
		{"channel", "channel", withValue(t, raw, "channel", cborText("maybe"))},
		{"principal class", "principal", withValue(t, raw, "principal", cborText("admin:root"))},
		{"pubkey 31 bytes", "pubkey", withValue(t, raw, "pubkey", cborBytes(p.PublicKey[:31]))},
		{"root 33 bytes", "root", withValue(t, raw, "root", cborBytes(append(p.Root[:], 1)))},
		{"kind", "kind", withValue(t, raw, "kind", cborText("entry"))},
		{"duplicate op", "op", joinMap(append(splitMap(t, raw), pair{key: "op", k: textKey("op"), v: cborText("revoke")}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := record.DecodePrincipalEvent(c.raw)
			fieldErr(t, err, record.KindPrincipal, c.field, p.RID.String())
		})
	}
}

func TestDecodeTombstoneRejections(t *testing.T) {
	ts, _ := signedTombstone(t)
	raw := mustEncode(t, ts)
	long := strings.Repeat("r", record.MaxReasonBytes+1)
	for _, c := range []struct {
		name, field string
		raw         []byte
	}{
		{"reason invalid UTF-8", "reason", withValue(t, raw, "reason", []byte{0x61, 0xfe})},
		{"reason too long", "reason", withValue(t, raw, "reason", append([]byte{0x79, byte(len(long) >> 8), byte(len(long))}, long...))},
		{"writer", "writer", withValue(t, raw, "writer", cborText("nobody"))},
		{"sig missing", "sig", without(t, raw, "sig")},
		{"version", "v", withValue(t, raw, "v", []byte{0x00})},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := record.DecodeTombstone(c.raw)
			fieldErr(t, err, record.KindTombstone, c.field, ts.Target.String())
		})
	}
}

func TestParseLeaf(t *testing.T) {
	e, _ := signedEntry(t)
	leaf := record.RecordLeaf(e.EID, e.Sig)
	if len(leaf) != record.RecordLeafSize || !bytes.Equal(leaf[:16], e.EID[:]) || !bytes.Equal(leaf[16:], e.Sig) {
		t.Fatalf("record leaf %x is not eid || sig", leaf)
	}
	pl, err := record.ParseLeaf(leaf)
	if err != nil || pl.Kind != record.LeafRecord || pl.ID != e.EID || !bytes.Equal(pl.Sig, e.Sig) {
		t.Fatalf("ParseLeaf(record leaf) = %+v, %v", pl, err)
	}

	ts, _ := signedTombstone(t)
	tleaf, err := record.TombstoneLeaf(ts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(tleaf, []byte("ts:")) || !bytes.Equal(tleaf[3:], mustEncode(t, ts)) {
		t.Fatalf("tombstone leaf is not ts: || encoding")
	}
	pl, err = record.ParseLeaf(tleaf)
	if err != nil || pl.Kind != record.LeafTombstone || pl.ID != ts.Target || !reflect.DeepEqual(pl.Tombstone, ts) {
		t.Fatalf("ParseLeaf(tombstone leaf) = %+v, %v", pl, err)
	}

	notV7 := append([]byte{}, leaf...)
	notV7[6] = 0x40
	badTomb := append([]byte("ts:"), withValue(t, mustEncode(t, ts), "reason", []byte{0x61, 0xfe})...)
	for name, l := range map[string][]byte{
		"empty":              nil,
		"79 bytes":           leaf[:79],
		"81 bytes":           append(append([]byte{}, leaf...), 0),
		"id not v7":          notV7,
		"ts: with garbage":   []byte("ts:hello"),
		"ts: bad tombstone":  badTomb,
		"ts: entry record":   append([]byte("ts:"), mustEncode(t, e)...),
		"text leaf (45 B)":   []byte("this leaf is neither a record nor a tombstone"),
		"ts: only (3 bytes)": []byte("ts:"),
	} {
		t.Run(name, func(t *testing.T) {
			pl, err := record.ParseLeaf(l)
			if err == nil || pl.Kind != record.LeafMalformed {
				t.Fatalf("ParseLeaf = %+v, %v; want LeafMalformed and an error", pl, err)
			}
		})
	}
	// A malformed tombstone leaf's error names the bad field.
	_, err = record.ParseLeaf(badTomb)
	var fe *record.FieldError
	if !errors.As(err, &fe) || fe.Field != "reason" {
		t.Fatalf("bad tombstone leaf error %v does not name field reason", err)
	}
}

func TestParseIDAndKeyID(t *testing.T) {
	id := v7(0x10)
	for _, s := range []string{id.String(), strings.ReplaceAll(id.String(), "-", ""), strings.ToUpper(id.String())} {
		got, err := record.ParseID(s)
		if err != nil || got != id {
			t.Fatalf("ParseID(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "xyz", id.String()[:35], id.String() + "0", strings.Replace(id.String(), "1", "g", 1)} {
		if _, err := record.ParseID(s); err == nil {
			t.Errorf("ParseID(%q) accepted", s)
		}
	}
	pub := testKey(1).Public().(ed25519.PublicKey)
	sum := sha256.Sum256(pub)
	if k := record.KeyIDOf(pub); !bytes.Equal(k[:], sum[:8]) || k.String() != hex.EncodeToString(sum[:8]) {
		t.Fatalf("KeyIDOf = %v", k)
	}
}
