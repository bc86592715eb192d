// Package dagdraw draws a lineage DAG neighbourhood as rows of text (box
// drawing or plain ASCII) and exports it as Graphviz DOT. It is pure: no
// terminal library, no colour; strong and weak edges differ by glyph.
package dagdraw

import (
	"container/heap"
	"fmt"
	"strconv"
	"strings"
)

// Node is one entry to draw.
type Node struct {
	ID    string
	Label string // caller-sanitised text; control characters are still neutralised here
	Trust string // trust label text, e.g. "DU" or "Derived-Untrusted"
	// ElidedParents counts parents not in the drawing (elided ancestry).
	ElidedParents int
	// Focus marks the node the view is centred on.
	Focus bool
}

// Edge is a derivation edge from Parent to Child (indices into Graph.Nodes).
type Edge struct {
	Parent, Child int
	Weight        float64
	Strong        bool // weight above the threshold
}

// Graph is a neighbourhood to draw.
type Graph struct {
	Nodes []Node
	Edges []Edge
}

// Options tune the layout.
type Options struct {
	// MaxLanes caps the drawn lanes; busier rows show "+N". Default 8.
	MaxLanes int
}

type style uint8

const (
	strong style = iota
	weak
	elided
)

// cell flags: which sides of a lane cell a line touches.
const (
	up uint8 = 1 << iota
	down
	left
	right
	nodeCell
)

type cell struct {
	flags uint8
	vert  style // style of a vertical line through the cell
	horiz style // style of a horizontal line through the cell
}

// Row is one precomputed line of the drawing.
type Row struct {
	// Node is the index of the node drawn on this row, or -1 for the tail
	// row that ends elided ancestry below the last node.
	Node  int
	lanes []cell
	// spans[i] is the horizontal line between lane i and i+1, if any.
	spans []int8 // -1 none, else style
}

// Layout is a drawing computed once; render any window of its rows.
type Layout struct {
	g        Graph
	rows     []Row
	maxLanes int
	cap      int
	parents  [][]int // per node: edge indices of its drawn parent edges, lane order
	skipped  []int   // per node: parent edges not drawable (cycles)
}

// NewLayout lays out g: one node per row, children above parents, lanes
// assigned as in lazygit's commit graph. Edges with out-of-range ends are an
// error; edges that would point upwards (cycles) are not drawn and are
// counted in the row text.
func NewLayout(g Graph, opt Options) (*Layout, error) {
	n := len(g.Nodes)
	for i, e := range g.Edges {
		if e.Parent < 0 || e.Parent >= n || e.Child < 0 || e.Child >= n {
			return nil, fmt.Errorf("dagdraw: edge #%d (%d -> %d) names a node outside 0..%d", i, e.Parent, e.Child, n-1)
		}
	}
	if opt.MaxLanes <= 0 {
		opt.MaxLanes = 8
	}
	l := &Layout{g: g, cap: opt.MaxLanes, parents: make([][]int, n), skipped: make([]int, n)}

	order := rowOrder(g)
	rowOf := make([]int, n)
	for r, v := range order {
		rowOf[v] = r
	}
	for i, e := range g.Edges {
		if rowOf[e.Parent] > rowOf[e.Child] {
			l.parents[e.Child] = append(l.parents[e.Child], i)
		} else {
			l.skipped[e.Child]++
		}
	}
	var lanes lanePool
	for _, v := range order {
		l.emit(v, lanes.drawRow(g, v, l.parents[v]))
	}
	// A tail row ends elided stubs opened by the last rows.
	var tail []cell
	for i, p := range lanes {
		if p.target == -2 {
			for len(tail) <= i {
				tail = append(tail, cell{})
			}
			tail[i] = cell{flags: up, vert: p.st}
		}
	}
	if tail != nil {
		spans := make([]int8, len(tail))
		for i := range spans {
			spans[i] = -1
		}
		l.emit(-1, rowCells{cells: tail, spans: spans})
	}
	return l, nil
}

func (l *Layout) emit(node int, rc rowCells) {
	if len(rc.cells) > l.maxLanes {
		l.maxLanes = len(rc.cells)
	}
	l.rows = append(l.rows, Row{Node: node, lanes: rc.cells, spans: rc.spans})
}

// lanePool is every lane's pipe between rows.
type lanePool []pipe

// free answers a free lane not in avoid, opening one when none is free.
func (lanes *lanePool) free(avoid map[int]bool) int {
	for i, p := range *lanes {
		if p.target == -1 && !avoid[i] {
			return i
		}
	}
	*lanes = append(*lanes, pipe{target: -1})
	return len(*lanes) - 1
}

// rowCells is one drawn row: its cells and, between lanes, the style of
// the horizontal that crosses there (-1 none).
type rowCells struct {
	cells []cell
	spans []int8
	col   int // the node's lane
}

// hline draws a horizontal between lanes a < b.
func (rc *rowCells) hline(a, b int, st style) {
	// Where horizontals overlap, the stronger style shows: a strong edge
	// must never look weak.
	for i := a; i < b; i++ {
		if rc.spans[i] < 0 || int8(st) < rc.spans[i] {
			rc.spans[i] = int8(st)
		}
		if i > a {
			if rc.cells[i].flags&(left|right) == 0 || st < rc.cells[i].horiz {
				rc.cells[i].horiz = st
			}
			rc.cells[i].flags |= left | right
		}
	}
}

// link draws the horizontal from the node's lane to lane j, with the joint
// at j facing the node.
func (rc *rowCells) link(j int, st style) {
	if j > rc.col {
		rc.cells[j].flags |= left
		rc.hline(rc.col, j, st)
	} else {
		rc.cells[j].flags |= right
		rc.hline(j, rc.col, st)
	}
}

// openDown starts a pipe of style st down from lane j, linked to the node.
func (rc *rowCells) openDown(j int, st style) {
	for len(rc.cells) <= j {
		rc.cells = append(rc.cells, cell{})
		rc.spans = append(rc.spans, -1)
	}
	rc.cells[j].flags |= down
	rc.cells[j].vert = st
	rc.link(j, st)
}

// drawRow draws node v's row: pipes passing through, pipes converging on
// v, and the pipes v opens to its parents (edges pe) and elided ancestry.
func (lanes *lanePool) drawRow(g Graph, v int, pe []int) rowCells {
	col := -1
	var aimed []int
	for i, p := range *lanes {
		if p.target == v {
			aimed = append(aimed, i)
			if col < 0 {
				col = i
			}
		}
	}
	if col < 0 {
		col = lanes.free(nil)
	}
	width := len(*lanes)
	rc := rowCells{cells: make([]cell, width), spans: make([]int8, width), col: col}
	for i := range rc.spans {
		rc.spans[i] = -1
	}
	// Pass-through pipes and elided stubs ending here. A lane whose stub
	// ends on this row is not reused on this row, or the stub's end would
	// merge into a junction.
	used := map[int]bool{col: true}
	for i, p := range *lanes {
		switch {
		case p.target == -2:
			rc.cells[i] = cell{flags: up, vert: p.st}
			(*lanes)[i].target = -1
			used[i] = true
		case p.target >= 0 && p.target != v:
			rc.cells[i] = cell{flags: up | down, vert: p.st}
		}
	}
	rc.cells[col].flags |= nodeCell
	// Converging pipes join the node's lane.
	for _, i := range aimed {
		used[i] = true
		(*lanes)[i].target = -1
		if i == col {
			continue
		}
		st := (*lanes)[i].st
		rc.cells[i].flags |= up
		rc.cells[i].vert = st
		rc.link(i, st)
	}
	ownLane := lanes.openParents(g, &rc, pe, used)
	if g.Nodes[v].ElidedParents > 0 {
		j := col
		if ownLane {
			j = lanes.free(used)
			rc.openDown(j, elided)
		}
		(*lanes)[j] = pipe{target: -2, st: elided}
	}
	// Trim trailing free lanes so the drawing does not stay wide.
	for len(*lanes) > 0 && (*lanes)[len(*lanes)-1].target == -1 {
		*lanes = (*lanes)[:len(*lanes)-1]
	}
	rc.cells = trimCells(rc.cells)
	return rc
}

// openParents draws the pipes to a node's parents: the first continues in
// the node's lane, others open pipes in free lanes (not ones joining on
// this row). An edge to a parent that already has a pipe of the same style
// passing this row joins that pipe instead of opening a lane. It says
// whether the node's own lane was taken.
func (lanes *lanePool) openParents(g Graph, rc *rowCells, pe []int, used map[int]bool) bool {
	ownLane := false
	for _, ei := range pe {
		st := weak
		if g.Edges[ei].Strong {
			st = strong
		}
		target := g.Edges[ei].Parent
		if dup := joinable(*lanes, target, st, func(i int) bool { return !used[i] || i == rc.col && !ownLane }); dup >= 0 {
			continue // a repeated edge: this row already runs a pipe to target
		}
		if j := joinable(*lanes, target, st, func(i int) bool { return used[i] }); j >= 0 {
			rc.cells[j].flags |= up | down
			rc.link(j, st)
			continue
		}
		if !ownLane {
			ownLane = true
			(*lanes)[rc.col] = pipe{target: target, st: st}
			continue
		}
		j := lanes.free(used)
		used[j] = true
		(*lanes)[j] = pipe{target: g.Edges[ei].Parent, st: st}
		rc.openDown(j, st)
	}
	return ownLane
}

// pipe is a lane's state between rows: the node it runs to (-1 free, -2 an
// elided-ancestry stub that ends on the next row) and its style.
type pipe struct {
	target int
	st     style
}

// joinable finds a lane, other than those skip rejects, whose pipe runs to
// target with style st, or -1.
func joinable(lanes []pipe, target int, st style, skip func(int) bool) int {
	for i, p := range lanes {
		if !skip(i) && p.target == target && p.st == st {
			return i
		}
	}
	return -1
}

func trimCells(c []cell) []cell {
	for len(c) > 0 && c[len(c)-1].flags == 0 {
		c = c[:len(c)-1]
	}
	return c
}

// rowOrder lists nodes so every node comes before its parents (children on
// top), preferring input order among the ready ones. Nodes on cycles are
// appended in input order.
func rowOrder(g Graph) []int {
	n := len(g.Nodes)
	pending := make([]int, n) // children not yet placed
	parents := make([][]int, n)
	for _, e := range g.Edges {
		if e.Parent == e.Child {
			continue
		}
		pending[e.Parent]++
		parents[e.Child] = append(parents[e.Child], e.Parent)
	}
	ready := &intHeap{}
	for v := 0; v < n; v++ {
		if pending[v] == 0 {
			heap.Push(ready, v)
		}
	}
	placed := make([]bool, n)
	order := make([]int, 0, n)
	for len(order) < n {
		if ready.Len() == 0 {
			// Cycle: place the first unplaced node and carry on.
			for v := 0; v < n; v++ {
				if !placed[v] {
					heap.Push(ready, v)
					pending[v] = 0
					break
				}
			}
		}
		v := heap.Pop(ready).(int)
		if placed[v] {
			continue
		}
		placed[v] = true
		order = append(order, v)
		for _, p := range parents[v] {
			pending[p]--
			if pending[p] == 0 && !placed[p] {
				heap.Push(ready, p)
			}
		}
	}
	return order
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Len is the number of rows.
func (l *Layout) Len() int { return len(l.rows) }

// RowNode returns row i's node index (-1 for the elided tail row).
func (l *Layout) RowNode(i int) int { return l.rows[i].Node }

// RowOf returns the row a node is drawn on.
func (l *Layout) RowOf(node int) int {
	for i, r := range l.rows {
		if r.Node == node {
			return i
		}
	}
	return -1
}

// annotation is the per-row text after the label: the weights of the edges
// to drawn parents in edge order, undrawn cycle edges and elided ancestry.
func (l *Layout) annotation(v int, ascii bool) string {
	var parts []string
	if pe := l.parents[v]; len(pe) > 0 {
		ws := make([]string, len(pe))
		for k, ei := range pe {
			e := l.g.Edges[ei]
			ws[k] = strconv.FormatFloat(e.Weight, 'f', 2, 64)
			if !e.Strong {
				ws[k] += " weak"
			}
		}
		arrow := "← "
		if ascii {
			arrow = "<- "
		}
		parts = append(parts, arrow+strings.Join(ws, ", "))
	}
	if s := l.skipped[v]; s > 0 {
		parts = append(parts, fmt.Sprintf("%d cycle edge(s) not drawn", s))
	}
	if h := l.g.Nodes[v].ElidedParents; h > 0 {
		parts = append(parts, fmt.Sprintf("+%d hidden parent(s)", h))
	}
	return strings.Join(parts, "; ")
}
