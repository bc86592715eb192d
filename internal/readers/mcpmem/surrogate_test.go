package mcpmem

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/sharedtest"
)

// nodeLines writes items with JSON.stringify, as the server's saveGraph
// does, and says for each line whether one of its strings holds a lone
// surrogate once JSON.parse has read it back.
const nodeLines = `
const items = [
  {type: "entity", name: "plain", entityType: "t", observations: ["ok"]},
  {type: "entity", name: "cut \ud83d", entityType: "t", observations: []},
  {type: "entity", name: "whole \ud83d\ude00", entityType: "t", observations: []},
  {type: "entity", name: "obs", entityType: "t", observations: ["low \ude00 first"]},
  {type: "relation", from: "plain", to: "x\udbff", relationType: "r"},
  {type: "entity", name: "\\\\ud800 is text", entityType: "t", observations: []},
];
const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const lines = items.map(i => JSON.stringify(i));
const flags = lines.map(l => Object.values(JSON.parse(l)).flat().some(v => typeof v === "string" && lone.test(v)));
console.log(JSON.stringify({lines, flags}));
`

// TestLoneSurrogateWarned: every line whose strings JSON.parse reads with
// an unpaired surrogate (written by JSON.stringify, as the server writes
// its file) gets MCPMEM_LONE_SURROGATE, and no other line does: a whole
// emoji, escaped or not, and an escaped backslash before "ud800" are not
// lone surrogates.
func TestLoneSurrogateWarned(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		sharedtest.Missing(t, "node")
	}
	out, err := exec.Command(node, "-e", nodeLines).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got struct {
		Lines []string
		Flags []bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	// A pair written as two escapes, as another writer may.
	got.Lines = append(got.Lines, `{"type":"entity","name":"escaped pair \ud83d\ude00","entityType":"t","observations":[]}`)
	got.Flags = append(got.Flags, false)
	g := Parse([]byte(strings.Join(got.Lines, "\n")), "memory.jsonl")
	warned := map[string]bool{}
	for _, is := range g.Issues {
		if is.Code == finding.MCPMemLoneSurrogate {
			warned[is.Subject] = true
		} else {
			t.Errorf("unexpected issue %+v", is)
		}
	}
	flagged := 0
	for i, want := range got.Flags {
		subject := "line " + strconv.Itoa(i+1)
		if warned[subject] != want {
			t.Errorf("%s %s: warned %v, JSON.parse reads a lone surrogate: %v", subject, got.Lines[i], warned[subject], want)
		}
		if want {
			flagged++
		}
	}
	if flagged != 3 || !bytes.Contains(out, []byte(`\\ud83d`)) {
		t.Fatalf("node flagged %d lines (want the 3 written with one): %s", flagged, out)
	}
}
