package dagdraw

// Vector renderers (the HTML report's SVG) draw the same layout as the
// terminal rows: these accessors expose each row's lane cells without the
// glyphs, so a picture and a terminal drawing of one neighbourhood always
// agree on lanes, joins and edge styles.

// Stroke is the style of a line: strong edge, weak edge or elided ancestry.
type Stroke uint8

const (
	StrokeStrong Stroke = Stroke(strong)
	StrokeWeak   Stroke = Stroke(weak)
	StrokeElided Stroke = Stroke(elided)
)

// String names the stroke in words (for legends and alt text).
func (s Stroke) String() string {
	switch s {
	case StrokeStrong:
		return "strong"
	case StrokeWeak:
		return "weak"
	}
	return "elided"
}

// LaneCell is one lane of one row: which sides of the cell a line touches,
// and whether the row's node sits in it.
type LaneCell struct {
	Up, Down, Left, Right bool
	Vert, Horiz           Stroke // styles of the vertical and horizontal lines
	Node                  bool
}

// RowShape is one row of the layout as geometry.
type RowShape struct {
	// Node is the index into Graph.Nodes drawn on this row, or -1 for the
	// tail row that ends elided ancestry.
	Node int
	// Lanes holds the drawn lanes (at most the lane cap); Hidden counts the
	// busy lanes beyond the cap, shown as "+N" in the terminal.
	Lanes  []LaneCell
	Hidden int
	// Spans[i], when set, is the horizontal line between lane i and i+1.
	Spans []*Stroke
	// Note is the text the terminal prints after the trust label: edge
	// weights to drawn parents, undrawn cycle edges, hidden parents.
	Note string
}

// Shape returns row i's geometry.
func (l *Layout) Shape(i int) RowShape {
	r := l.rows[i]
	out := RowShape{Node: r.Node}
	for k, c := range r.lanes {
		if k >= l.cap {
			if c.flags != 0 {
				out.Hidden++
			}
			continue
		}
		out.Lanes = append(out.Lanes, LaneCell{Up: c.flags&up != 0, Down: c.flags&down != 0, Left: c.flags&left != 0,
			Right: c.flags&right != 0, Vert: Stroke(c.vert), Horiz: Stroke(c.horiz), Node: c.flags&nodeCell != 0})
		var sp *Stroke
		if k < len(r.spans) && r.spans[k] >= 0 {
			s := Stroke(r.spans[k])
			sp = &s
		}
		out.Spans = append(out.Spans, sp)
	}
	if r.Node >= 0 {
		out.Note = l.annotation(r.Node, false)
	}
	return out
}

// Lanes is the number of lanes drawn (the widest row, capped).
func (l *Layout) Lanes() int { return min(l.maxLanes, l.cap) }

// Node returns node i of the laid-out graph.
func (l *Layout) Node(i int) Node { return l.g.Nodes[i] }

// Edges returns the laid-out graph's edges.
func (l *Layout) Edges() []Edge { return l.g.Edges }
