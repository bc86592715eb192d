package record

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/fxamacker/cbor/v2"
)

// Bounds applied while decoding untrusted records. They are generous for real
// stores and keep a hostile record from exhausting memory.
const (
	MaxRecordBytes  = 1 << 20 // one record, whole encoding
	MaxContentBytes = 512 << 10
	MaxParents      = 4096
	MaxNameBytes    = 128 // writer, principal, node ids, relation names
	MaxReasonBytes  = 4096
	SignatureSize   = ed25519.SignatureSize
)

var (
	encMode cbor.EncMode
	decMode cbor.DecMode
)

func init() {
	var err error
	encMode, err = cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	decMode, err = cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		UTF8:              cbor.UTF8RejectInvalid,
		FieldNameMatching: cbor.FieldNameMatchingCaseSensitive,
		MaxNestedLevels:   4,
		MaxArrayElements:  MaxParents,
		MaxMapPairs:       32,
		NaN:               cbor.NaNDecodeForbidden,
		Inf:               cbor.InfDecodeForbidden,
	}.DecMode()
	if err != nil {
		panic(err)
	}
}

// FieldError is a decoding or validation failure tied to one field of one
// record. Callers add the file and table; the record gives id and field.
type FieldError struct {
	Kind   string // expected record kind
	ID     string // record id when it could be read, else ""
	Field  string // CBOR key, or "" for the record as a whole
	Reason string

	wrapped error
}

func (e *FieldError) Unwrap() error { return e.wrapped }

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	b.WriteString(" record")
	if e.ID != "" {
		b.WriteString(" ")
		b.WriteString(e.ID)
	}
	if e.Field != "" {
		b.WriteString(" field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// ErrNotCanonical marks a record that decodes but whose bytes are not the
// Core Deterministic encoding of its content. It is wrapped in a FieldError.
var ErrNotCanonical = errors.New("not in Core Deterministic Encoding")

// Encode returns the Core Deterministic encoding of a record value.
func Encode(v any) ([]byte, error) { return encMode.Marshal(v) }

// signingView is the record with its signature removed; "sig" is omitted
// from the map rather than encoded as an empty string.
func signingBytes(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	cp.FieldByName("Sig").SetBytes(nil)
	b, err := encMode.Marshal(cp.Interface())
	if err != nil {
		return nil, err
	}
	return dropNilSig(b)
}

// dropNilSig removes the `"sig": null`/empty pair the struct encoder emits for
// a nil Sig, producing the map of every field but the signature. Because the
// input is canonical, the pair is found by its exact bytes and the map header
// count is decremented in place.
func dropNilSig(b []byte) ([]byte, error) {
	// "sig" encodes as 0x63 's' 'i' 'g'; a nil []byte encodes as an empty byte
	// string 0x40 under the core deterministic options.
	pair := []byte{0x63, 's', 'i', 'g', 0x40}
	i := bytes.Index(b, pair)
	if i < 0 {
		pair = []byte{0x63, 's', 'i', 'g', 0xf6}
		i = bytes.Index(b, pair)
	}
	if i < 0 || len(b) == 0 || b[0]&0xe0 != 0xa0 || b[0]&0x1f >= 24 || b[0]&0x1f == 0 {
		return nil, errors.New("record: cannot derive signing bytes")
	}
	out := make([]byte, 0, len(b)-len(pair))
	out = append(out, b[0]-1)
	out = append(out, b[1:i]...)
	out = append(out, b[i+len(pair):]...)
	return out, nil
}

// SigningBytes returns the bytes the record's signature covers.
func SigningBytes(v any) ([]byte, error) { return signingBytes(v) }

// Sign fills in the record's signature with priv.
func Sign(v any, priv ed25519.PrivateKey) error {
	msg, err := signingBytes(v)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(priv, msg)
	reflect.ValueOf(v).Elem().FieldByName("Sig").SetBytes(sig)
	return nil
}

// VerifySignature checks the record's signature against pub with Go's
// crypto/ed25519 (RFC 8032, cofactorless, S < L).
func VerifySignature(v any, pub []byte) (bool, error) {
	if len(pub) != ed25519.PublicKeySize {
		return false, fmt.Errorf("public key has %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	msg, err := signingBytes(v)
	if err != nil {
		return false, err
	}
	sig := reflect.ValueOf(v).Elem().FieldByName("Sig").Bytes()
	return ed25519.Verify(ed25519.PublicKey(pub), msg, sig), nil
}

// decodeStrict decodes raw into out (a pointer to a record struct) and
// proves it canonical: fxamacker does not check key order or missing
// fields on decode, so decodeFull re-encodes and compares bytes; the fast
// path (fastdecode.go) accepts only what that round trip accepts.
func decodeStrict(kind string, raw []byte, out any) error {
	return decodeStrictWith(decMode, kind, raw, out)
}

func decodeStrictWith(mode cbor.DecMode, kind string, raw []byte, out any) error {
	if len(raw) > MaxRecordBytes {
		return &FieldError{Kind: kind, Reason: fmt.Sprintf("record is %d bytes, limit %d", len(raw), MaxRecordBytes)}
	}
	if mode == decMode {
		if p := fastPlans[reflect.TypeOf(out).Elem()]; p != nil {
			rv := reflect.ValueOf(out).Elem()
			if p.decode(raw, rv) {
				return nil
			}
			rv.SetZero()
		}
	}
	return decodeFull(mode, kind, raw, out)
}

// decodeFull is strict decoding the long way, and the definition the fast
// path (fastdecode.go) is held to: decode with fxamacker, then re-encode
// and compare. out must be a zero record struct.
func decodeFull(mode cbor.DecMode, kind string, raw []byte, out any) error {
	if len(raw) > MaxRecordBytes {
		return &FieldError{Kind: kind, Reason: fmt.Sprintf("record is %d bytes, limit %d", len(raw), MaxRecordBytes)}
	}
	if err := mode.Unmarshal(raw, out); err != nil {
		fe := &FieldError{Kind: kind, Field: fieldOfDecodeError(err), Reason: err.Error(), wrapped: err}
		// fxamacker names no field for syntax, tag, UTF-8, NaN or nesting
		// errors (and only an index for unknown fields), so the pairs are
		// re-read leniently to find the offending one.
		pairs, _ := topLevelPairs(raw)
		if id, ok := pairID(pairs, idKeyOf[kind]); ok {
			fe.ID = id.String()
		}
		if key, reason := firstBadPair(mode, pairs, reflect.TypeOf(out).Elem()); key != "" {
			fe.Field, fe.Reason = key, reason
		}
		return fe
	}
	again, err := encMode.Marshal(out)
	if err != nil {
		return &FieldError{Kind: kind, Reason: err.Error()}
	}
	if !bytes.Equal(again, raw) {
		return &FieldError{Kind: kind, Field: firstNonCanonicalField(raw, again), Reason: ErrNotCanonical.Error(), wrapped: ErrNotCanonical}
	}
	return nil
}

func fieldOfDecodeError(err error) string {
	var ute *cbor.UnmarshalTypeError
	if errors.As(err, &ute) {
		// StructFieldName is "record.Entry.trust"; the CBOR key is the tail.
		name := ute.StructFieldName
		return name[strings.LastIndexByte(name, '.')+1:]
	}
	var uf *cbor.UnknownFieldError
	if errors.As(err, &uf) {
		return "(unknown field)"
	}
	var dk *cbor.DupMapKeyError
	if errors.As(err, &dk) {
		return fmt.Sprint(dk.Key)
	}
	return ""
}

// firstNonCanonicalField names the first map key whose encoding differs
// between the stored bytes and their canonical form, for the error message.
func firstNonCanonicalField(raw, canonical []byte) string {
	var got, want map[string]cbor.RawMessage
	if cbor.Unmarshal(raw, &got) != nil || cbor.Unmarshal(canonical, &want) != nil {
		return ""
	}
	var missing []string
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		if !bytes.Equal(g, w) {
			return k
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return missing[0] + " (missing)"
	}
	// Every value is canonical, so the keys are out of order: name the
	// first key that sorts before its predecessor.
	pairs, _ := topLevelPairs(raw)
	for i := 1; i < len(pairs); i++ {
		if bytes.Compare(pairs[i].rawKey, pairs[i-1].rawKey) < 0 {
			return pairs[i].key + " (key order)"
		}
	}
	return "(header)"
}

// PrincipalProblem applies the writer rule (user, agent:NAME, tool:NAME or
// external:NAME, the name as NameProblem allows) and says what is wrong,
// or "" when s is valid. Odd bytes in a principal name are never displayed
// raw because decoders reject them here.
func PrincipalProblem(s string) string {
	if s == "user" {
		return ""
	}
	cls, name, ok := strings.Cut(s, ":")
	if !ok {
		return "want user, agent:NAME, tool:NAME or external:NAME"
	}
	switch cls {
	case "agent", "tool", "external":
	default:
		if len(cls) > 24 {
			cls = cls[:24] + "..."
		}
		return fmt.Sprintf("unknown principal class %q (want user, agent, tool or external)", cls)
	}
	if reason := NameProblem(name); reason != "" {
		return "name " + reason
	}
	return ""
}

// NameProblem checks a name (node id, relation, principal name): 1 to
// MaxNameBytes bytes of printable ASCII without spaces. It returns "" when
// s is valid, else what is wrong, with 1-based byte positions.
func NameProblem(s string) string {
	if s == "" {
		return "empty"
	}
	if len(s) > MaxNameBytes {
		return fmt.Sprintf("%d bytes, limit %d", len(s), MaxNameBytes)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= 0x20 || c >= 0x7f {
			if c >= 0x80 {
				return fmt.Sprintf("byte %d is not ASCII; names are printable ASCII without spaces", i+1)
			}
			return fmt.Sprintf("byte %d (0x%02x) is a space or control character; names are printable ASCII without spaces", i+1, c)
		}
	}
	return ""
}

func checkSig(kind, id string, sig []byte) error {
	if len(sig) != SignatureSize {
		return &FieldError{Kind: kind, ID: id, Field: "sig", Reason: fmt.Sprintf("%d bytes, want %d", len(sig), SignatureSize)}
	}
	return nil
}

func checkHeader(kind, id string, v uint, gotKind string) error {
	if v != FormatVersion {
		return &FieldError{Kind: kind, ID: id, Field: "v", Reason: fmt.Sprintf("version %d, want %d", v, FormatVersion)}
	}
	if gotKind != kind {
		return &FieldError{Kind: kind, ID: id, Field: "kind", Reason: fmt.Sprintf("%q, want %q", gotKind, kind)}
	}
	return nil
}

// DecodeEntry decodes and validates an entry record.
func DecodeEntry(raw []byte) (*Entry, error) {
	var e Entry
	if err := decodeStrict(KindEntry, raw, &e); err != nil {
		return nil, withID(err, e.EID)
	}
	id := e.EID.String()
	if err := checkHeader(KindEntry, id, e.V, e.Kind); err != nil {
		return nil, err
	}
	if !e.EID.IsV7() {
		return nil, &FieldError{Kind: KindEntry, ID: id, Field: "eid", Reason: "not a UUIDv7"}
	}
	if r := PrincipalProblem(e.Writer); r != "" {
		return nil, &FieldError{Kind: KindEntry, ID: id, Field: "writer", Reason: r}
	}
	if len(e.Content) > MaxContentBytes {
		return nil, &FieldError{Kind: KindEntry, ID: id, Field: "content", Reason: fmt.Sprintf("%d bytes, limit %d", len(e.Content), MaxContentBytes)}
	}
	if e.Trust > External {
		return nil, &FieldError{Kind: KindEntry, ID: id, Field: "trust", Reason: fmt.Sprintf("%d is not a trust label (0..3)", e.Trust)}
	}
	if e.Session != nil {
		if err := checkText(KindEntry, id, "session", *e.Session, MaxNameBytes); err != nil {
			return nil, err
		}
	}
	// Parent/weight length and range problems are lineage findings, not
	// decoding failures: the record is still signed evidence worth showing.
	if err := checkSig(KindEntry, id, e.Sig); err != nil {
		return nil, err
	}
	return &e, nil
}

// DecodeWrite decodes and validates a structural write record.
func DecodeWrite(raw []byte) (*Write, error) {
	var w Write
	if err := decodeStrict("write", raw, &w); err != nil {
		return nil, withID(err, w.WID)
	}
	id := w.WID.String()
	switch w.Kind {
	case KindEdge, KindMerge, KindRelation:
	default:
		return nil, &FieldError{Kind: "write", ID: id, Field: "kind", Reason: fmt.Sprintf("%q is not edge, merge or relation", w.Kind)}
	}
	if w.V != FormatVersion {
		return nil, &FieldError{Kind: "write", ID: id, Field: "v", Reason: fmt.Sprintf("version %d, want %d", w.V, FormatVersion)}
	}
	if !w.WID.IsV7() {
		return nil, &FieldError{Kind: "write", ID: id, Field: "wid", Reason: "not a UUIDv7"}
	}
	for _, f := range []struct{ name, val string }{{"src", w.Src}, {"dst", w.Dst}} {
		if r := NameProblem(f.val); r != "" {
			return nil, &FieldError{Kind: "write", ID: id, Field: f.name, Reason: r}
		}
	}
	if w.Rel != "" {
		if r := NameProblem(w.Rel); r != "" {
			return nil, &FieldError{Kind: "write", ID: id, Field: "rel", Reason: r}
		}
	}
	if w.Weight < 0 || math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) {
		return nil, &FieldError{Kind: "write", ID: id, Field: "weight", Reason: fmt.Sprintf("%v is not a non-negative finite weight", w.Weight)}
	}
	if r := PrincipalProblem(w.Writer); r != "" {
		return nil, &FieldError{Kind: "write", ID: id, Field: "writer", Reason: r}
	}
	if err := checkSig("write", id, w.Sig); err != nil {
		return nil, err
	}
	return &w, nil
}

// DecodePrincipalEvent decodes and validates a principal-registry event.
func DecodePrincipalEvent(raw []byte) (*PrincipalEvent, error) {
	var p PrincipalEvent
	if err := decodeStrict(KindPrincipal, raw, &p); err != nil {
		return nil, withID(err, p.RID)
	}
	id := p.RID.String()
	if err := checkHeader(KindPrincipal, id, p.V, p.Kind); err != nil {
		return nil, err
	}
	if p.Op != OpRegister && p.Op != OpRevoke {
		return nil, &FieldError{Kind: KindPrincipal, ID: id, Field: "op", Reason: fmt.Sprintf("%q is not register or revoke", p.Op)}
	}
	if r := PrincipalProblem(p.Principal); r != "" {
		return nil, &FieldError{Kind: KindPrincipal, ID: id, Field: "principal", Reason: r}
	}
	if p.Channel != ChannelAuthenticated && p.Channel != ChannelUnauthenticated {
		return nil, &FieldError{Kind: KindPrincipal, ID: id, Field: "channel", Reason: fmt.Sprintf("%q is not authenticated or unauthenticated", p.Channel)}
	}
	if err := checkSig(KindPrincipal, id, p.Sig); err != nil {
		return nil, err
	}
	return &p, nil
}

// DecodeTombstone decodes and validates a tombstone record.
func DecodeTombstone(raw []byte) (*Tombstone, error) {
	var t Tombstone
	if err := decodeStrict(KindTombstone, raw, &t); err != nil {
		return nil, withID(err, t.Target)
	}
	id := t.Target.String()
	if err := checkHeader(KindTombstone, id, t.V, t.Kind); err != nil {
		return nil, err
	}
	if r := PrincipalProblem(t.Writer); r != "" {
		return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "writer", Reason: r}
	}
	if len(t.Reason) > MaxReasonBytes || !utf8.ValidString(t.Reason) {
		return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "reason", Reason: "too long or not UTF-8"}
	}
	if (t.EntryWriter == "") != (t.EntryTrust == nil) {
		return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "entry_writer", Reason: "entry_writer and entry_trust go together"}
	}
	if t.EntryWriter != "" {
		if r := PrincipalProblem(t.EntryWriter); r != "" {
			return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "entry_writer", Reason: r}
		}
		if !t.EntryTrust.Valid() {
			return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "entry_trust", Reason: "not a trust level (0..3)"}
		}
	}
	if len(t.EntryParents) != len(t.EntryWeights) || len(t.EntryParents) > MaxParents {
		return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "entry_parents", Reason: "parents and weights differ in length or exceed the limit"}
	}
	for _, w := range t.EntryWeights {
		if !(w >= 0 && w <= 1) {
			return nil, &FieldError{Kind: KindTombstone, ID: id, Field: "entry_weights", Reason: "weight outside [0, 1]"}
		}
	}
	if err := checkSig(KindTombstone, id, t.Sig); err != nil {
		return nil, err
	}
	return &t, nil
}

func withID(err error, id ID) error {
	var fe *FieldError
	if errors.As(err, &fe) && fe.ID == "" && id != (ID{}) {
		fe.ID = id.String()
	}
	return err
}

// SigningBytesOf derives the signed bytes from a record's canonical
// encoding by removing the "sig" pair, without re-encoding: the pair is
// the text key "sig" followed by a 64-byte byte string holding sig. Keys
// sort before "sig" only when they are shorter, or three bytes and smaller
// ("eid", "kid", "dst", "rel"), and none of those can hold this pattern,
// so the first match is the pair. A wrong cut could only make a good
// signature fail, never a bad one pass. raw must already have passed the
// canonical check.
func SigningBytesOf(raw, sig []byte) ([]byte, error) {
	if len(sig) != SignatureSize {
		return nil, errors.New("record: signature is not 64 bytes")
	}
	if len(raw) == 0 || raw[0] < 0xa2 || raw[0] > 0xb7 {
		return nil, errors.New("record: not a map of 2 to 23 pairs")
	}
	pair := make([]byte, 0, 6+SignatureSize)
	pair = append(pair, 0x63, 's', 'i', 'g', 0x58, SignatureSize)
	pair = append(pair, sig...)
	i := bytes.Index(raw, pair)
	if i < 0 {
		return nil, errors.New("record: no sig pair in the encoding")
	}
	out := make([]byte, 0, len(raw)-len(pair))
	out = append(out, raw[0]-1)
	out = append(out, raw[1:i]...)
	return append(out, raw[i+len(pair):]...), nil
}
