package dagdraw

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func sampleGraph() Graph {
	// A memorygraft-like neighbourhood, children first in input order.
	return Graph{
		Nodes: []Node{
			{ID: "act", Label: "e7 agent:1 send_email draft", Trust: "DU"},
			{ID: "note", Label: "e6 agent:1 follow-up note", Trust: "DU", Focus: true},
			{ID: "sum", Label: "e5 agent:1 summary of page", Trust: "DU"},
			{ID: "tool", Label: "e4 tool:calc result", Trust: "DT", ElidedParents: 2},
			{ID: "user", Label: "e2 user: pay the bill", Trust: "T"},
			{ID: "web", Label: "e1 external:web page", Trust: "EXT"},
			{ID: "old", Label: "e0 user: old preference", Trust: "T", ElidedParents: 1},
		},
		Edges: []Edge{
			{Parent: 1, Child: 0, Weight: 0.9, Strong: true},
			{Parent: 3, Child: 0, Weight: 0.2, Strong: false},
			{Parent: 2, Child: 1, Weight: 0.63, Strong: true},
			{Parent: 5, Child: 2, Weight: 0.9, Strong: true},
			{Parent: 4, Child: 2, Weight: 0.4, Strong: true},
			{Parent: 6, Child: 2, Weight: 0.1, Strong: false},
			{Parent: 4, Child: 3, Weight: 1, Strong: true},
		},
	}
}

func TestGolden(t *testing.T) {
	l, err := NewLayout(sampleGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{30, 60, 100} {
		golden(t, fmt.Sprintf("sample_box_w%d", w), l.Text(w, Box))
	}
	golden(t, "sample_ascii_w60", l.Text(60, ASCII))
	capped, err := NewLayout(sampleGraph(), Options{MaxLanes: 2})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sample_cap2_w80", capped.Text(80, Box))
	dot, err := DOT(sampleGraph(), DOTOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sample_dot", dot)
}

func TestRowsCoverNodesChildrenFirst(t *testing.T) {
	g := sampleGraph()
	l, _ := NewLayout(g, Options{})
	rowOf := map[int]int{}
	for i := 0; i < l.Len(); i++ {
		if v := l.RowNode(i); v >= 0 {
			if _, dup := rowOf[v]; dup {
				t.Fatalf("node %d drawn twice", v)
			}
			rowOf[v] = i
		}
	}
	if len(rowOf) != len(g.Nodes) {
		t.Fatalf("%d of %d nodes drawn", len(rowOf), len(g.Nodes))
	}
	for _, e := range g.Edges {
		if rowOf[e.Child] >= rowOf[e.Parent] {
			t.Errorf("child %d not above parent %d", e.Child, e.Parent)
		}
	}
	checkContinuity(t, l)
	if l.RowOf(4) != rowOf[4] || l.RowOf(99) != -1 {
		t.Error("RowOf disagrees")
	}
	// Window rendering equals slicing the full rendering.
	all := l.Render(0, l.Len(), 80, Box)
	win := l.Render(2, 5, 80, Box)
	if strings.Join(win, "\n") != strings.Join(all[2:5], "\n") || len(l.Render(-3, 99, 80, Box)) != l.Len() {
		t.Error("window rendering differs")
	}
}

func TestHostileLabelsKeepLayout(t *testing.T) {
	g := sampleGraph()
	g.Nodes[0].Label = "evil\n\x1b[31mred\r\u202eright-to-left\u200b\x9b\xff全角文字全角文字全角文字"
	g.Nodes[1].Trust = "D\tU"
	l, _ := NewLayout(g, Options{})
	for _, gl := range []Glyphs{Box, ASCII} {
		for _, w := range []int{1, 17, 40, 200} {
			for i := 0; i < l.Len(); i++ {
				s := l.RenderRow(i, w, gl)
				if got := ansi.StringWidth(s); got > w {
					t.Errorf("width %d row %d is %d wide: %q", w, i, got, s)
				}
				for _, bad := range []string{"\n", "\r", "\x1b", "\t", "\u202e", "\u200b", "\u009b"} {
					if strings.Contains(s, bad) {
						t.Errorf("row %d contains %q: %q", i, bad, s)
					}
				}
			}
		}
	}
	if _, err := NewLayout(Graph{Nodes: g.Nodes, Edges: []Edge{{Parent: 0, Child: 7}}}, Options{}); err == nil {
		t.Error("out-of-range edge accepted")
	}
}

func TestCycleEdgesNotDrawn(t *testing.T) {
	g := Graph{
		Nodes: []Node{{ID: "a", Label: "a"}, {ID: "b", Label: "b"}},
		Edges: []Edge{{Parent: 0, Child: 1, Weight: 1, Strong: true}, {Parent: 1, Child: 0, Weight: 1, Strong: true}, {Parent: 0, Child: 0, Weight: 1}},
	}
	l, err := NewLayout(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := l.Text(80, ASCII)
	if l.Len() != 2 || !strings.Contains(out, "cycle edge(s) not drawn") {
		t.Errorf("cycle layout:\n%s", out)
	}
}

func TestRandomGraphsRender(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(25)
		g := Graph{}
		for i := 0; i < n; i++ {
			g.Nodes = append(g.Nodes, Node{ID: fmt.Sprint(i), Label: fmt.Sprintf("node %d", i), Trust: "T", ElidedParents: r.IntN(3) / 2})
		}
		for c := 0; c < n; c++ {
			for k := r.IntN(4); k > 0; k-- {
				if p := c + 1 + r.IntN(n); p < n {
					g.Edges = append(g.Edges, Edge{Parent: p, Child: c, Weight: r.Float64(), Strong: r.IntN(2) == 0})
				}
			}
		}
		l, err := NewLayout(g, Options{MaxLanes: 1 + r.IntN(6)})
		if err != nil {
			t.Fatal(err)
		}
		checkContinuity(t, l)
		seen := 0
		for i := 0; i < l.Len(); i++ {
			if l.RowNode(i) >= 0 {
				seen++
			}
			for _, gl := range []Glyphs{Box, ASCII} {
				if s := l.RenderRow(i, 50, gl); ansi.StringWidth(s) > 50 {
					t.Fatalf("row too wide: %q", s)
				}
			}
		}
		if seen != n {
			t.Fatalf("trial %d: %d of %d nodes drawn", trial, seen, n)
		}
		if _, err := DOT(g, DOTOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDOTEscaping(t *testing.T) {
	g := Graph{
		Nodes: []Node{
			{ID: `a"; n1 -> n0; "`, Label: "line1\nline2 \\N \\G back\\slash \"quoted\"\x1b[0m", Trust: "EXT"},
			{ID: "b", Label: "plain", Trust: "weird trust"},
		},
		Edges: []Edge{{Parent: 0, Child: 1, Weight: 0.25, Strong: false}},
	}
	dot, err := DOT(g, DOTOptions{Name: "x\"y"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`digraph "x\"y" {`,
		`n0 [shape=doubleoctagon, label="[EXT] a\"; n1 -> n0; \"\nline1\nline2 \\N \\G back\\slash \"quoted\"` + "\uFFFD" + `[0m"];`,
		`n1 [shape=ellipse, label="[weird trust] b\nplain"];`,
		`n0 -> n1 [style=dashed, label="0.25 weak"];`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %s\n%s", want, dot)
		}
	}
	// Each statement is one line: no raw newline or escape inside quotes.
	for _, line := range strings.Split(strings.TrimSpace(dot), "\n") {
		if strings.Count(line, `"`)-strings.Count(line, `\"`) != 0 && strings.Count(line, `"`)%2 != 0 && !strings.Contains(line, `\"`) {
			t.Errorf("unbalanced quotes: %s", line)
		}
		if strings.ContainsAny(line, "\x1b\r") {
			t.Errorf("control character in %q", line)
		}
	}
	if _, err := DOT(Graph{Edges: []Edge{{Parent: 1}}}, DOTOptions{}); err == nil {
		t.Error("bad edge accepted")
	}
}

func TestSVG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("graphviz dot not installed")
	}
	g := sampleGraph()
	g.Nodes[0].Label = "quote \" back\\slash \\N <b>html?</b>"
	dot, _ := DOT(g, DOTOptions{})
	svg, err := SVG(context.Background(), dot)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	if !strings.Contains(s, "<svg") || strings.Count(s, "class=\"node\"") != len(g.Nodes)+2 || strings.Count(s, "class=\"edge\"") != len(g.Edges)+2 {
		t.Errorf("unexpected SVG (%d nodes, %d edges)", strings.Count(s, "class=\"node\""), strings.Count(s, "class=\"edge\""))
	}
	if !strings.Contains(s, "back\\slash \\N") {
		t.Error("backslashes not kept literally")
	}
	if _, err := SVG(context.Background(), "digraph {"); err == nil {
		t.Error("broken DOT accepted")
	}
}

// checkContinuity asserts that pipes are unbroken: a line leaving a row
// downwards arrives in the next row in the same lane, and every line
// arriving from above left the previous row there.
func checkContinuity(t *testing.T, l *Layout) {
	t.Helper()
	at := func(r, k int) cell {
		if k < len(l.rows[r].lanes) {
			return l.rows[r].lanes[k]
		}
		return cell{}
	}
	for r := 0; r+1 < len(l.rows); r++ {
		width := max(len(l.rows[r].lanes), len(l.rows[r+1].lanes))
		for k := 0; k < width; k++ {
			a, b := at(r, k), at(r+1, k)
			if a.flags&down != 0 && b.flags&(up|nodeCell) == 0 {
				t.Fatalf("row %d lane %d goes down into nothing", r, k)
			}
			if b.flags&up != 0 && a.flags&(down|nodeCell) == 0 {
				t.Fatalf("row %d lane %d comes from nothing", r+1, k)
			}
		}
	}
	last := len(l.rows) - 1
	for k, c := range l.rows[last].lanes {
		if c.flags&down != 0 {
			t.Fatalf("last row lane %d goes down", k)
		}
	}
}
