package pyjson

import (
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
