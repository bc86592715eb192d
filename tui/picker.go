package tui

import (
	"fmt"
	"os"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// Picker lists the demo scenarios; Enter opens the inspector on one.
type Picker struct {
	scenarios []Scenario
	open      func(name string) (Source, error)
	opts      Options
	keys      KeyMap
	styles    Styles
	cur       listCursor
	width     int
	height    int
	opening   string
	err       error
	inner     *Model
	help      bool

	// Every source opened, shown or not (an open can finish after the user
	// quit): Close releases them all.
	mu     sync.Mutex
	opened []Source
	closed bool
}

// backToPickerMsg returns from a scenario to the picker.
type backToPickerMsg struct{}

type openedMsg struct {
	name string
	src  Source
	err  error
}

// NewPicker builds the scenario picker of `memscope demo`. open loads a
// scenario by name; it runs in a background command.
func NewPicker(scenarios []Scenario, open func(name string) (Source, error), opts Options) tea.Model {
	km := DefaultKeyMap()
	if opts.Keys != nil {
		km = *opts.Keys
	}
	return &Picker{scenarios: scenarios, open: open, opts: opts, keys: km,
		styles: NewStyles(!opts.Light, opts.NoColor, opts.Plain), width: 80, height: 24}
}

func (p *Picker) Init() tea.Cmd {
	if p.opts.Present {
		return tea.Batch(tea.RequestBackgroundColor, p.openByName(PresentScenario))
	}
	return tea.RequestBackgroundColor
}

// PresentScenario is the scenario memscope demo --present tells.
const PresentScenario = "structural-write"

func (p *Picker) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		p.width, p.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		p.styles = NewStyles(msg.IsDark(), p.opts.NoColor, p.opts.Plain)
	case openedMsg:
		p.opening = ""
		if msg.err != nil {
			p.err = fmt.Errorf("%s: %w", msg.name, msg.err)
			return p, nil
		}
		if p.inner != nil {
			p.inner.cancel()
			_ = p.inner.src.Close() // no longer shown
		}
		p.inner = newModel(msg.src, p.opts)
		p.inner.styles = p.styles
		p.inner.width, p.inner.height = max(p.width, 20), max(p.height, 6)
		p.inner.onPicker = func() tea.Cmd { return func() tea.Msg { return backToPickerMsg{} } }
		return p, p.inner.Init()
	case backToPickerMsg:
		if p.inner != nil {
			p.inner.cancel()
			_ = p.inner.src.Close()
			p.inner = nil
		}
		return p, nil
	}
	if p.inner != nil {
		_, cmd := p.inner.Update(msg)
		return p, cmd
	}
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			p.cur.move(-1, len(p.scenarios), p.height)
		} else {
			p.cur.move(1, len(p.scenarios), p.height)
		}
	case tea.MouseClickMsg:
		if i := msg.Y - 3; i >= 0 && i < len(p.scenarios) {
			p.cur.sel = i
			return p, p.openSelected()
		}
	case tea.KeyPressMsg:
		if p.opening != "" {
			if msg.String() == "ctrl+c" {
				return p, tea.Quit
			}
			return p, nil
		}
		if p.help {
			p.help = false
			if msg.String() != "ctrl+c" {
				return p, nil
			}
		}
		switch {
		case key.Matches(msg, p.keys.Help):
			p.help = true
		case key.Matches(msg, p.keys.Quit):
			return p, tea.Quit
		case key.Matches(msg, p.keys.Up):
			p.cur.move(-1, len(p.scenarios), p.height)
		case key.Matches(msg, p.keys.Down):
			p.cur.move(1, len(p.scenarios), p.height)
		case key.Matches(msg, p.keys.Top):
			p.cur.move(-len(p.scenarios), len(p.scenarios), p.height)
		case key.Matches(msg, p.keys.Bottom):
			p.cur.move(len(p.scenarios), len(p.scenarios), p.height)
		case key.Matches(msg, p.keys.Open):
			return p, p.openSelected()
		}
	}
	return p, nil
}

func (p *Picker) openSelected() tea.Cmd {
	if p.cur.sel >= len(p.scenarios) {
		return nil
	}
	name, open := p.scenarios[p.cur.sel].Name, p.open
	p.opening, p.err = name, nil
	return func() tea.Msg {
		src, err := open(name)
		if err == nil && !p.track(src) {
			return nil // the picker was closed while this opened
		}
		return openedMsg{name: name, src: src, err: err}
	}
}

// track records an opened source for Close; it closes src and reports
// false when the picker is already closed.
func (p *Picker) track(src Source) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = src.Close()
		return false
	}
	p.opened = append(p.opened, src)
	return true
}

// Close releases every source the picker opened. Safe to call more than
// once; sources opened afterwards are closed at once.
func (p *Picker) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var first error
	for _, s := range p.opened {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	p.opened = nil
	return first
}

func (p *Picker) View() tea.View {
	if p.inner != nil {
		return p.inner.View()
	}
	s := p.styles
	w := max(20, p.width)
	var lines []string
	if p.cur.sel < len(p.scenarios) {
		sc := p.scenarios[p.cur.sel]
		for _, l := range wrapLine(s.Bold.Render(sanitize.Line(sc.Name)+": ")+sanitize.Line(sc.Description), w-2) {
			lines = append(lines, "  "+l)
		}
		if sc.Expect != "" {
			for _, l := range wrapLine(s.Title.Render("expect: ")+sanitize.Line(sc.Expect), w-2) {
				lines = append(lines, "  "+l)
			}
		}
		if sc.Dir != "" {
			// Where the scenario is, so the CLI commands can be tried on
			// the one in view (its README.md lists them).
			for _, l := range wrapLine(s.Title.Render("folder: ")+sanitize.Line(sc.Dir)+s.Dim.Render("  (README.md there lists the CLI commands)"), w-2) {
				lines = append(lines, "  "+l)
			}
		}
		lines = append(lines, "")
	}
	switch {
	case p.help:
		lines = append(lines, s.Title.Render("Keys in the picker"),
			fmt.Sprintf("  %-10s open the scenario", p.keys.Open.Help().Key),
			fmt.Sprintf("  %-10s move", p.keys.Up.Help().Key+" "+p.keys.Down.Help().Key),
			fmt.Sprintf("  %-10s quit", p.keys.Quit.Help().Key))
		for _, l := range wrapLine("In a scenario: ? all keys and the glossary, : jump anywhere, "+p.keys.Picker.Help().Key+" (or :picker) back here.", w-2) {
			lines = append(lines, "  "+l)
		}
		lines = append(lines, s.Dim.Render("  any key closes this help"))
	case p.opening != "":
		lines = append(lines, s.Spinner[0]+" opening "+sanitize.Line(p.opening)+"...")
	case p.err != nil:
		lines = append(lines, s.Error.Render("could not open the scenario: ")+sanitize.Line(p.err.Error()),
			s.Dim.Render("pick another one, or run memscope demo --regenerate"))
	default:
		lines = append(lines, s.Dim.Render(fmt.Sprintf("%s open   %s/%s move   %s help   %s quit",
			p.keys.Open.Help().Key, p.keys.Up.Help().Key, p.keys.Down.Help().Key, p.keys.Help.Help().Key, p.keys.Quit.Help().Key)))
	}
	// The list takes the rows the description, help and footer leave, and
	// scrolls with the selection, so the footer and the help stay on screen
	// however many scenarios there are.
	rows := max(3, p.height-4-len(lines))
	c := p.cur
	c.clamp(len(p.scenarios), rows)
	nameW := len("SCENARIO")
	for _, sc := range p.scenarios {
		nameW = max(nameW, ansi.StringWidth(sanitize.Line(sc.Name)))
	}
	header := fmt.Sprintf("  %-*s %s", nameW, "SCENARIO", "WHAT IT SHOWS")
	if len(p.scenarios) > rows {
		header += fmt.Sprintf("  (%d-%d of %d)", c.top+1, min(c.top+rows, len(p.scenarios)), len(p.scenarios))
	}
	top := []string{s.Title.Render("memscope demo") + s.Dim.Render("  pick a scenario"), "", s.Header.Render(fit(header, w))}
	for i := c.top; i < len(p.scenarios) && i < c.top+rows; i++ {
		sc := p.scenarios[i]
		line := padRight(sanitize.Line(sc.Name), nameW) + " " + sanitize.Line(sc.Description)
		if i == p.cur.sel {
			line = s.Selected.Render(s.SelMarker + " " + line)
		} else {
			line = "  " + line
		}
		top = append(top, fit(line, w))
	}
	lines = append(append(top, ""), lines...)
	content := joinLines(lines)
	if s.Plain {
		content = plainText(content)
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "memscope demo"
	return v
}

// openByName opens a scenario without a keypress (--present).
func (p *Picker) openByName(name string) tea.Cmd {
	for i, sc := range p.scenarios {
		if sc.Name == name {
			p.cur.sel = i
			return p.openSelected()
		}
	}
	return nil
}

func joinLines(lines []string) string {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b := make([]byte, 0, n)
	for i, l := range lines {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, l...)
	}
	return string(b)
}

// ErrorModel shows a fatal error (unreadable snapshot, wrong key) with what
// to do about it, instead of a stack trace; any key quits.
type ErrorModel struct {
	Title, Hint string
	Err         error
	styles      Styles
	width       int
}

// NewError builds an ErrorModel.
func NewError(title string, err error, hint string, opts Options) tea.Model {
	return &ErrorModel{Title: title, Err: err, Hint: hint, styles: NewStyles(!opts.Light, opts.NoColor, opts.Plain)}
}

func (e *ErrorModel) Init() tea.Cmd { return nil }

func (e *ErrorModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return e, tea.Quit
	case tea.WindowSizeMsg:
		e.width = msg.Width
	}
	return e, nil
}

func (e *ErrorModel) View() tea.View {
	s := e.styles
	// Wrap to the window (inside the box border and padding) so a long
	// error or hint is never cut off; sanitised first, so no escape can
	// be split.
	w := 76
	if e.width > 8 {
		w = min(e.width-6, 100)
	}
	wrap := func(t string) string { return ansi.Wrap(t, w, " /") }
	body := s.Error.Render(sanitize.Line(e.Title)) + "\n\n" + wrap(sanitize.Block(fmt.Sprint(e.Err), 4)) + "\n\n" +
		wrap(s.Bold.Render("What to do: ")+sanitize.Line(e.Hint)) + "\n\n" + s.Dim.Render("press any key to quit")
	v := tea.NewView(s.Box.Render(body))
	v.AltScreen = true
	return v
}

// frameRate is the renderer's frames a second. Bubble Tea draws the last
// View on a ticker (60 a second by default), so a key's frame waits for the
// next tick: half a frame on average, 8 ms at 60 and 4 ms at 120
// (scripts/keylatency.py; docs/performance-history.md, "Scrolling, whole
// program"). A tick with no new View writes nothing; idle, the faster
// ticker costs about 0.4% of a core more.
const frameRate = 120

func newProgram(m tea.Model) *tea.Program {
	return tea.NewProgram(m, tea.WithFPS(frameRate))
}

// Run runs the inspector on src until the user quits.
func Run(src Source, opts Options) error {
	_, err := newProgram(New(src, DefaultOptionsFromEnv(opts))).Run()
	return err
}

// RunPicker runs the demo scenario picker until the user quits, then
// closes the source it opened.
func RunPicker(scenarios []Scenario, open func(string) (Source, error), opts Options) error {
	p := NewPicker(scenarios, open, DefaultOptionsFromEnv(opts)).(*Picker)
	_, err := newProgram(p).Run()
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	return err
}

// RunError shows a fatal error screen until a key is pressed.
func RunError(title string, err error, hint string, opts Options) error {
	_, rerr := newProgram(NewError(title, err, hint, DefaultOptionsFromEnv(opts))).Run()
	return rerr
}

// DefaultOptionsFromEnv applies NO_COLOR from the environment.
func DefaultOptionsFromEnv(opts Options) Options {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	return opts
}
