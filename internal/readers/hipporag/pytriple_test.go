package hipporag

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/sharedtest"
)

// pyTriples writes str() of triples with every kind of character repr
// escapes (quotes, backslashes, controls, DEL, C1 controls, no-break and
// zero-width spaces, bidi controls, line and paragraph separators, a tag
// character, a BOM) beside printable non-ASCII it keeps, and what eval
// reads back from each: HippoRAG's own write and read of a fact.
const pyTriples = `
import json, random
chars = ["it's", 'say "hi"', "both ' and \"", "back\\slash", "\t", "\n", "\r", "\x00", "\x1b[31m", "\x7f",
         "\x85", "\xa0", "\xad", "\u200b", "\u202e", "\u2028", "\ufeff", "\U000e0041", "\U0001f600", "é", "中文", "a", " "]
rng = random.Random(7)
out = []
for i in range(400):
    t = tuple("".join(rng.choice(chars) for _ in range(rng.randint(0, 4))) for _ in range(3))
    s = str(t)
    out.append({"repr": s, "eval": list(eval(s))})
print(json.dumps(out))
`

// TestParsePyTripleAsEvalReadsStr: what HippoRAG writes for a fact
// (str(tuple)) reads here as Python's eval reads it back.
func TestParsePyTripleAsEvalReadsStr(t *testing.T) {
	var cases []struct {
		Repr string    `json:"repr"`
		Eval [3]string `json:"eval"`
	}
	sharedtest.RunPython(t, pyTriples, &cases)
	escapes := 0
	for _, c := range cases {
		got, err := parsePyTriple(c.Repr)
		if err != nil || got != c.Eval {
			t.Errorf("%s: read %q, %v; eval reads %q", c.Repr, got, err, c.Eval)
		}
		for _, e := range []string{`\x`, `\u`, `\U`} {
			if strings.Contains(c.Repr, e) {
				escapes++
				break
			}
		}
	}
	if escapes < len(cases)/4 {
		t.Errorf("only %d of %d triples carry a \\x, \\u or \\U escape", escapes, len(cases))
	}
}

// pyTextProcessing is HippoRAG's misc_utils.text_processing (at c617143)
// applied to "A" + c + "b" for every code point c; it prints the results
// other than "a b", the rest being that.
const pyTextProcessing = `
import re, json
def text_processing(text):
    return re.sub('[^A-Za-z0-9 ]', ' ', text.lower()).strip()
out = {}
for cp in range(0x110000):
    if 0xD800 <= cp < 0xE000:
        continue
    r = text_processing("A" + chr(cp) + "b")
    if r != "a b":
        out[cp] = r
print(json.dumps(out))
`

// TestTextProcessingAsPython: every code point (but the surrogates)
// between two letters is processed as HippoRAG's Python processes it, so
// the entity ids (MD5 of the processed text) agree.
func TestTextProcessingAsPython(t *testing.T) {
	var want map[rune]string
	sharedtest.RunPython(t, pyTextProcessing, &want)
	if len(want) < 60 {
		t.Fatalf("Python kept only %d code points", len(want))
	}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if c >= 0xD800 && c < 0xE000 {
			continue
		}
		w, ok := want[c]
		if !ok {
			w = "a b"
		}
		if got := TextProcessing("A" + string(c) + "b"); got != w {
			t.Errorf("U+%04X: %q, Python %q", c, got, w)
		}
	}
}

// pyLowerCases is Python's str.lower() of every code point c alone, after
// a cased letter before a capital sigma ("Α" c "Σ": is c cased or case
// ignorable?) and after "ΑΣ" (is c cased?); it prints the code points
// where any of the three is other than c itself, "ασ" + c... and "ας" +
// c... respectively, the rest being those.
const pyLowerCases = `
import json, unicodedata
out, unassigned = {}, []
for cp in range(0x110000):
    if 0xD800 <= cp < 0xE000:
        continue
    c = chr(cp)
    if unicodedata.category(c) == "Cn":
        if unassigned and unassigned[-1][1] == cp - 1:
            unassigned[-1][1] = cp
        else:
            unassigned.append([cp, cp])
    got = [c.lower(), ("\u0391" + c + "\u03a3").lower(), ("\u0391\u03a3" + c).lower()]
    if got != [c, "\u03b1" + c.lower() + "\u03c3", "\u03b1\u03c2" + c.lower()]:
        out[cp] = got
print(json.dumps({"cases": out, "unassigned": unassigned}))
`

// TestPyLowerAsPython: Python's str.lower() (HippoRAG's f[0].lower() of a
// fact's subject before hashing it into an entity id) for every code
// point, alone and either side of a capital sigma. Code points that
// Python's Unicode (14.0 in Debian's 3.11) and Go's (15.0) assign
// differently are told apart, not counted.
func TestPyLowerAsPython(t *testing.T) {
	var py struct {
		Cases      map[rune][3]string `json:"cases"`
		Unassigned [][2]rune          `json:"unassigned"`
	}
	sharedtest.RunPython(t, pyLowerCases, &py)
	want := py.Cases
	unassignedInPython := func(c rune) bool {
		for _, r := range py.Unassigned {
			if c >= r[0] && c <= r[1] {
				return true
			}
		}
		return false
	}
	if len(want) < 2000 {
		t.Fatalf("Python listed only %d code points", len(want))
	}
	var versionOnly []string
	bad := 0
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if c >= 0xD800 && c < 0xE000 {
			continue
		}
		w, ok := want[c]
		if !ok {
			s := string(c)
			w = [3]string{s, "\u03b1" + s + "\u03c3", "\u03b1\u03c2" + s}
		}
		got := [3]string{PyLower(string(c)), PyLower("\u0391" + string(c) + "\u03a3"), PyLower("\u0391\u03a3" + string(c))}
		if got == w {
			continue
		}
		if unassignedInPython(c) {
			versionOnly = append(versionOnly, fmt.Sprintf("U+%04X", c))
			continue
		}
		if bad++; bad <= 20 {
			t.Errorf("U+%04X: %q, Python %q", c, got, w)
		}
	}
	if bad > 0 {
		t.Errorf("%d code points differ from Python", bad)
	}
	t.Logf("%d code points Python lists; %d differ only as Unicode 15 assigns them: %v", len(want), len(versionOnly), versionOnly)
}

// TestOpenIENotUTF8IsAFinding: an OpenIE file with a byte that is not
// UTF-8, which HippoRAG cannot open (Python says so here), is flagged
// naming the file and the byte; the rest is still read.
func TestOpenIENotUTF8IsAFinding(t *testing.T) {
	src, dir := sharedtest.CopyCase(t, "hippo2-arunkumar-sample", "outputs/sample")
	p := filepath.Join(dir, "openie_results_ner_gpt-4o-mini.json")
	at := sharedtest.BreakUTF8(t, p, `"passage": "`, []byte{0xc3}, `open(sys.argv[1], encoding="utf-8")`)
	want, err := Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, is := range got.Issues {
		found = found || is.Code == finding.StoreParseDifferential && is.File == p && is.Subject == fmt.Sprintf("byte %d", at)
	}
	if !found || len(got.Nodes) != len(want.Nodes) || len(got.Edges) != len(want.Edges) {
		t.Errorf("finding %v; %d nodes %d edges, untouched %d and %d", found, len(got.Nodes), len(got.Edges), len(want.Nodes), len(want.Edges))
	}
}
