package dagdraw

import (
	"strings"
	"testing"
)

// Shape must describe exactly what RenderRow draws: the node in the same
// lane, a line wherever the terminal shows one, and the same annotation.
func TestShapeMatchesRender(t *testing.T) {
	for _, cap := range []int{8, 2} {
		l, err := NewLayout(sampleGraph(), Options{MaxLanes: cap})
		if err != nil {
			t.Fatal(err)
		}
		if l.Lanes() > cap {
			t.Errorf("cap %d: %d lanes", cap, l.Lanes())
		}
		for i := 0; i < l.Len(); i++ {
			// Rendering trims trailing blanks; pad so every lane has a cell.
			row := []rune(l.RenderRow(i, 200, ASCII) + strings.Repeat(" ", 2*cap+2))
			sh := l.Shape(i)
			if sh.Node != l.RowNode(i) {
				t.Errorf("row %d: node %d, RowNode %d", i, sh.Node, l.RowNode(i))
			}
			for k, c := range sh.Lanes {
				g := row[2*k]
				switch {
				case c.Node:
					if g != '*' && g != '@' {
						t.Errorf("cap %d row %d lane %d: node cell drawn as %q", cap, i, k, g)
					}
				case c.Up || c.Down || c.Left || c.Right:
					if g == ' ' {
						t.Errorf("cap %d row %d lane %d: shape has a line, render a blank", cap, i, k)
					}
				default:
					if g != ' ' {
						t.Errorf("cap %d row %d lane %d: shape is empty, render has %q", cap, i, k, g)
					}
				}
				if (sh.Spans[k] != nil) != (row[2*k+1] != ' ') {
					t.Errorf("cap %d row %d: span after lane %d disagrees with %q", cap, i, k, row[2*k+1])
				}
			}
			if sh.Node >= 0 && sh.Note != "" && !strings.Contains(string(row), strings.ReplaceAll(sh.Note, "← ", "<- ")) {
				t.Errorf("row %d: note %q not in %q", i, sh.Note, string(row))
			}
		}
	}
}
