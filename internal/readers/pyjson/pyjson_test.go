package pyjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// pyDocs writes random documents with json.dumps, floats nan, inf and
// -inf among their values and the same words inside strings and keys,
// with what json.loads reads (the constants as None) and how many there
// are.
const pyDocs = `
import json, math, random
rng = random.Random(11)
words = ['NaN', 'Infinity', '-Infinity', 'a "NaN" b', 'x\\\\', '\\\\"NaN', 'NaNa', '']
def value(d):
    r = rng.random()
    if d > 3 or r < 0.3:
        return rng.choice([float('nan'), float('inf'), -float('inf'), 1.5, -2, None, True, rng.choice(words)])
    if r < 0.65:
        return [value(d + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(words) + str(i): value(d + 1) for i in range(rng.randint(0, 4))}
def nulled(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None, 1
    if isinstance(v, list):
        out = [nulled(x) for x in v]
        return [x for x, _ in out], sum(n for _, n in out)
    if isinstance(v, dict):
        out = {k: nulled(x) for k, x in v.items()}
        return {k: x for k, (x, _) in out.items()}, sum(n for _, n in out.values())
    return v, 0
docs = []
for _ in range(500):
    v = value(0)
    text = json.dumps(v, indent=rng.choice([None, 1]), separators=rng.choice([None, (',', ':')]))
    want, n = nulled(json.loads(text))
    docs.append({"text": text, "want": json.dumps(want), "n": n})
print(json.dumps(docs))
`

// TestConstantsAsPythonReads: documents json.dumps wrote read, after
// Constants, as json.loads reads them with each NaN or infinity as None,
// and the count is Python's.
func TestConstantsAsPythonReads(t *testing.T) {
	var docs []struct {
		Text string `json:"text"`
		Want string `json:"want"`
		N    int    `json:"n"`
	}
	sharedtest.RunPython(t, pyDocs, &docs)
	replaced := 0
	for _, d := range docs {
		b, n := Constants([]byte(d.Text))
		var got, want any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%s: %v after Constants (%s)", d.Text, err, b)
			continue
		}
		if err := json.Unmarshal([]byte(d.Want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || n != d.N {
			t.Errorf("%s: read %v (%d replaced), Python %v (%d)", d.Text, got, n, want, d.N)
		}
		replaced += n
	}
	if replaced < len(docs) {
		t.Errorf("only %d constants in %d documents: the generator should write more", replaced, len(docs))
	}
}

// TestConstantsLeavesTheRest: what is not a constant in a value position
// is left as it is, for the decoder to refuse as Python's does.
func TestConstantsLeavesTheRest(t *testing.T) {
	for _, s := range []string{`{NaN: 1}`, `[-NaN]`, `[NaNa]`, `[nan]`, `["NaN"]`, `[1, "\"NaN"]`, `[Infinityx]`} {
		b, n := Constants([]byte(s))
		if n != 0 || string(b) != s {
			t.Errorf("%s: %s (%d replaced)", s, b, n)
		}
	}
}

// FuzzConstants: never a panic; what Constants returns decodes wherever
// the input decoded, and is the input when it replaced nothing.
func FuzzConstants(f *testing.F) {
	for _, s := range []string{`[NaN, Infinity, -Infinity]`, `{"a": NaN}`, `"NaN"`, `[1, "\\"NaN", NaN]`, `NaN`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, n := Constants(b)
		if n == 0 && string(out) != string(b) {
			t.Errorf("%q changed with nothing replaced: %q", b, out)
		}
		if json.Valid(b) && !json.Valid(out) {
			t.Errorf("%q was valid JSON, %q is not", b, out)
		}
	})
}

// TestConstantsAllocatesOnce: the copy is made at its exact size, so a
// file at the readers' bound costs its size once more, not twice.
func TestConstantsAllocatesOnce(t *testing.T) {
	b := []byte(strings.Repeat(`{"a": [NaN, -Infinity, "NaN"]}, `, 1000))
	b = append(append([]byte("["), b[:len(b)-2]...), ']')
	out, n := Constants(b)
	if n != 2000 || len(out) != cap(out) || len(out) != len(b)+1000*(1-5) {
		t.Errorf("%d replaced, len %d cap %d (input %d)", n, len(out), cap(out), len(b))
	}
	if a := testing.AllocsPerRun(10, func() { Constants(b) }); a != 1 {
		t.Errorf("%v allocations, want 1", a)
	}
}

// pyEncoded writes documents in every encoding json.loads detects, as
// bytes (base64), with what json.loads reads from them.
const pyEncoded = `
import json, base64, random, codecs
rng = random.Random(5)
encs = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]
texts = ['{"a": "b"}', '["\u00e9t\u00e9", "\u4e2d\u6587", "\U0001f600", 1.5]', '"x"', '{}', '[]', '1', '{"docstore/data": {"n1": {"__data__": {"text": "caf\u00e9 \u2014 \U0001d11e"}}}}']
out = []
for t in texts:
    for e in encs:
        b = t.encode(e)
        out.append({"bytes": base64.b64encode(b).decode(), "enc": e, "want": json.dumps(json.loads(b)), "detected": json.detect_encoding(b)})
print(json.dumps(out))
`

// TestBytesTextAsJSONLoads: bytes in each encoding Python's json.loads
// detects (with and without byte order marks) read as it reads them, and
// the encoding named as it names it.
func TestBytesTextAsJSONLoads(t *testing.T) {
	var cases []struct {
		Bytes    []byte `json:"bytes"`
		Enc      string `json:"enc"`
		Want     string `json:"want"`
		Detected string `json:"detected"`
	}
	sharedtest.RunPython(t, pyEncoded, &cases)
	if len(cases) < 50 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		text, name, err := BytesText(c.Bytes)
		var got, want any
		if err == nil {
			err = json.Unmarshal(text, &got)
		}
		if err2 := json.Unmarshal([]byte(c.Want), &want); err2 != nil {
			t.Fatal(err2)
		}
		if err != nil || !reflect.DeepEqual(got, want) || name != c.Detected {
			t.Errorf("%s % x: read %v as %s (%v); Python %v as %s", c.Enc, c.Bytes, got, name, err, want, c.Detected)
		}
	}
}

// FuzzBytesText: never a panic; UTF-8 without a mark comes back as it is.
func FuzzBytesText(f *testing.F) {
	for _, s := range []string{"\xff\xfe{\x00}\x00", "\xef\xbb\xbf[]", "\x00\x00\x00[", "[\x00\x00\x00", "{}", "\x00{", "\xfe\xff\xd8\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, name, err := BytesText(b)
		if err == nil && name == "utf-8" && !bytes.Equal(out, b) {
			t.Errorf("%q: UTF-8 changed to %q", b, out)
		}
	})
}

// pyInvalid decodes random byte strings (UTF-8 pieces, surrogates'
// three-byte forms, stray and truncated bytes) as json.loads decodes
// bytes ("surrogatepass") and as a file opened with encoding="utf-8" is
// read ("strict"), and gives where each fails (-1: it does not).
const pyInvalid = `
import json, random, base64
rng = random.Random(3)
pieces = [b"a", "\u00e9".encode(), "\u4e2d".encode(), "\U0001f600".encode(), b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\x9f\xbf",
          b"\x80", b"\xc3", b"\xe4\xb8", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xf5\x80\x80\x80", b"\xff", b"\xf4\x90\x80\x80", b"\xe0\x80\x80"]
out = []
for _ in range(2000):
    b = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
    at = []
    for errors in ["surrogatepass", "strict"]:
        try:
            b.decode("utf-8", errors)
            at.append(-1)
        except UnicodeDecodeError as e:
            at.append(e.start)
    out.append({"b": base64.b64encode(b).decode(), "at": at})
print(json.dumps(out))
`

// TestFirstInvalidUTF8AsPython: where Python's decoder stops, with either
// error handler, memscope points too.
func TestFirstInvalidUTF8AsPython(t *testing.T) {
	var cases []struct {
		B  []byte `json:"b"`
		At [2]int `json:"at"`
	}
	sharedtest.RunPython(t, pyInvalid, &cases)
	bad := 0
	for _, c := range cases {
		if got := [2]int{FirstInvalidUTF8(c.B, true), FirstInvalidUTF8(c.B, false)}; got != c.At {
			t.Errorf("% x: %d, Python %d (surrogatepass, strict)", c.B, got, c.At)
		}
		if c.At[0] >= 0 {
			bad++
		}
	}
	if bad < len(cases)/4 || bad == len(cases) {
		t.Errorf("%d of %d invalid: the generator should give both", bad, len(cases))
	}
}
