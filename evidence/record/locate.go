package record

import (
	"bytes"
	"fmt"
	"reflect"

	"github.com/fxamacker/cbor/v2"
)

// lenientMode reads malformed records far enough to name the bad field: it
// accepts what the strict mode forbids so that the strict checks can then be
// applied one value at a time.
var lenientMode = func() cbor.DecMode {
	m, err := cbor.DecOptions{
		DupMapKey:        cbor.DupMapKeyQuiet,
		IndefLength:      cbor.IndefLengthAllowed,
		TagsMd:           cbor.TagsAllowed,
		UTF8:             cbor.UTF8DecodeInvalid,
		MaxNestedLevels:  64,
		MaxArrayElements: MaxRecordBytes,
		MaxMapPairs:      MaxRecordBytes,
	}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()

// idKeyOf names the id field of each record kind as decodeStrict sees it.
var idKeyOf = map[string]string{KindEntry: "eid", "write": "wid", KindPrincipal: "rid", KindTombstone: "target"}

type rawPair struct {
	key    string
	rawKey []byte
	value  []byte
}

// topLevelPairs splits a definite-length top-level map into its key/value
// encodings, in stored order. It stops at the first unreadable item and
// returns the pairs read so far.
func topLevelPairs(raw []byte) ([]rawPair, error) {
	if len(raw) == 0 || raw[0]>>5 != 5 {
		return nil, fmt.Errorf("not a map")
	}
	n, hdr := uint64(raw[0]&0x1f), 1
	switch {
	case n < 24:
	case n <= 27:
		w := 1 << (n - 24)
		if len(raw) < 1+w {
			return nil, fmt.Errorf("short map header")
		}
		n = 0
		for _, b := range raw[1 : 1+w] {
			n = n<<8 | uint64(b)
		}
		hdr += w
	default:
		return nil, fmt.Errorf("indefinite or reserved map header")
	}
	dec := lenientMode.NewDecoder(bytes.NewReader(raw[hdr:]))
	var out []rawPair
	for i := uint64(0); i < n && i < MaxRecordBytes; i++ {
		var k, v cbor.RawMessage
		if err := dec.Decode(&k); err != nil {
			return out, err
		}
		if err := dec.Decode(&v); err != nil {
			return out, err
		}
		var name string
		if lenientMode.Unmarshal(k, &name) != nil {
			name = fmt.Sprintf("(non-text key %x)", []byte(k))
		}
		out = append(out, rawPair{key: name, rawKey: k, value: v})
	}
	return out, nil
}

// pairID reads a 16-byte id from the named pair, if it is one.
func pairID(pairs []rawPair, key string) (ID, bool) {
	for _, p := range pairs {
		if p.key != key {
			continue
		}
		var b []byte
		if lenientMode.Unmarshal(p.value, &b) == nil && len(b) == len(ID{}) {
			return ID(b), true
		}
	}
	return ID{}, false
}

// firstBadPair applies the strict checks to each pair in turn and names the
// first key that is unknown, repeated, or whose value fails strict decoding
// into its field's type.
func firstBadPair(mode cbor.DecMode, pairs []rawPair, rec reflect.Type) (string, string) {
	fields := map[string]reflect.Type{}
	for i := 0; i < rec.NumField(); i++ {
		f := rec.Field(i)
		fields[f.Tag.Get("cbor")] = f.Type
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		typ, known := fields[p.key]
		if !known {
			return p.key, "unknown field"
		}
		if seen[p.key] {
			return p.key, "duplicate key"
		}
		seen[p.key] = true
		if err := mode.Unmarshal(p.value, reflect.New(typ).Interface()); err != nil {
			return p.key, err.Error()
		}
	}
	return "", ""
}
