package hipporag

import (
	"strings"
	"testing"

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
