package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// DiffData is a finished comparison of two snapshots, as memscope diff
// computed it (package diff through inspect.DiffSnapshots): the inspector
// shows it, it analyses nothing.
type DiffData struct {
	A, B string
	// Consistency is the checkpoints' verdict ("consistent", "fork", ...)
	// and Detail says why.
	Consistency, Detail string
	Tables              []DiffTable
	Findings            []finding.Finding
	Changes             []diff.RowChange
	// Omitted counts changes left out of Changes (the list is bounded).
	Omitted int
	Queries []DiffQuery
}

// DiffTable is one table's counts.
type DiffTable struct {
	Name                                      string
	Added, Removed, Tombstoned, Changed, Same int
}

// DiffQuery is one query's selection on G then and now.
type DiffQuery struct {
	Query, Class string
	Then, Now    []string
	Problem      string
}

// DiffModel is the inspector's diff mode: one scrollable document that
// opens on the differences (errors first, then every change), with the
// consistency verdict and the per-query selections.
type DiffModel struct {
	d      DiffData
	styles Styles
	keys   KeyMap
	lines  []string
	top    int
	width  int
	height int
}

// NewDiff builds the diff mode over d.
func NewDiff(d DiffData, opts Options) tea.Model {
	opts = DefaultOptionsFromEnv(opts)
	m := &DiffModel{d: d, styles: NewStyles(!opts.Light, opts.NoColor, opts.Plain), keys: DefaultKeyMap(), width: 80, height: 24}
	if opts.Keys != nil {
		m.keys = *opts.Keys
	}
	m.lines = m.document()
	return m
}

// RunDiff runs the diff mode until the user quits.
func RunDiff(d DiffData, opts Options) error {
	_, err := newProgram(NewDiff(d, opts)).Run()
	return err
}

func (m *DiffModel) Init() tea.Cmd { return nil }

func (m *DiffModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.lines = m.document()
	case tea.KeyPressMsg:
		page := max(1, m.height-3)
		switch {
		case key.Matches(msg, m.keys.Quit), key.Matches(msg, m.keys.Back):
			return m, tea.Quit
		case key.Matches(msg, m.keys.Down):
			m.top++
		case key.Matches(msg, m.keys.Up):
			m.top--
		case key.Matches(msg, m.keys.PageDown):
			m.top += page
		case key.Matches(msg, m.keys.PageUp):
			m.top -= page
		case key.Matches(msg, m.keys.Top):
			m.top = 0
		case key.Matches(msg, m.keys.Bottom):
			m.top = len(m.lines)
		}
		m.top = max(0, min(m.top, len(m.lines)-page))
	}
	return m, nil
}

func (m *DiffModel) View() tea.View {
	s := m.styles
	page := max(1, m.height-3)
	title := s.Bold.Render("memscope diff") + "  " + sanitize.Line(m.d.A) + "  ->  " + sanitize.Line(m.d.B)
	out := []string{fit(title, m.width), ""}
	end := min(len(m.lines), m.top+page)
	for _, l := range m.lines[min(m.top, end):end] {
		out = append(out, fit(l, m.width))
	}
	for len(out) < page+2 {
		out = append(out, "")
	}
	out = append(out, s.Dim.Render(fit(fmt.Sprintf("lines %d-%d of %d  •  ↑/↓ pgup/pgdn g/G scroll  •  q quit", m.top+1, end, len(m.lines)), m.width)))
	v := tea.NewView(strings.Join(out, "\n"))
	v.AltScreen = true
	return v
}

// document lays out the comparison, differences first.
func (m *DiffModel) document() []string {
	s := m.styles
	d := m.d
	var out []string
	errs, warns, _ := finding.Count(d.Findings)
	verdict := fmt.Sprintf("consistency: %s (%s)", d.Consistency, sanitize.Line(d.Detail))
	switch d.Consistency {
	case "fork", "rollback":
		verdict = s.Error.Render(verdict)
	case "not checked":
		verdict = s.Warning.Render(verdict)
	}
	out = append(out, verdict, fmt.Sprintf("findings: %d errors, %d warnings; %d rows differ", errs, warns, len(d.Changes)+d.Omitted), "")
	if len(d.Findings) > 0 {
		out = append(out, s.Title.Render("Findings"))
		for _, sev := range []finding.Severity{finding.SevError, finding.SevWarning, finding.SevInfo} {
			for _, f := range d.Findings {
				if f.Severity != sev {
					continue
				}
				line := fmt.Sprintf("  %-7s %-30s %s: %s", f.Severity, f.Code, sanitize.Line(f.Subject), sanitize.Line(f.Message))
				if sev == finding.SevError {
					line = s.Error.Render(line)
				}
				out = append(out, line)
			}
		}
		out = append(out, "")
	}
	out = append(out, s.Title.Render("Changes from A to B"))
	if len(d.Changes) == 0 {
		out = append(out, "  no rows differ")
	}
	for _, c := range d.Changes {
		mark := map[diff.ChangeKind]string{diff.Added: "+", diff.Removed: "-", diff.Tombstoned: "x", diff.Changed: "~"}[c.Kind]
		line := fmt.Sprintf("  %s %-11s %-10s %s", mark, c.Table, c.Kind, sanitize.Line(c.Key))
		switch {
		case c.Signed && (c.Kind == diff.Removed || c.Kind == diff.Changed):
			line = s.Error.Render(line + "  ERROR")
		case c.Kind == diff.Tombstoned:
			line += "  (tombstone in B)"
		}
		out = append(out, line)
	}
	if d.Omitted > 0 {
		out = append(out, s.Dim.Render(fmt.Sprintf("  ... %d more changes (memscope diff --json lists them all)", d.Omitted)))
	}
	out = append(out, "", s.Title.Render("Per table"), fmt.Sprintf("  %-12s %6s %8s %10s %8s %8s", "TABLE", "ADDED", "REMOVED", "TOMBSTONED", "CHANGED", "SAME"))
	for _, t := range d.Tables {
		out = append(out, fmt.Sprintf("  %-12s %6d %8d %10d %8d %8d", t.Name, t.Added, t.Removed, t.Tombstoned, t.Changed, t.Same))
	}
	if len(d.Queries) > 0 {
		out = append(out, "", s.Title.Render("Selection on G then (A) and now (B)"))
		for _, q := range d.Queries {
			if q.Problem != "" {
				out = append(out, fmt.Sprintf("  %s  not replayed: %s", sanitize.Line(q.Query), sanitize.Line(q.Problem)))
				continue
			}
			out = append(out, fmt.Sprintf("  %-22s %s", sanitize.Line(q.Query), q.Class),
				"    then "+sanitize.Line(strings.Join(q.Then, ", ")), "    now  "+sanitize.Line(strings.Join(q.Now, ", ")))
		}
	}
	return out
}
