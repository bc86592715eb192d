package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// untrusted sanitises evidence text before any styling and shows the
// sanitiser's escapes in the Escape style, cut to w cells.
func (m *Model) untrusted(s string, w int) string {
	if w <= 0 {
		return ""
	}
	clean := sanitize.Line(s)
	if clean == s {
		return fit(s, w)
	}
	var b strings.Builder
	for _, p := range sanitize.LinePieces(s) {
		if p.Kind == sanitize.Escape {
			b.WriteString(m.styles.Escape.Render(p.Text))
		} else {
			b.WriteString(p.Text)
		}
	}
	return fit(b.String(), w)
}

func stripANSI(s string) string { return ansi.Strip(s) }

// padRight pads a styled string with spaces to w cells.
func padRight(s string, w int) string {
	n := ansi.StringWidth(s)
	if n >= w {
		return s
	}
	return s + strings.Repeat(" ", w-n)
}

// ellipsis marks a cut; plain mode replaces it (see plainText).
const ellipsis = "…"

// shortID keeps the start and the end of a long id: UUIDv7 ids share their
// time prefix, so the tail tells neighbours apart. The short form is
// accepted back by : and by the CLI (package idform); plain mode writes
// "head~tail".
func shortID(id string, plain bool) string {
	if plain {
		return idform.ShortPlain(id)
	}
	return idform.Short(id)
}

func itoa(n int) string { return strconv.Itoa(n) }

// firstLine returns at most n bytes of s, cut at a rune boundary so the cut
// itself does not look like invalid UTF-8 (the sanitiser shows line breaks).
func firstLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// renderTabs draws the tab bar; when the names do not fit, inactive tabs
// shorten to four letters, then to their number.
func (m *Model) renderTabs(w int) string {
	s := m.styles
	for _, short := range []int{0, 4, 1} {
		var b strings.Builder
		m.tabHits = m.tabHits[:0]
		x := 0
		title := s.Title.Render("memscope") + " "
		b.WriteString(title)
		x += ansi.StringWidth(title)
		for v := View(0); v < viewCount; v++ {
			name := v.String()
			if v != m.view && short > 0 {
				name = name[:min(len(name), short)]
				if short == 1 {
					name = ""
				}
			}
			label := strings.TrimRight(fmt.Sprintf(" %d %s", (v+1)%10, name), " ") + " " // the tenth view is key 0
			if v == m.view {
				label = s.TabActive.Render("[" + strings.TrimSpace(label) + "]")
			} else {
				label = s.Tab.Render(label)
			}
			n := ansi.StringWidth(label)
			m.tabHits = append(m.tabHits, hit{x, x + n})
			b.WriteString(label)
			x += n
		}
		if x <= w || short == 1 {
			return b.String()
		}
	}
	return ""
}

func (m *Model) renderStatus(w int) string {
	s := m.styles
	left := ""
	switch {
	case m.status != "" && m.statusIsErr:
		left = s.Error.Render("error: ") + m.status
	case m.status != "":
		left = m.status
	case m.verifying:
		left = fmt.Sprintf("%s verifying %s %s", s.Spinner[m.spin%len(s.Spinner)], m.progress.Stage, progressText(m.progress))
	case m.verifyErr != nil:
		left = s.Error.Render("verification failed: ") + sanitize.Line(m.verifyErr.Error())
	case m.verifyDone:
		left = m.findingsSummary()
	}
	right := m.liveRight() + s.Dim.Render(sanitize.Line(m.ov.Title))
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

func progressText(p Progress) string {
	if p.Total <= 0 {
		return fmt.Sprintf("%d", p.Done)
	}
	return fmt.Sprintf("%d/%d (%d%%)", p.Done, p.Total, p.Done*100/p.Total)
}

// findingsSummary counts the findings by the command that reports them,
// so the numbers match the CLI's: verification (memscope verify), then
// lineage, replay and the MWP audit (memscope exposure), which verify does
// not report.
func (m *Model) findingsSummary() string {
	type count struct{ e, w, i int }
	var ver, lin, rep, mw count
	for _, f := range m.findings {
		c := &ver
		switch f.Family {
		case finding.FamLineage:
			c = &lin
		case finding.FamReplay:
			c = &rep
		case finding.FamMWP:
			c = &mw
		}
		switch f.Severity {
		case finding.SevError:
			c.e++
		case finding.SevWarning:
			c.w++
		default:
			c.i++
		}
	}
	s := m.styles
	word := "verified"
	if m.ov.Unsigned {
		word = "checked (unsigned store)"
	}
	if ver.e+ver.w+ver.i == 0 {
		word += ": " + s.Good.Render("no findings")
	} else {
		word += fmt.Sprintf(": %s, %s, %s", s.Error.Render(plural(ver.e, "error", "errors")),
			s.Warning.Render(plural(ver.w, "warning", "warnings")), s.Info.Render(fmt.Sprintf("%d info", ver.i)))
	}
	// The other analyses: only what they found.
	for _, x := range []struct {
		name string
		c    count
	}{{"lineage", lin}, {"replay", rep}, {"mwp", mw}} {
		var parts []string
		if x.c.e > 0 {
			parts = append(parts, s.Error.Render(plural(x.c.e, "error", "errors")))
		}
		if x.c.w > 0 {
			parts = append(parts, s.Warning.Render(plural(x.c.w, "warning", "warnings")))
		}
		if x.c.i > 0 {
			parts = append(parts, s.Info.Render(fmt.Sprintf("%d info", x.c.i)))
		}
		if len(parts) > 0 {
			word += "  " + x.name + ": " + strings.Join(parts, ", ")
		}
	}
	if m.auditing {
		word += "  " + s.Dim.Render("mwp: auditing")
	}
	return word
}

// plural is "1 error", "2 errors".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (m *Model) renderShortHelp(w int) string {
	k := m.keys
	h := help.New()
	h.SetWidth(w)
	h.Styles.ShortKey = m.styles.Bold
	h.Styles.ShortDesc = m.styles.Footer
	h.Styles.ShortSeparator = m.styles.Footer
	bs := []key.Binding{k.Help, k.Up, k.Down, k.Open} // the tab bar shows how to switch views
	if m.cm.open {
		return h.ShortHelpView([]key.Binding{k.Up, k.Down, k.Open, k.PageDown, k.Back})
	}
	switch m.view {
	case ViewEntries:
		bs = append(bs, k.Filter, k.Sort, k.Right)
	case ViewFindings:
		bs = append(bs, k.Severity, k.Filter)
	case ViewLineage:
		bs = append(bs, k.TauUp, k.TauDown, k.Policy, k.ExportDOT)
	case ViewReplay:
		if m.opts.Present {
			// Present mode: space and enter step the story (model.key).
			next := key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space/enter", "next step"))
			return h.ShortHelpView([]key.Binding{next, k.StoryBack, k.WhatIf, k.Toggle, k.Back, k.Help, k.Quit})
		}
		if m.rep.open {
			bs = append(bs, k.Story, k.StoryBack, k.Toggle, k.WhatIf, k.Back)
		} else {
			bs = append(bs, k.AsRan)
		}
	case ViewExposure:
		bs = append(bs, k.Sort, k.Reverse)
	}
	bs = append(bs, k.Copy, k.CopyCell, k.Quit)
	return h.ShortHelpView(bs)
}

func keyMapPathHint() string {
	if p := DefaultKeyMapPath(); p != "" {
		return p
	}
	return "keys.json"
}

// bar draws a progress bar with a percentage, readable without colour.
func (m *Model) bar(done, total, w int) string {
	if w < 3 {
		w = 3
	}
	frac := 0.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	fill := int(frac * float64(w))
	full, empty := "█", "░"
	if m.styles.Plain {
		full, empty = "#", "-"
	}
	return "[" + strings.Repeat(full, fill) + strings.Repeat(empty, w-fill) + "]" + fmt.Sprintf(" %3d%%", int(frac*100))
}

func (m *Model) renderOverview(w, h int) []string {
	s, ov := m.styles, m.ov
	lines := []string{
		s.Title.Render("Store ") + m.untrusted(ov.Title, w-6),
		"",
		fmt.Sprintf("  principals   %d", ov.Principals),
		fmt.Sprintf("  entries      %d", ov.Entries),
		fmt.Sprintf("  edges        %d  (structural writes)", ov.Edges),
		fmt.Sprintf("  queries      %d    actions %d    tombstones %d", ov.Queries, ov.Actions, ov.Tombstones), // a table of counts: no plural
		fmt.Sprintf("  log size     %d leaves, %d checkpoints", ov.LogSize, ov.Checkpoints),
		fmt.Sprintf("  tau          %.2f  (%s/%s change it in every view)", ov.Tau, m.keys.TauDown.Help().Key, m.keys.TauUp.Help().Key),
	}
	if ov.LabelPolicy != "" {
		lines = append(lines, fmt.Sprintf("  labels       %s  (%s switches fail-open/fail-closed)", ov.LabelPolicy, m.keys.Policy.Help().Key))
	}
	lines = append(lines, "",
		s.Title.Render("Trust anchors"))
	if len(ov.Anchors) == 0 {
		lines = append(lines, "  "+s.Warning.Render("none given: nothing is anchored"))
	}
	for _, a := range ov.Anchors {
		st := s.Warning.Render("UNANCHORED (read from the snapshot)")
		if a.Pinned {
			st = s.Good.Render("pinned")
		}
		lines = append(lines, fmt.Sprintf("  %-14s %s  %s", sanitize.Line(a.Name), st, m.untrusted(a.Detail, 40)))
	}
	for _, n := range ov.Notes {
		lines = append(lines, "  "+s.Dim.Render(s.Bullet+" ")+m.untrusted(n, w-4))
	}
	lines = append(lines, "", s.Title.Render("Verification"))
	switch {
	case m.verifying:
		p := m.progress
		lines = append(lines, fmt.Sprintf("  %s %s %s", s.Spinner[m.spin%len(s.Spinner)], padRight(sanitize.Line(p.Stage), 12), m.bar(p.Done, p.Total, min(40, w-30))),
			s.Dim.Render("  the other views work while this runs"))
	case m.verifyErr != nil:
		lines = append(lines, "  "+s.Error.Render("FAILED: ")+m.untrusted(m.verifyErr.Error(), w-12),
			s.Dim.Render("  check the --log location and the anchors, then reopen"))
	case m.verifyDone:
		lines = append(lines, "  "+m.findingsSummary())
	default:
		lines = append(lines, s.Dim.Render("  not started"))
	}
	lines = append(lines, "", s.Title.Render("Findings by family"))
	type fam struct{ err, warn, info int }
	byFam := map[string]*fam{}
	for _, f := range m.findings {
		c := byFam[string(f.Family)]
		if c == nil {
			c = &fam{}
			byFam[string(f.Family)] = c
		}
		switch f.Severity {
		case finding.SevError:
			c.err++
		case finding.SevWarning:
			c.warn++
		default:
			c.info++
		}
	}
	names := make([]string, 0, len(byFam))
	for n := range byFam {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		if m.verifyDone {
			lines = append(lines, "  "+s.Good.Render("none"))
		} else {
			lines = append(lines, s.Dim.Render("  (after verification)"))
		}
	}
	for _, n := range names {
		c := byFam[n]
		lines = append(lines, fmt.Sprintf("  %-12s %s %s %s", sanitize.Line(n),
			s.Error.Render(fmt.Sprintf("%4d error", c.err)), s.Warning.Render(fmt.Sprintf("%4d warning", c.warn)), s.Info.Render(fmt.Sprintf("%4d info", c.info))))
	}
	return lines
}
