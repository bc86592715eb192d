package tui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/lineage"
)

// Sortable columns of the entries table.
const (
	sortStore = iota // store order
	sortID
	sortWriter
	sortRecorded
	sortRecomputed
	sortTime
	sortStatus
	sortCount
)

var sortNames = [sortCount]string{"store order", "id", "writer", "recorded", "recomputed", "time", "status"}

// entriesState is a virtual table over Source.Entry: the visible order is an
// index slice (nil = store order) produced by background sort and filter
// commands; only visible rows are rendered and their strings are cached.
type entriesState struct {
	// previewsLoading: a ReadPreviews command is out (previews.go).
	previewsLoading bool
	n               int
	sorted          []int32 // store indices in sort order; nil = identity
	order           []int32 // sorted, then filtered; nil = sorted
	sortCol         int
	desc            bool
	filter          string
	editing         bool
	gen             int // generation of the latest filter/sort request
	// latest mirrors gen for running commands, so a scan that has been
	// superseded stops instead of competing with its replacement.
	latest   *atomic.Int64
	pending  bool
	matched  int
	cur      listCursor
	cache    map[int]string // store index -> rendered row at cacheW
	cacheW   int
	lastScan time.Duration
	// stale: rows arrived while a filter or sort was active.
	stale bool
}

func (e *entriesState) init(n int) { e.n, e.latest = n, new(atomic.Int64) }

func (e *entriesState) len() int {
	if e.order != nil {
		return len(e.order)
	}
	if e.sorted != nil {
		return len(e.sorted)
	}
	return e.n
}

// at maps a visible position to a store index.
func (e *entriesState) at(pos int) int {
	if e.order != nil {
		return int(e.order[pos])
	}
	if e.sorted != nil {
		return int(e.sorted[pos])
	}
	return pos
}

func (e *entriesState) selectedEntry() int {
	if e.len() == 0 {
		return -1
	}
	return e.at(e.cur.sel)
}

// selectEntry moves the selection onto store index i, clearing a filter
// that hides it.
func (e *entriesState) selectEntry(i, height int) {
	pos := e.find(i)
	if pos < 0 {
		e.order, e.filter = nil, ""
		pos = e.find(i)
	}
	if pos >= 0 {
		e.cur.sel = pos
		e.cur.clamp(e.len(), height)
	}
}

func (e *entriesState) find(i int) int {
	switch {
	case e.order != nil:
		return slices.Index(e.order, int32(i))
	case e.sorted != nil:
		return slices.Index(e.sorted, int32(i))
	case i < e.n:
		return i
	}
	return -1
}

type filterMsg struct {
	gen   int
	order []int32 // nil: no filter
	sel   int     // position of the previously selected entry, -1 if gone
	took  time.Duration
}

type sortMsg struct {
	gen    int
	sorted []int32
	sel    int
}

// filterCmd filters the sorted order by needle in a background command.
// The selected entry stays selected when it still matches.
func filterCmd(src Source, gen int, latest *atomic.Int64, sorted []int32, n int, needle string, selected int) tea.Cmd {
	return func() tea.Msg {
		start := time.Now()
		if needle == "" {
			sel := selected
			if sorted != nil {
				sel = slices.Index(sorted, int32(selected))
			}
			return filterMsg{gen: gen, sel: sel, took: time.Since(start)}
		}
		needle = strings.ToLower(needle)
		out := make([]int32, 0, 1024)
		sel := -1
		count := n
		if sorted != nil {
			count = len(sorted)
		}
		for p := 0; p < count; p++ {
			if p&4095 == 0 && latest != nil && latest.Load() != int64(gen) {
				return filterMsg{gen: gen}
			}
			i := p
			if sorted != nil {
				i = int(sorted[p])
			}
			if entryMatches(entryWithPreview(context.Background(), src, i), needle) {
				if i == selected {
					sel = len(out)
				}
				out = append(out, int32(i))
			}
		}
		return filterMsg{gen: gen, order: out, sel: sel, took: time.Since(start)}
	}
}

func entryMatches(r EntryRow, needle string) bool {
	return strings.Contains(strings.ToLower(r.ID), needle) ||
		strings.Contains(strings.ToLower(r.Writer), needle) ||
		strings.Contains(strings.ToLower(r.Preview), needle) ||
		strings.EqualFold(r.Status.String(), needle) ||
		strings.EqualFold(r.Recomputed.Short(), needle)
}

// FilterEntries is the background part of the entries filter, exported for
// benchmarks: the store indices in store order whose id, writer, content
// preview, status or recomputed label match needle (case-insensitive).
func FilterEntries(src Source, needle string) []int32 {
	msg := filterCmd(src, 0, nil, nil, src.EntryCount(), needle, -1)().(filterMsg)
	return msg.order
}

func sortCmd(src Source, gen, n, col int, desc bool, selected int) tea.Cmd {
	return func() tea.Msg {
		if col == sortStore && !desc {
			return sortMsg{gen: gen, sel: selected}
		}
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		// Extract keys once: comparing through Entry would call it
		// n log n times.
		switch col {
		case sortID, sortWriter:
			keys := make([]string, n)
			for i := range keys {
				r := src.Entry(i)
				if col == sortID {
					keys[i] = r.ID
				} else {
					keys[i] = r.Writer
				}
			}
			slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
		case sortStore:
		default:
			keys := make([]int64, n)
			for i := range keys {
				r := src.Entry(i)
				switch col {
				case sortRecorded:
					keys[i] = int64(r.Recorded)
				case sortRecomputed:
					keys[i] = int64(r.Recomputed)
				case sortTime:
					keys[i] = r.TimeNS
				case sortStatus:
					keys[i] = int64(r.Status)
				}
			}
			slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
		}
		if desc {
			slices.Reverse(idx)
		}
		return sortMsg{gen: gen, sorted: idx, sel: slices.Index(idx, int32(selected))}
	}
}

func (e *entriesState) apply(msg filterMsg, height int) tea.Cmd {
	if msg.gen != e.gen {
		return nil
	}
	e.pending = false
	e.order = msg.order
	e.matched = e.len()
	e.lastScan = msg.took
	if msg.sel >= 0 {
		e.cur.sel = msg.sel
	} else {
		e.cur.sel = 0
	}
	e.cur.clamp(e.len(), height)
	return nil
}

func (e *entriesState) applySort(msg sortMsg, src Source) tea.Cmd {
	if msg.gen != e.gen {
		return nil
	}
	e.sorted = msg.sorted
	// Re-run the filter over the new order.
	e.gen++
	e.latest.Store(int64(e.gen))
	return filterCmd(src, e.gen, e.latest, e.sorted, e.n, e.filter, e.selectedEntryAfterSort(msg))
}

func (e *entriesState) selectedEntryAfterSort(msg sortMsg) int {
	if msg.sel >= 0 && msg.sorted != nil {
		return int(msg.sorted[msg.sel])
	}
	if msg.sel >= 0 {
		return msg.sel
	}
	return e.selectedEntry()
}

// edit handles keys while the / filter line is open. Each change starts a
// new background filter; Enter keeps it, Esc clears it.
func (e *entriesState) edit(msg tea.KeyPressMsg, m *Model) tea.Cmd {
	switch msg.String() {
	case "enter":
		e.editing = false
		return nil
	case "esc":
		e.editing = false
		e.filter = ""
	case "backspace":
		if e.filter == "" {
			return nil
		}
		r := []rune(e.filter)
		e.filter = string(r[:len(r)-1])
	case "ctrl+c":
		return m.quit()
	default:
		if msg.Text == "" {
			return nil
		}
		e.filter += msg.Text
	}
	return e.refilter(m.src)
}

func (e *entriesState) refilter(src Source) tea.Cmd {
	e.gen++
	e.latest.Store(int64(e.gen))
	e.pending = true
	return filterCmd(src, e.gen, e.latest, e.sorted, e.n, e.filter, e.selectedEntry())
}

func (m *Model) entriesKey(msg tea.KeyPressMsg) tea.Cmd {
	k, e := m.keys, &m.ent
	switch {
	case key.Matches(msg, k.Filter):
		e.editing = true
		return nil
	case key.Matches(msg, k.Sort), key.Matches(msg, k.Reverse):
		if key.Matches(msg, k.Sort) {
			e.sortCol = (e.sortCol + 1) % sortCount
		} else {
			e.desc = !e.desc
		}
		e.gen++
		e.latest.Store(int64(e.gen))
		e.pending = true
		m.setStatus("sorting by %s%s", sortNames[e.sortCol], map[bool]string{true: " (descending)"}[e.desc])
		return tea.Batch(sortCmd(m.src, e.gen, e.n, e.sortCol, e.desc, e.selectedEntry()), m.startTick())
	case key.Matches(msg, k.Open):
		if e.len() > 0 {
			m.push()
			return m.openEntry(e.selectedEntry())
		}
	case key.Matches(msg, k.Right):
		if e.len() > 0 {
			m.push()
			return m.loadLineage(m.src.Entry(e.selectedEntry()).ID)
		}
	default:
		return m.unused()
	}
	return nil
}

func (m *Model) entrySelected() string {
	if m.ent.len() > 0 {
		return m.src.Entry(m.ent.selectedEntry()).ID
	}
	return ""
}

// entryPreview is the selected entry's row in full, with the findings
// about it.
func (m *Model) entryPreview() []string {
	if m.ent.len() == 0 {
		return nil
	}
	s := m.styles
	r := m.src.Entry(m.ent.selectedEntry())
	out := []string{
		"id: " + m.untrusted(r.ID, 1<<20),
		"writer: " + m.untrusted(r.Writer, 1<<20),
		fmt.Sprintf("trust: recorded %s (REC), recomputed at tau %.2f %s (NOW)", trustWord(r.Recorded), m.tau, trustWord(r.Recomputed)),
		"time: " + m.entryTime(r, time.RFC3339Nano),
		"status: " + m.statusWord(r),
	}
	if r.Recomputed > r.Recorded {
		out = append(out, s.Error.Render("LAUNDERED: the recorded label is safer than the lineage allows"))
	}
	if r.Suspicious != 0 {
		out = append(out, s.Error.Render("! contains control characters: ")+sanitize.Flags(r.Suspicious).String())
	}
	out = append(out, m.wrapUntrusted("content: ", r.Preview)...)
	out = append(out, m.relatedFindings("entry "+r.ID, r.ID, nil)...)
	return out
}

const (
	colID     = 14
	colWriter = 16
	colTime   = 19
	colStatus = 10
)

// statusWord says what is wrong with an entry, never a bare FAIL.
func (m *Model) statusWord(r EntryRow) string {
	s := m.styles
	if r.Problem != "" {
		return s.Error.Render(sanitize.Line(r.Problem))
	}
	switch r.Status {
	case OK:
		return s.Good.Render("ok")
	case Failed:
		return s.Error.Render("SIG FAIL")
	}
	return s.Dim.Render("unchecked")
}

func (m *Model) renderEntries(w, h int) []string {
	e, s := &m.ent, m.styles
	lines := make([]string, 0, h)
	head := fmt.Sprintf("  %-*s %-*s %-4s %-4s %-*s %-*s %s", colID, "ID", colWriter, "WRITER", "REC", "NOW", colTime, "TIME (UTC)", colStatus, "STATUS", "! CONTENT")
	lines = append(lines, s.Header.Render(fit(head, w)))
	m.listTop = 2
	rows := h - 2
	e.cur.clamp(e.len(), rows)
	if e.cache == nil || e.cacheW != w {
		e.cache, e.cacheW = make(map[int]string, rows*2), w
	}
	if len(e.cache) > 4*rows+64 {
		// Bound the cache: it only needs to hold the screens near the
		// selection.
		clear(e.cache)
	}
	n := e.len()
	for p := e.cur.top; p < e.cur.top+rows && p < n; p++ {
		i := e.at(p)
		row, ok := e.cache[i]
		if !ok {
			r := m.src.Entry(i)
			row = m.entryLine(r, w-2)
			if !r.PreviewPending {
				e.cache[i] = row // a placeholder row is drawn again when the preview arrives
			}
		}
		if p == e.cur.sel {
			lines = append(lines, s.Selected.Render(s.SelMarker+" "+ansiStripWidth(row, w-2)))
		} else {
			lines = append(lines, "  "+row)
		}
	}
	if n == 0 {
		if e.pending {
			lines = append(lines, s.Dim.Render("  filtering..."))
		} else {
			lines = append(lines, s.Dim.Render("  no entries match"))
		}
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	// Bottom line: filter input or position.
	pos := fmt.Sprintf("%d/%d", min(e.cur.sel+1, n), n)
	if e.filter != "" || e.editing {
		pos += fmt.Sprintf(" of %d", e.n)
	}
	sortInfo := "sort: " + sortNames[e.sortCol]
	if e.desc {
		sortInfo += " desc"
	}
	var bottom string
	if e.editing {
		bottom = s.FilterPrompt.Render("/") + sanitize.Line(e.filter) + s.Bold.Render("_")
	} else if e.filter != "" {
		bottom = s.FilterPrompt.Render("filter: ") + sanitize.Line(e.filter) + s.Dim.Render("  (esc clears)")
	} else {
		bottom = s.Dim.Render("/ filter  s sort  enter detail  → lineage")
	}
	if e.pending {
		bottom += " " + s.Spinner[m.spin%len(s.Spinner)]
	}
	bottom += "  " + s.Dim.Render(sortInfo+"  "+pos)
	return append(lines[:h-1], bottom)
}

// ansiStripWidth strips styles from a cached row so the selection's reverse
// video covers the whole line uniformly.
func ansiStripWidth(row string, w int) string {
	return fit(stripANSI(row), w)
}

// entryLine renders one entry row (without the selection marker).
func (m *Model) entryLine(r EntryRow, w int) string {
	s := m.styles
	flag := " "
	if r.Suspicious != 0 {
		flag = s.Error.Render("!")
	}
	ts := m.entryTime(r, "2006-01-02 15:04:05")
	rec, now := r.Recorded.Short(), r.Recomputed.Short()
	nowS := padRight(now, 4)
	if r.Recomputed != r.Recorded && r.Recomputed > r.Recorded {
		// Recorded safer than recomputed: laundering. Marked by "*" too.
		nowS = s.Error.Render(padRight(now+"*", 4))
	}
	var b strings.Builder
	b.WriteString(padRight(shortID(sanitize.Line(r.ID), m.styles.Plain), colID))
	b.WriteByte(' ')
	b.WriteString(padRight(fit(sanitize.Line(r.Writer), colWriter), colWriter))
	b.WriteByte(' ')
	b.WriteString(padRight(rec, 4))
	b.WriteByte(' ')
	b.WriteString(nowS)
	b.WriteByte(' ')
	b.WriteString(ts)
	b.WriteByte(' ')
	b.WriteString(padRight(m.statusWord(r), colStatus))
	b.WriteByte(' ')
	b.WriteString(flag)
	b.WriteByte(' ')
	used := colID + colWriter + 4 + 4 + colTime + colStatus + 7 + 1
	if r.PreviewPending {
		b.WriteString(m.styles.Dim.Render("reading..."))
	} else {
		b.WriteString(m.untrusted(firstLine(r.Preview, 4*w), max(0, w-used)))
	}
	return fit(b.String(), w)
}

// trustWord names a trust level with a word (never colour alone).
func trustWord(t lineage.Trust) string { return t.String() }

// entryTime formats r's time, or says there is none: a native store's
// graph nodes carry no time, and 1970-01-01 would read as a claim.
func (m *Model) entryTime(r EntryRow, layout string) string {
	if r.TimeNS == 0 && m.ov.Unsigned {
		if layout == time.RFC3339Nano {
			return "none (the store records no time for it)"
		}
		return "-"
	}
	return time.Unix(0, r.TimeNS).UTC().Format(layout)
}
