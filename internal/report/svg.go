package report

import (
	"fmt"
	"strings"

	"github.com/memscope/memscope/internal/present/dagdraw"
)

// Drawing is a lineage neighbourhood as SVG geometry: the terminal DAG's
// layout (dagdraw) with lanes and rows turned into coordinates. The page
// template writes the elements, so every label goes through html/template.
type Drawing struct {
	Width, Height int
	Lines         []Line
	Nodes         []DrawnNode
	Alt           string // what the picture shows, in words
}

// Line is one stroke; Class is its edge style (strong, weak, elided).
type Line struct {
	X1, Y1, X2, Y2 int
	Class          string
}

// DrawnNode is one entry of the drawing. Its trust label is drawn as a
// shape and written as a word, never shown by colour alone.
type DrawnNode struct {
	X, Y   int
	Shape  string // circle, ring, diamond, triangle
	Points string // polygon points for diamond and triangle
	Trust  string
	Focus  bool
	TextX  int
	Note   string
	Label  Text
}

// Drawing geometry, in SVG user units (1/96 inch).
const (
	laneW    = 22
	rowH     = 30
	padX     = 16
	padY     = 6
	drawW    = 860 // the viewBox width; the page scales it to fit
	charW    = 7.0 // average advance of the 11.5px label font
	nodeSize = 7
)

// trustShape maps a trust label to a shape: the shapes get heavier and
// sharper as trust drops, so a grey-scale print still tells them apart.
func trustShape(trust string) string {
	switch trust {
	case "Trusted":
		return "circle"
	case "Derived-Trusted":
		return "ring"
	case "Derived-Untrusted":
		return "diamond"
	}
	return "triangle"
}

// draw turns a layout into geometry.
func draw(l *dagdraw.Layout) *Drawing {
	lanes := max(1, l.Lanes())
	textX := padX + (lanes-1)*laneW + laneW
	d := &Drawing{Width: drawW, Height: padY*2 + l.Len()*rowH}
	cx := func(lane int) int { return padX + lane*laneW }
	var external, untrusted int
	for i := 0; i < l.Len(); i++ {
		sh := l.Shape(i)
		top := padY + i*rowH
		cy := top + rowH/2
		for k, c := range sh.Lanes {
			x := cx(k)
			if c.Up {
				d.Lines = append(d.Lines, Line{x, top, x, cy, c.Vert.String()})
			}
			if c.Down {
				d.Lines = append(d.Lines, Line{x, cy, x, top + rowH, c.Vert.String()})
			}
			if c.Left && (k == 0 || sh.Spans[k-1] == nil) {
				d.Lines = append(d.Lines, Line{x - laneW/2, cy, x, cy, c.Horiz.String()})
			}
			if c.Right && sh.Spans[k] == nil {
				d.Lines = append(d.Lines, Line{x, cy, x + laneW/2, cy, c.Horiz.String()})
			}
			if sp := sh.Spans[k]; sp != nil {
				d.Lines = append(d.Lines, Line{x, cy, cx(k + 1), cy, sp.String()})
			}
		}
		if sh.Node < 0 {
			continue
		}
		n := l.Node(sh.Node)
		col := 0
		for k, c := range sh.Lanes {
			if c.Node {
				col = k
			}
		}
		dn := DrawnNode{X: cx(col), Y: cy, Shape: trustShape(n.Trust), Trust: n.Trust, Focus: n.Focus, TextX: textX, Note: sh.Note}
		if sh.Hidden > 0 {
			dn.Note = strings.TrimPrefix(dn.Note+fmt.Sprintf("; +%d lane(s) not drawn", sh.Hidden), "; ")
		}
		switch dn.Shape {
		case "diamond":
			dn.Points = fmt.Sprintf("%d,%d %d,%d %d,%d %d,%d", dn.X, cy-nodeSize-1, dn.X+nodeSize+1, cy, dn.X, cy+nodeSize+1, dn.X-nodeSize-1, cy)
			untrusted++
		case "triangle":
			dn.Points = fmt.Sprintf("%d,%d %d,%d %d,%d", dn.X, cy-nodeSize-1, dn.X+nodeSize+1, cy+nodeSize, dn.X-nodeSize-1, cy+nodeSize)
			external++
		}
		// Cut the label to the picture's width: the full text is in the
		// entry table under the drawing.
		room := int(float64(drawW-textX-8)/charW) - len([]rune(n.Trust)) - len([]rune(dn.Note)) - 6
		dn.Label = Text(cutRunes(n.Label, max(12, room)))
		d.Nodes = append(d.Nodes, dn)
	}
	d.Alt = fmt.Sprintf("Derivation graph of %d entries (%d External, %d Derived-Untrusted); children above parents, solid lines are strong edges, dashed weak, dotted elided ancestry.",
		len(d.Nodes), external, untrusted)
	return d
}

// cutRunes keeps at most n characters of s, marking a cut with an ellipsis.
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
