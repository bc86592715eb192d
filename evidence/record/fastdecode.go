package record

import (
	"bytes"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"
)

// The fast path of strict decoding. decodeFull decodes with fxamacker and
// then re-encodes to prove the bytes canonical, which costs about as much
// as the decode again. For the hot record types a plan derived from the
// struct walks the bytes once, decoding each field and checking that its
// bytes are exactly what the Core Deterministic encoder writes for the
// decoded value. It only ever accepts: anything it is not sure of (an
// unexpected head, key, empty value, float form or limit) sends the record
// to decodeFull from a zeroed struct, so what is rejected, and every error
// message, is decodeFull's. FuzzFastDecodeAgrees holds the fast path to
// decodeFull's answers and values.

type fieldKind uint8

const (
	fkUint      fieldKind = iota // any unsigned integer type
	fkText                       // string
	fkBytes                      // []byte
	fkByteArray                  // [n]byte
	fkFloat                      // float64
	fkArrayList                  // [][n]byte
	fkFloatList                  // []float64
	fkPtrText                    // *string
	fkPtrUint                    // *unsigned
)

type planField struct {
	key       []byte // the key's encoding: text head and name
	index     int    // struct field index
	kind      fieldKind
	n         int    // byte array length (fkByteArray, fkArrayList)
	max       uint64 // largest value of the unsigned type
	omitEmpty bool
}

// plan lists a record struct's fields in the encoder's key order.
type plan struct {
	fields []planField
}

// fastPlans holds the plans of the types decoded with decMode; built once
// in init and only read afterwards.
var fastPlans = map[reflect.Type]*plan{}

func init() {
	for _, v := range []any{Entry{}, Write{}, PrincipalEvent{}, Tombstone{}} {
		t := reflect.TypeOf(v)
		if p := buildPlan(t); p != nil {
			fastPlans[t] = p
		}
	}
}

// buildPlan derives a plan from t's cbor tags, or nil when a field has a
// type the fast path does not handle (such types always go the full way).
func buildPlan(t reflect.Type) *plan {
	p := &plan{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("cbor"), ",")
		if name == "" || name == "-" || (opts != "" && opts != "omitempty") {
			return nil
		}
		key, err := encMode.Marshal(name)
		if err != nil {
			return nil
		}
		f := planField{key: key, index: i, omitEmpty: opts == "omitempty"}
		ft := sf.Type
		switch {
		case isUint(ft):
			f.kind, f.max = fkUint, maxUint(ft)
		case ft.Kind() == reflect.String:
			f.kind = fkText
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8:
			f.kind = fkBytes
		case ft.Kind() == reflect.Array && ft.Elem().Kind() == reflect.Uint8:
			f.kind, f.n = fkByteArray, ft.Len()
		case ft.Kind() == reflect.Float64:
			f.kind = fkFloat
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Array && ft.Elem().Elem().Kind() == reflect.Uint8:
			f.kind, f.n = fkArrayList, ft.Elem().Len()
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Float64:
			f.kind = fkFloatList
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String:
			f.kind = fkPtrText
		case ft.Kind() == reflect.Pointer && isUint(ft.Elem()):
			f.kind, f.max = fkPtrUint, maxUint(ft.Elem())
		default:
			return nil
		}
		// Only the empty values the fast path can tell from the bytes.
		if f.omitEmpty && (f.kind == fkBytes || f.kind == fkByteArray || f.kind == fkFloat) {
			return nil
		}
		p.fields = append(p.fields, f)
	}
	// Core Deterministic order: bytewise on the encoded keys.
	sort.Slice(p.fields, func(i, j int) bool { return bytes.Compare(p.fields[i].key, p.fields[j].key) < 0 })
	return p
}

func isUint(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func maxUint(t reflect.Type) uint64 {
	return math.MaxUint64 >> (64 - t.Bits())
}

// cursor reads CBOR data items from a record's bytes.
type cursor struct {
	b   []byte
	pos int
}

// head reads a definite, shortest-form head and returns its major type
// and argument; ok is false for anything else, including running out of
// bytes. Major type 7 (floats, simple values) is read by the callers.
func (c *cursor) head() (major byte, arg uint64, ok bool) {
	if c.pos >= len(c.b) {
		return 0, 0, false
	}
	ib := c.b[c.pos]
	major, ai := ib>>5, ib&0x1f
	if major == 7 {
		return 0, 0, false
	}
	c.pos++
	switch {
	case ai < 24:
		return major, uint64(ai), true
	case ai <= 27:
		w := 1 << (ai - 24)
		if len(c.b)-c.pos < w {
			return 0, 0, false
		}
		for _, x := range c.b[c.pos : c.pos+w] {
			arg = arg<<8 | uint64(x)
		}
		c.pos += w
		// Shortest form: the argument needs this width.
		var min uint64
		switch ai {
		case 24:
			min = 24
		case 25:
			min = 1 << 8
		case 26:
			min = 1 << 16
		case 27:
			min = 1 << 32
		}
		return major, arg, arg >= min
	}
	return 0, 0, false
}

// str reads a byte string (major 2) or text string (major 3) and returns
// its bytes, a sub-slice of the record.
func (c *cursor) str(major byte) ([]byte, bool) {
	m, n, ok := c.head()
	if !ok || m != major || n > uint64(len(c.b)-c.pos) {
		return nil, false
	}
	s := c.b[c.pos : c.pos+int(n)]
	c.pos += int(n)
	if major == 3 && !utf8.Valid(s) {
		return nil, false
	}
	return s, true
}

// null consumes a CBOR null if one is next.
func (c *cursor) null() bool {
	if c.pos < len(c.b) && c.b[c.pos] == 0xf6 {
		c.pos++
		return true
	}
	return false
}

// float reads a float in exactly the width the encoder's ShortestFloat16
// gives its value; NaN, infinities, half-precision subnormals and forms
// that might not be shortest are left to the full path.
func (c *cursor) float() (float64, bool) {
	if c.pos >= len(c.b) {
		return 0, false
	}
	rest := c.b[c.pos+1:]
	switch c.b[c.pos] {
	case 0xf9: // half: every normal value and zero re-encode as half
		if len(rest) < 2 {
			return 0, false
		}
		h := uint16(rest[0])<<8 | uint16(rest[1])
		exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
		var f float64
		switch {
		case exp == 0 && frac == 0:
			f = 0
		case exp == 0 || exp == 0x1f:
			return 0, false
		default:
			f = math.Ldexp(1+frac/1024, exp-15)
		}
		if h&0x8000 != 0 {
			f = -f
		}
		c.pos += 3
		return f, true
	case 0xfa: // single: shortest only when no half holds it, which is
		// certain when the low 13 fraction bits are not all zero
		if len(rest) < 4 {
			return 0, false
		}
		bits := uint32(rest[0])<<24 | uint32(rest[1])<<16 | uint32(rest[2])<<8 | uint32(rest[3])
		f := float64(math.Float32frombits(bits))
		if bits&0x1fff == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		c.pos += 5
		return f, true
	case 0xfb: // double: shortest exactly when no single holds it
		if len(rest) < 8 {
			return 0, false
		}
		var bits uint64
		for _, x := range rest[:8] {
			bits = bits<<8 | uint64(x)
		}
		f := math.Float64frombits(bits)
		if math.IsNaN(f) || math.IsInf(f, 0) || float64(float32(f)) == f {
			return 0, false
		}
		c.pos += 9
		return f, true
	}
	return 0, false
}

// decode fills out (a zero record struct) from raw when raw is exactly the
// Core Deterministic encoding of the decoded value under decMode's limits,
// and reports whether it did; on false, out may be partly filled.
func (p *plan) decode(raw []byte, out reflect.Value) bool {
	c := cursor{b: raw}
	m, pairs, ok := c.head()
	if !ok || m != 5 || pairs > uint64(len(p.fields)) {
		return false
	}
	fi := 0
	for ; pairs > 0; pairs-- {
		// Fields the encoder would omit may be skipped; the rest must be
		// there, in key order.
		for fi < len(p.fields) && !bytes.HasPrefix(c.b[c.pos:], p.fields[fi].key) {
			if !p.fields[fi].omitEmpty {
				return false
			}
			fi++
		}
		if fi == len(p.fields) {
			return false
		}
		f := &p.fields[fi]
		c.pos += len(f.key)
		if !f.decode(&c, out.Field(f.index)) {
			return false
		}
		fi++
	}
	for ; fi < len(p.fields); fi++ {
		if !p.fields[fi].omitEmpty {
			return false
		}
	}
	return c.pos == len(raw)
}

// decode reads one field's value into v. A present omitempty field must
// hold a value the encoder would not omit.
func (f *planField) decode(c *cursor, v reflect.Value) bool {
	switch f.kind {
	case fkUint:
		m, n, ok := c.head()
		if !ok || m != 0 || n > f.max || (f.omitEmpty && n == 0) {
			return false
		}
		v.SetUint(n)
	case fkText:
		s, ok := c.str(3)
		if !ok || (f.omitEmpty && len(s) == 0) {
			return false
		}
		v.SetString(string(s))
	case fkBytes:
		// An empty or null byte string is left to the full path.
		s, ok := c.str(2)
		if !ok || len(s) == 0 {
			return false
		}
		v.SetBytes(bytes.Clone(s))
	case fkByteArray:
		s, ok := c.str(2)
		if !ok || len(s) != f.n {
			return false
		}
		reflect.Copy(v, reflect.ValueOf(s))
	case fkFloat:
		x, ok := c.float()
		if !ok {
			return false
		}
		v.SetFloat(x)
	case fkArrayList, fkFloatList:
		if c.null() {
			// Decodes to nil, which encodes as null unless omitted.
			return !f.omitEmpty
		}
		m, n, ok := c.head()
		if !ok || m != 4 || n > MaxParents || (f.omitEmpty && n == 0) || n > uint64(len(c.b)-c.pos) {
			return false
		}
		list := reflect.MakeSlice(v.Type(), int(n), int(n))
		for i := 0; i < int(n); i++ {
			if f.kind == fkFloatList {
				x, ok := c.float()
				if !ok {
					return false
				}
				list.Index(i).SetFloat(x)
				continue
			}
			s, ok := c.str(2)
			if !ok || len(s) != f.n {
				return false
			}
			reflect.Copy(list.Index(i), reflect.ValueOf(s))
		}
		v.Set(list)
	case fkPtrText, fkPtrUint:
		if c.null() {
			return !f.omitEmpty
		}
		elem := reflect.New(v.Type().Elem())
		if f.kind == fkPtrText {
			s, ok := c.str(3)
			if !ok {
				return false
			}
			elem.Elem().SetString(string(s))
		} else {
			m, n, ok := c.head()
			if !ok || m != 0 || n > f.max {
				return false
			}
			elem.Elem().SetUint(n)
		}
		v.Set(elem)
	default:
		return false
	}
	return true
}
