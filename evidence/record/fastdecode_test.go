package record

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// kindOf names a fast-path type for decodeFull's errors.
var kindOf = map[reflect.Type]string{
	reflect.TypeOf(Entry{}): KindEntry, reflect.TypeOf(Write{}): "write",
	reflect.TypeOf(PrincipalEvent{}): KindPrincipal, reflect.TypeOf(Tombstone{}): KindTombstone,
}

// fastAgrees decodes raw as every fast-path type, once through
// decodeStrictWith (fast path first) and once through decodeFull alone,
// and fails unless both give the same error text and the same value (also
// on failure: callers read the id from the partly decoded struct). It
// reports how many types the fast path itself accepted.
func fastAgrees(t *testing.T, raw []byte) (fast int) {
	t.Helper()
	for typ, p := range fastPlans {
		kind := kindOf[typ]
		a, b := reflect.New(typ), reflect.New(typ)
		errA := decodeStrictWith(decMode, kind, raw, a.Interface())
		errB := decodeFull(decMode, kind, raw, b.Interface())
		if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
			t.Fatalf("%s %x: with the fast path %v, full decoding %v", kind, raw, errA, errB)
		}
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Fatalf("%s %x: values differ\n fast %+v\n full %+v", kind, raw, a.Interface(), b.Interface())
		}
		if p.decode(raw, reflect.New(typ).Elem()) {
			if errB != nil {
				t.Fatalf("%s %x: fast path accepted what full decoding rejects: %v", kind, raw, errB)
			}
			fast++
		}
	}
	return fast
}

// filled returns a value of typ with every field set to a non-empty
// value derived from seed, with floats from floats.
func filled(typ reflect.Type, seed byte, floats []float64) reflect.Value {
	v := reflect.New(typ).Elem()
	for i := 0; i < typ.NumField(); i++ {
		f := v.Field(i)
		switch ft := f.Type(); {
		case isUint(ft):
			f.SetUint(uint64(seed) * 1000003 & maxUint(ft))
			if f.Uint() == 0 {
				f.SetUint(1)
			}
		case ft.Kind() == reflect.String:
			f.SetString(strings.Repeat("é", int(seed)%30+1))
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Uint8:
			f.SetBytes(bytes.Repeat([]byte{seed}, 64))
		case ft.Kind() == reflect.Array:
			for j := 0; j < ft.Len(); j++ {
				f.Index(j).SetUint(uint64(seed) + uint64(j))
			}
		case ft.Kind() == reflect.Float64:
			f.SetFloat(floats[0])
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Float64:
			f.Set(reflect.ValueOf(append([]float64{}, floats...)))
		case ft.Kind() == reflect.Slice:
			l := reflect.MakeSlice(ft, len(floats), len(floats))
			for j := 0; j < l.Len(); j++ {
				for k := 0; k < l.Index(j).Len(); k++ {
					l.Index(j).Index(k).SetUint(uint64(seed) ^ uint64(j*16+k))
				}
			}
			f.Set(l)
		case ft.Kind() == reflect.Pointer:
			e := reflect.New(ft.Elem())
			if ft.Elem().Kind() == reflect.String {
				e.Elem().SetString("s-" + string(rune('a'+seed%26)))
			} else {
				e.Elem().SetUint(uint64(seed) % 4)
			}
			f.Set(e)
		}
	}
	return v
}

// fastSamples encodes valid-looking records of every fast-path type with
// floats of every width, empty and nil lists and omitted optional fields.
func fastSamples(t testing.TB) [][]byte {
	var out [][]byte
	floatSets := [][]float64{{0.5, 1}, {0.1, 0.3333333333333333}, {1e-8, 65504}, {math.Ldexp(1, -20), math.Copysign(0, -1)}, {1e10, 0.7}, {1.5}}
	for typ := range fastPlans {
		for seed, fs := range floatSets {
			v := filled(typ, byte(seed*37+1), fs)
			variants := []reflect.Value{v}
			// Empty and nil lists, nil pointers, empty texts: each field
			// zeroed in turn (omitted when omitempty, else encoded empty).
			for i := 0; i < typ.NumField(); i++ {
				w := reflect.New(typ).Elem()
				w.Set(v)
				w.Field(i).SetZero()
				variants = append(variants, w)
				if w.Field(i).Kind() == reflect.Slice {
					x := reflect.New(typ).Elem()
					x.Set(v)
					x.Field(i).Set(reflect.MakeSlice(x.Field(i).Type(), 0, 0))
					variants = append(variants, x)
				}
			}
			for _, w := range variants {
				raw, err := encMode.Marshal(w.Interface())
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, raw)
			}
		}
	}
	return out
}

// mutations of raw that keep most of it: every byte replaced by a few
// telling values, non-shortest heads, floats in other widths, truncation.
func mutations(raw []byte) [][]byte {
	var out [][]byte
	with := func(i int, repl ...byte) {
		m := append(append(append([]byte{}, raw[:i]...), repl...), raw[i+1:]...)
		out = append(out, m)
	}
	for i, b := range raw {
		for _, r := range []byte{b ^ 1, b + 1, b - 1, 0x00, 0x17, 0x18, 0x40, 0x60, 0x80, 0xa0, 0xf6, 0xf9, 0xfa, 0xfb, 0xff} {
			with(i, r)
		}
		// The same head one width longer.
		if b>>5 < 6 && b&0x1f < 24 {
			with(i, b&0xe0|24, b&0x1f)
		}
		// Floats re-encoded in the other widths when the value survives.
		if f, n, ok := readAnyFloat(raw[i:]); ok {
			for _, enc := range floatEncodings(f) {
				out = append(out, append(append(append([]byte{}, raw[:i]...), enc...), raw[i+n:]...))
			}
		}
		out = append(out, raw[:i])
	}
	return out
}

func readAnyFloat(b []byte) (float64, int, bool) {
	switch {
	case len(b) >= 3 && b[0] == 0xf9:
		h := binary.BigEndian.Uint16(b[1:])
		exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
		f := math.Ldexp(frac/1024, -14)
		if exp != 0 {
			f = math.Ldexp(1+frac/1024, exp-15)
		}
		if exp == 0x1f {
			return 0, 0, false
		}
		if h&0x8000 != 0 {
			f = -f
		}
		return f, 3, true
	case len(b) >= 5 && b[0] == 0xfa:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b[1:]))), 5, true
	case len(b) >= 9 && b[0] == 0xfb:
		return math.Float64frombits(binary.BigEndian.Uint64(b[1:])), 9, true
	}
	return 0, 0, false
}

var (
	halvesOnce sync.Once
	halves     map[uint64]uint16 // float64 bits -> the half holding it
)

// floatEncodings gives f as single and double, and as half when a half
// holds it (searched, to stay independent of the code under test).
func floatEncodings(f float64) [][]byte {
	var out [][]byte
	d := make([]byte, 9)
	d[0] = 0xfb
	binary.BigEndian.PutUint64(d[1:], math.Float64bits(f))
	out = append(out, d)
	if float64(float32(f)) == f {
		s := make([]byte, 5)
		s[0] = 0xfa
		binary.BigEndian.PutUint32(s[1:], math.Float32bits(float32(f)))
		out = append(out, s)
		halvesOnce.Do(func() {
			halves = map[uint64]uint16{}
			for h := 0; h < 1<<16; h++ {
				if g, _, ok := readAnyFloat([]byte{0xf9, byte(h >> 8), byte(h)}); ok {
					halves[math.Float64bits(g)] = uint16(h)
				}
			}
		})
		if h, ok := halves[math.Float64bits(f)]; ok {
			out = append(out, []byte{0xf9, byte(h >> 8), byte(h)})
		}
	}
	return out
}

func TestFastPlansCoverHotTypes(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeOf(Entry{}), reflect.TypeOf(Write{}), reflect.TypeOf(PrincipalEvent{}), reflect.TypeOf(Tombstone{})} {
		if fastPlans[typ] == nil {
			t.Errorf("%v has no fast decoding plan", typ)
		}
	}
}

// TestFastDecodeAgreesOnSamples: the fast path accepts the canonical
// records (so verify takes it), and on those and every mutation of them
// it gives decodeFull's answer.
func TestFastDecodeAgreesOnSamples(t *testing.T) {
	t.Parallel()
	samples := fastSamples(t)
	accepted := 0
	for _, raw := range samples {
		if fastAgrees(t, raw) > 0 {
			accepted++
		}
	}
	// Every full sample decodes fast as its own type; so do the variants
	// whose zeroed field encodes as a value the fast path reads (all but
	// those with an empty signature, a subnormal half or a single that a
	// half could hold).
	if accepted < len(samples)*3/4 {
		t.Fatalf("fast path took only %d of %d canonical samples", accepted, len(samples))
	}
	// Mutations of six records of different types and float sets (all
	// of them would take minutes; FuzzFastDecodeAgrees goes further): the variants differ from those in a
	// field or two, which the per-byte mutations reach anyway.
	n, step := 0, len(samples)/6
	if testing.Short() {
		step = len(samples) / 2
	}
	for i, raw := range samples {
		if i%step != 0 {
			continue
		}
		for _, m := range mutations(raw) {
			fastAgrees(t, m)
			n++
		}
	}
	t.Logf("%d samples (%d on the fast path), %d mutations agree", len(samples), accepted, n)
}

// FuzzFastDecodeAgrees holds the fast path to decodeFull on any input:
// same error, same value. Seeds: the samples and the four record
// decoders' seed corpora (copied into testdata/fuzz/FuzzFastDecodeAgrees
// from real scenario records).
func FuzzFastDecodeAgrees(f *testing.F) {
	for _, raw := range fastSamples(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fastAgrees(t, raw)
	})
}

// TestFastDecodeOnScenarioSeeds runs every seed the record decoders'
// corpora hold (records of generated scenarios and their hostile
// variants) through the differential check, and requires the fast path
// to take the valid ones.
func TestFastDecodeOnScenarioSeeds(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/fuzz/FuzzDecode*/*")
	if len(files) == 0 {
		t.Fatal("no seed corpus found")
	}
	valid, fast := 0, 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		raw, ok := corpusBytes(data)
		if !ok {
			t.Fatalf("%s: not a []byte corpus file", name)
		}
		if fastAgrees(t, raw) > 0 {
			fast++
		}
		for typ := range fastPlans {
			if decodeFull(decMode, kindOf[typ], raw, reflect.New(typ).Interface()) == nil {
				valid++
			}
		}
	}
	if fast != valid {
		t.Fatalf("the fast path took %d of the %d valid seed records", fast, valid)
	}
	t.Logf("%d seeds, %d valid, all on the fast path", len(files), valid)
}

// corpusBytes reads the []byte of a "go test fuzz v1" corpus file.
func corpusBytes(data []byte) ([]byte, bool) {
	_, body, ok := strings.Cut(string(data), "\n")
	if !ok {
		return nil, false
	}
	body = strings.TrimSpace(body)
	body = strings.TrimSuffix(strings.TrimPrefix(body, "[]byte("), ")")
	s, err := strconv.Unquote(body)
	return []byte(s), err == nil
}
