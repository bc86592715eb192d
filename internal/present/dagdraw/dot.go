package dagdraw

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DOTOptions tune the Graphviz export.
type DOTOptions struct {
	Name string // graph name; default "lineage"
	// Shapes maps a Node.Trust text to a Graphviz shape; nil uses
	// DefaultShapes. Unknown labels get "ellipse".
	Shapes map[string]string
}

// DefaultShapes gives each MemLineage label (long or short form) a shape, so
// trust is readable without colour.
var DefaultShapes = map[string]string{
	"Trusted": "box", "T": "box",
	"Derived-Trusted": "ellipse", "DT": "ellipse",
	"Derived-Untrusted": "octagon", "DU": "octagon",
	"External": "doubleoctagon", "EXT": "doubleoctagon",
}

// DOT renders g as a Graphviz digraph with edges parent -> child: trust as
// shape and in the label, weak edges dashed, elided ancestry as a dotted
// edge from a point node, weights as edge labels. Every string is quoted
// and escaped, so ids and labels cannot inject DOT syntax.
func DOT(g Graph, opt DOTOptions) (string, error) {
	n := len(g.Nodes)
	for i, e := range g.Edges {
		if e.Parent < 0 || e.Parent >= n || e.Child < 0 || e.Child >= n {
			return "", fmt.Errorf("dagdraw: edge #%d (%d -> %d) names a node outside 0..%d", i, e.Parent, e.Child, n-1)
		}
	}
	shapes := opt.Shapes
	if shapes == nil {
		shapes = DefaultShapes
	}
	name := opt.Name
	if name == "" {
		name = "lineage"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(name))
	b.WriteString("  rankdir=BT;\n  node [fontname=\"monospace\"];\n  edge [fontname=\"monospace\"];\n")
	// Nodes are named n0, n1, ... so duplicate or hostile ids cannot
	// collide; the id is shown in the label.
	for i, nd := range g.Nodes {
		shape, ok := shapes[nd.Trust]
		if !ok {
			shape = "ellipse"
		}
		label := nd.ID
		if nd.Trust != "" {
			label = "[" + nd.Trust + "] " + label
		}
		if nd.Label != "" {
			label += "\n" + nd.Label
		}
		attrs := fmt.Sprintf("shape=%s, label=%s", shape, dotQuote(label))
		if nd.Focus {
			attrs += ", penwidth=3"
		}
		fmt.Fprintf(&b, "  n%d [%s];\n", i, attrs)
		if nd.ElidedParents > 0 {
			fmt.Fprintf(&b, "  n%d_elided [shape=point, style=dotted];\n", i)
			fmt.Fprintf(&b, "  n%d_elided -> n%d [style=dotted, label=%s];\n", i, i, dotQuote("+"+strconv.Itoa(nd.ElidedParents)+" hidden"))
		}
	}
	for _, e := range g.Edges {
		st := "solid"
		lbl := strconv.FormatFloat(e.Weight, 'f', 2, 64)
		if !e.Strong {
			st = "dashed"
			lbl += " weak"
		}
		fmt.Fprintf(&b, "  n%d -> n%d [style=%s, label=%s];\n", e.Parent, e.Child, st, dotQuote(lbl))
	}
	b.WriteString("}\n")
	return b.String(), nil
}

// dotQuote makes a DOT double-quoted string. Backslashes are doubled (DOT
// labels treat \N, \G, \l ... as escapes), quotes escaped, newlines become
// \n, and other control or format characters and invalid UTF-8 become
// U+FFFD.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case unsafeRune(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ErrNoGraphviz is returned by SVG when the dot program is not installed.
var ErrNoGraphviz = errors.New("dagdraw: graphviz 'dot' is not installed")

// SVG runs `dot -Tsvg` on DOT text. It returns ErrNoGraphviz when dot is
// absent, so callers can offer the DOT text instead.
func SVG(ctx context.Context, dot string) ([]byte, error) {
	path, err := exec.LookPath("dot")
	if err != nil {
		return nil, ErrNoGraphviz
	}
	cmd := exec.CommandContext(ctx, path, "-Tsvg")
	cmd.Stdin = strings.NewReader(dot)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dagdraw: dot -Tsvg: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.Bytes(), nil
}
