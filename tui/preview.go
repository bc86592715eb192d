package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// previewState is the pane that shows the selected row in full.
type previewState struct {
	on     bool
	frac   float64 // share of the width (beside) or height (below)
	scroll int
}

// besideMin is the narrowest window that puts the preview beside the list;
// narrower windows stack it below.
const besideMin = 140

// timelineBesideMin is besideMin for the Timeline, whose fixed columns
// take 60 cells before the event's summary.
const timelineBesideMin = 200

func ansiWidth(s string) int { return ansi.StringWidth(s) }

// paneLayout says how the body is split for the current view.
type paneLayout struct {
	pane   bool // a preview pane is shown
	beside bool
	mainW  int
	mainH  int
	paneW  int
	paneH  int
}

func (m *Model) layout() paneLayout {
	w, h := m.width, m.bodyHeight()
	l := paneLayout{mainW: w, mainH: h}
	if viewDefs[m.view].preview == nil || !m.pv.on || m.showHelp || w < 40 || h < 8 {
		return l
	}
	if m.view == ViewReplay && m.rep.open {
		return l // the query view is a document of its own
	}
	l.pane = true
	beside := besideMin
	if m.view == ViewTimeline {
		// Its WHAT column is the event itself: the pane goes beside only
		// when the list keeps room for it.
		beside = timelineBesideMin
	}
	if w >= beside {
		l.beside = true
		l.paneW = max(30, int(float64(w)*m.pv.frac))
		l.mainW = w - l.paneW - 1
		l.paneH = h
		return l
	}
	l.paneH = max(4, int(float64(h)*m.pv.frac))
	l.mainH = h - l.paneH
	l.paneW = w
	return l
}

// listHeight is the height the current view's list is drawn in.
func (m *Model) listHeight() int { return m.layout().mainH }

// renderBody draws the current view and, for list views, the preview pane.
func (m *Model) renderBody(w, h int) []string {
	def := viewDefs[m.view]
	l := m.layout()
	main := m.renderMain(def, l.mainW, l.mainH)
	if !l.pane {
		return main
	}
	pre := m.renderPreview(def, l.paneW, l.paneH, l.beside)
	if l.beside {
		sep := m.styles.Dim.Render("│")
		if m.styles.Plain {
			sep = "|"
		}
		out := make([]string, h)
		for i := range out {
			left := ""
			if i < len(main) {
				left = fit(main[i], l.mainW)
			}
			right := ""
			if i < len(pre) {
				right = pre[i]
			}
			out[i] = padRight(left, l.mainW) + sep + right
		}
		return out
	}
	out := make([]string, 0, h)
	for i := 0; i < l.mainH; i++ {
		if i < len(main) {
			out = append(out, main[i])
		} else {
			out = append(out, "")
		}
	}
	return append(out, pre...)
}

// renderMain draws a view into w x h; a document view is scrolled.
func (m *Model) renderMain(def viewDef, w, h int) []string {
	lines := def.render(m, w, h)
	if def.move != nil {
		return lines
	}
	return m.scrollDoc(m.view, lines, h)
}

// scrollDoc shows h lines of a document from the view's scroll offset and
// says when there is more below.
func (m *Model) scrollDoc(v View, lines []string, h int) []string {
	top := min(m.scroll[v], max(0, len(lines)-h))
	m.scroll[v] = top
	end := min(len(lines), top+h)
	out := append([]string(nil), lines[top:end]...)
	if end < len(lines) && h > 1 {
		out[len(out)-1] = m.styles.Dim.Render(moreLine(len(lines)-end+1, m.styles.Plain))
	}
	return out
}

func moreLine(n int, plain bool) string {
	arrow := "↓"
	if plain {
		arrow = "v"
	}
	return "  " + arrow + " " + itoa(n) + " more lines (j, pgdn, G)"
}

// renderPreview draws the selected row in full, wrapped to w.
func (m *Model) renderPreview(def viewDef, w, h int, beside bool) []string {
	s := m.styles
	inner := w - 1
	if beside {
		inner = w - 2
	}
	var body []string
	for _, l := range def.preview(m) {
		body = append(body, wrapLine(l, inner)...)
	}
	title := "Selected in full"
	keys := "  (" + m.keys.Preview.Help().Key + " hide, " + m.keys.PreviewShrink.Help().Key + "/" + m.keys.PreviewGrow.Help().Key + " size, " +
		m.keys.PreviewUp.Help().Key + "/" + m.keys.PreviewDown.Help().Key + " scroll, " + m.keys.CopyAll.Help().Key + " copy)"
	head := s.Title.Render(title) + s.Dim.Render(keys)
	if !beside {
		rule := "─"
		if s.Plain {
			rule = "-"
		}
		head = s.Dim.Render(rule+rule+" ") + head
	}
	rows := h - 1
	top := min(m.pv.scroll, max(0, len(body)-rows))
	m.pv.scroll = top
	out := []string{fit(" "+head, w)}
	for i := top; i < len(body) && len(out) < h; i++ {
		out = append(out, " "+body[i])
	}
	if top+rows < len(body) && len(out) == h {
		out[h-1] = " " + s.Dim.Render(moreLine(len(body)-(top+rows)+1, s.Plain))
	}
	return out
}

// wrapLine wraps a styled line to w cells, breaking long words (ids,
// hashes) too, so nothing is cut off.
func wrapLine(l string, w int) []string {
	if w < 4 {
		w = 4
	}
	if ansi.StringWidth(l) <= w {
		return []string{l}
	}
	// Continuations keep the line's indentation (up to a third of w).
	plain := ansi.Strip(l)
	indent := len(plain) - len(strings.TrimLeft(plain, " "))
	if indent > w/3 {
		indent = 0
	}
	first := strings.Split(ansi.Wrap(l, w, " /-"), "\n")
	if indent == 0 || len(first) == 1 {
		return first
	}
	pad := strings.Repeat(" ", indent)
	rest := strings.Split(ansi.Wrap(strings.Join(first[1:], " "), w-indent, " /-"), "\n")
	out := []string{first[0]}
	for _, r := range rest {
		out = append(out, pad+r)
	}
	return out
}

// wrapUntrusted sanitises evidence text (keeping its escapes visible) and
// wraps it to w cells; line breaks in content stay line breaks.
func (m *Model) wrapUntrusted(prefix, s string) []string {
	var out []string
	for i, part := range strings.Split(s, "\n") {
		p := prefix
		if i > 0 {
			p = strings.Repeat(" ", ansi.StringWidth(prefix))
		}
		out = append(out, p+m.untrusted(part, 1<<20))
	}
	return out
}
