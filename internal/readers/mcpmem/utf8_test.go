package mcpmem

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// nodeDecodes writes random byte strings (UTF-8 pieces, truncated and
// stray bytes, surrogates' and overlong forms) and the code points Node
// reads from each as the server reads its file (Buffer's "utf8", what
// fs.readFile(path, "utf-8") returns).
const nodeDecodes = `
const pieces = [[0x61],[0xc3,0xa9],[0xe4,0xb8,0xad],[0xf0,0x9f,0x98,0x80],[0xed,0xa0,0x80],[0xed,0x9f,0xbf],[0x80],[0xc3],[0xe4,0xb8],
  [0xf0,0x9f,0x98],[0xc0,0xaf],[0xf5,0x80],[0xff],[0xf4,0x90,0x80,0x80],[0xe0,0x80,0x80],[0xf0,0x9f],[0xe0,0xa0],[0xc2],[0x0a]];
let seed = 11;
const rnd = n => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
const out = [];
for (let i = 0; i < 3000; i++) {
  const b = [];
  for (let j = rnd(7); j > 0; j--) b.push(...pieces[rnd(pieces.length)]);
  const buf = Buffer.from(b);
  out.push({b: buf.toString("base64"), s: Array.from(buf.toString("utf8")).map(c => c.codePointAt(0))});
}
console.log(JSON.stringify(out));
`

// TestDecodesAsNode: the store's bytes are read as the server's Node
// reads them, one U+FFFD for each maximal part of an invalid sequence.
func TestDecodesAsNode(t *testing.T) {
	sharedtest.ServerMemory(t) // Node, as the server's tests need it
	out, err := exec.Command("node", "-e", nodeDecodes).Output()
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		B []byte `json:"b"`
		S []rune `json:"s"`
	}
	if err := json.Unmarshal(out, &cases); err != nil {
		t.Fatal(err)
	}
	invalid := 0
	for _, c := range cases {
		if got := nodeUTF8(c.B); got != string(c.S) {
			t.Errorf("% x: %q; Node %q", c.B, got, string(c.S))
		}
		if string(c.S) != string(c.B) {
			invalid++
		}
	}
	if invalid < len(cases)/4 || invalid == len(cases) {
		t.Errorf("%d of %d invalid: the generator should give both", invalid, len(cases))
	}
}
