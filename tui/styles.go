package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles is the one semantic style set. Every verdict also carries a word or
// a marker, so NO_COLOR and plain mode lose no information.
type Styles struct {
	Plain bool // --plain: no box borders, ASCII markers and spinner

	Title, Tab, TabActive       lipgloss.Style
	Header, Dim, Bold, Selected lipgloss.Style
	Error, Warning, Info, Good  lipgloss.Style
	Escape                      lipgloss.Style // sanitiser escapes inside untrusted text
	Diverge, Reorder, Same      lipgloss.Style
	Footer, Help, FilterPrompt  lipgloss.Style
	Box                         lipgloss.Style
	SelMarker, Bullet, Ellipsis string
	Spinner                     []string
}

// NewStyles builds the styles for a dark or light background. noColor keeps
// only bold, faint and reverse; plain also drops borders and Unicode markers.
func NewStyles(dark, noColor, plain bool) Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color {
		if noColor {
			return nil
		}
		return ld(lipgloss.Color(light), lipgloss.Color(darkc))
	}
	fg := func(col color.Color) lipgloss.Style {
		s := lipgloss.NewStyle()
		if col != nil {
			s = s.Foreground(col)
		}
		return s
	}
	s := Styles{Plain: plain}
	accent := c("#5A3FC0", "#B4A7FF")
	s.Title = fg(accent).Bold(true)
	s.Tab = fg(c("#555555", "#A0A0A0"))
	s.TabActive = fg(accent).Bold(true).Reverse(true)
	s.Header = fg(c("#333333", "#DDDDDD")).Bold(true)
	s.Dim = fg(c("#6B6B6B", "#8A8A8A")).Faint(noColor)
	s.Bold = lipgloss.NewStyle().Bold(true)
	s.Selected = lipgloss.NewStyle().Reverse(true)
	s.Error = fg(c("#B00020", "#FF6B6B")).Bold(true)
	s.Warning = fg(c("#8A5A00", "#FFC857"))
	s.Info = fg(c("#005F87", "#6CB6FF"))
	s.Good = fg(c("#1B7F3B", "#7EE787"))
	s.Escape = fg(c("#B00020", "#FF9E64")).Reverse(true)
	s.Diverge = s.Error
	s.Reorder = s.Warning
	s.Same = s.Dim
	s.Footer = fg(c("#555555", "#A0A0A0"))
	s.Help = lipgloss.NewStyle()
	s.FilterPrompt = fg(accent).Bold(true)
	s.Box = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	if !noColor {
		s.Box = s.Box.BorderForeground(accent)
	}
	s.SelMarker, s.Bullet, s.Ellipsis = "▶", "•", "…"
	s.Spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	if plain {
		s.Box = lipgloss.NewStyle().Padding(0, 1)
		s.SelMarker, s.Bullet, s.Ellipsis = ">", "*", "~"
		s.Spinner = []string{"|", "/", "-", "\\"}
	}
	return s
}

// severity styles a verify severity word.
func (s Styles) severity(sev string) lipgloss.Style {
	switch sev {
	case "error":
		return s.Error
	case "warning":
		return s.Warning
	}
	return s.Info
}

// status renders a Status as a word with its colour.
func (s Styles) status(st Status) string {
	switch st {
	case OK:
		return s.Good.Render("ok")
	case Failed:
		return s.Error.Render("FAIL")
	}
	return s.Dim.Render("not checked")
}
