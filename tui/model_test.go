package tui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

func TestFrameFillsTheWindowAtAnySize(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 500, 120, 40, tui.Options{})
	for _, size := range [][2]int{{120, 40}, {80, 24}, {200, 60}, {40, 10}, {20, 6}} {
		m = send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for v := 1; v <= 8; v++ {
			m = press(t, m, fmt.Sprint(v))
			lines := strings.Split(m.View().Content, "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d view %d: %d lines", size[0], size[1], v, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d view %d line %d is %d wide: %q", size[0], size[1], v, i, w, ansi.Strip(l))
				}
			}
		}
	}
}

func TestViewSwitchingByNumberTabAndClick(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 120, 40, tui.Options{})
	mustContain(t, screen(m), "[1 Overview]", "principals")
	m = press(t, m, "3")
	mustContain(t, screen(m), "[3 Entries]", "WRITER")
	m = press(t, m, "tab")
	mustContain(t, screen(m), "[4 Detail]")
	// Click on the "Actions" tab.
	first := strings.Split(screen(m), "\n")[0]
	x := strings.Index(first, "8 Actions")
	m = send(t, m, tea.MouseClickMsg{X: x + 2, Y: 0, Button: tea.MouseLeft})
	mustContain(t, screen(m), "[8 Actions]", "AUTHSELECT")
}

func TestOverviewShowsProgressThenFindingsByFamily(t *testing.T) {
	t.Parallel()
	f := tuitest.New(10)
	m := tui.New(f, tui.Options{Static: true})
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	// Run Init but stop before the verification finishes: deliver only the
	// first progress report.
	m, next := m.Update(firstVerifyMsg(t, m))
	mustContain(t, screen(m), "verifying", "0/4", "the other views work while this runs")
	// The UI is usable before verification finishes.
	m2 := press(t, m, "3")
	mustContain(t, screen(m2), "memory number 1")
	m = drive(t, m2, next)
	m = press(t, m, "1")
	mustContain(t, screen(m), "signatures", "1 error", "lineage", "verified: 2 errors, 1 warning, 0 info  lineage: 1 warning, 1 info  replay: 1 error")
}

func TestEntriesScrollAndMouseWheel(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 1000, 120, 40, tui.Options{})
	m = press(t, m, "3", "G")
	mustContain(t, screen(m), short(999), "1000/1000")
	m = press(t, m, "g", "j", "j")
	mustContain(t, screen(m), "3/1000")
	m = send(t, m, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	mustContain(t, screen(m), "6/1000")
	// Clicking a row selects it: the header is on screen row 1, rows from 2.
	m = send(t, m, tea.MouseClickMsg{X: 10, Y: 4, Button: tea.MouseLeft})
	mustContain(t, screen(m), "3/1000")
}

func TestFilterKeepsSelectionAndEscClears(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 2000, 120, 40, tui.Options{})
	m = press(t, m, "3")
	for i := 0; i < 97; i++ {
		m = press(t, m, "j")
	}
	// Entry 97 is about topic 0, like entries 0, 194, ...
	mustContain(t, screen(m), "98/2000")
	m = press(t, m, "/")
	m = typeText(t, m, "topic 0")
	s := screen(m)
	mustContain(t, s, "/topic 0_", "of 2000")
	// Matches: i%97 == 0 gives 0, 97, ..., 1940 (21 rows); the previously
	// selected entry 97 is the 2nd match and stays selected.
	want := 0
	for i := 0; i < 2000; i++ {
		if strings.HasSuffix(fmt.Sprintf("topic %d", i%97), "topic 0") || strings.Contains(fmt.Sprintf("topic %d", i%97), "topic 0") {
			want++
		}
	}
	mustContain(t, s, fmt.Sprintf("2/%d of 2000", want))
	sel := selectedLine(s)
	if !strings.Contains(sel, short(97)) {
		t.Errorf("selection moved off entry 97: %q", sel)
	}
	m = press(t, m, "enter")
	mustContain(t, screen(m), "filter: topic 0")
	m = press(t, m, "esc")
	s = screen(m)
	mustContain(t, s, "98/2000")
	if !strings.Contains(selectedLine(s), short(97)) {
		t.Errorf("clearing the filter lost the selection: %q", selectedLine(s))
	}
}

// short is how the entries table shows entry i's id.
func short(i int) string { id := tuitest.ID(i); return id[:8] + "…" + id[len(id)-5:] }

func selectedLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "▶") || strings.HasPrefix(l, ">") {
			return l
		}
	}
	return ""
}

func TestSortByTimeDescending(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 300, 120, 40, tui.Options{})
	m = press(t, m, "3")
	// s cycles: id, writer, recorded, recomputed, time.
	m = press(t, m, "s", "s", "s", "s", "s", "S")
	s := screen(m)
	mustContain(t, s, "sort: time desc")
	if !strings.Contains(selectedLine(s), short(0)) {
		t.Errorf("sorting lost the selection of entry 0: %q", selectedLine(s))
	}
	m = press(t, m, "g")
	if l := selectedLine(screen(m)); !strings.Contains(l, short(299)) {
		t.Errorf("newest entry not first: %q", l)
	}
}

// Hostile payloads must reach the screen as visible escapes only.
func TestHostileContentIsShownEscaped(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 20, 200, 40, tui.Options{})
	m = press(t, m, "3", "p") // the list alone, as wide as it gets
	raw := m.View().Content
	assertNoTerminalControls(t, raw)
	s := screen(m)
	mustContain(t, s, `\e[2J`, `\e]0;pwned\x07`, `\e]52;c;`, `\e]8;;https://evil.example`, `\e]0;never ends`, `text\rOVERWRITTEN`, "<U+202E>", "<U+200B>", "<U+009B>")
	// Every hostile row is flagged with "!".
	for k := range tuitest.Hostile {
		row := lineWith(s, short(k+3))
		if !strings.Contains(row, " ! ") {
			t.Errorf("hostile entry %d not flagged: %q", k+3, row)
		}
	}
	// Detail of the OSC 52 entry flags control characters.
	for i := 0; i < 5; i++ {
		m = press(t, m, "j")
	}
	m = press(t, m, "enter")
	assertNoTerminalControls(t, m.View().Content)
	mustContain(t, screen(m), "CONTAINS CONTROL CHARACTERS", `\e]52;c;ZXZpbA==\x07`)
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// assertNoTerminalControls checks a frame: after removing the SGR styling
// the model itself emits, nothing a terminal would interpret may remain.
func assertNoTerminalControls(t *testing.T, frame string) {
	t.Helper()
	plain := ansi.Strip(frame)
	if !utf8.ValidString(plain) {
		t.Fatal("frame is not valid UTF-8")
	}
	for _, r := range plain {
		if r == '\n' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200b {
			t.Fatalf("frame contains %U after stripping styles", r)
		}
	}
	// The only escape sequences are SGR (ESC [ ... m).
	for i := 0; i < len(frame); i++ {
		if frame[i] != 0x1b {
			continue
		}
		j := i + 1
		if j >= len(frame) || frame[j] != '[' {
			t.Fatalf("non-CSI escape at byte %d: %q", i, frame[i:min(i+12, len(frame))])
		}
		for j++; j < len(frame) && (frame[j] >= '0' && frame[j] <= '9' || frame[j] == ';' || frame[j] == ':'); j++ {
		}
		if j >= len(frame) || frame[j] != 'm' {
			t.Fatalf("non-SGR CSI at byte %d: %q", i, frame[i:min(i+12, len(frame))])
		}
	}
}

func TestFindingsFilterAndJump(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 140, 40, tui.Options{})
	m = press(t, m, "2")
	mustContain(t, screen(m), "6 of 6 findings", "SIG_INVALID", "REGISTRY_ROOT_UNANCHORED")
	m = press(t, m, "f") // errors only
	s := screen(m)
	mustContain(t, s, "3 of 6 findings", "severity: error")
	if strings.Contains(s, "REGISTRY_ROOT_UNANCHORED") {
		t.Error("severity filter kept a warning")
	}
	m = press(t, m, "f", "f", "f", "/")
	m = typeText(t, m, "sig_")
	mustContain(t, screen(m), "1 of 6 findings")
	m = press(t, m, "enter", "enter")
	s = screen(m)
	mustContain(t, s, "[4 Detail]", "Entry "+tuitest.ID(5))
	// esc goes back to the findings with the filter as it was.
	m = press(t, m, "esc")
	mustContain(t, screen(m), "[2 Findings]", "1 of 6 findings", "filter: sig_")
	// With nothing to go back to, esc clears the filter.
	m = press(t, m, "esc")
	mustContain(t, screen(m), "6 of 6 findings")
	// A leaf subject jumps to the log with that leaf selected.
	m = press(t, m, "j")
	m = press(t, m, "enter")
	s = screen(m)
	mustContain(t, s, "[7 Log]")
	if l := selectedLine(s); !strings.Contains(l, "2 ") || !strings.Contains(l, "entry") {
		t.Errorf("leaf 2 not selected: %q", l)
	}
	// A message quoting a control sequence is escaped.
	m = press(t, m, "2")
	assertNoTerminalControls(t, m.View().Content)
}

func TestLineageTauUpdatesLabelsAndExplanation(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 120, 40, tui.Options{})
	m = press(t, m, "3")
	for i := 0; i < 10; i++ {
		m = press(t, m, "j")
	}
	m = press(t, m, "l") // → opens the lineage of entry 10
	s := screen(m)
	mustContain(t, s, "Lineage of "+tuitest.ID(10), "tau = 0.30", "recomputed External", "PROPAGATES")
	// tau 0.5 breaks the 0.441 edge (third), 0.7 the 0.63 edge.
	m = press(t, m, "+")
	s = screen(m)
	mustContain(t, s, "tau = 0.50", "recomputed Trusted", "stopped at edge 3", "BREAK<=tau")
	m = press(t, m, "+")
	mustContain(t, screen(m), "tau = 0.70", "stopped at edge 2")
	m = press(t, m, "-", "-", "-")
	mustContain(t, screen(m), "tau = 0.10", "PROPAGATES")
}

func TestReplayWhatIfRestoresGAuth(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 120, 40, tui.Options{})
	m = press(t, m, "6")
	s := screen(m)
	mustContain(t, s, "3 queries: 1 DIVERGE, 1 REORDER, 1 IFC-blind")
	// DIVERGE rows come first.
	if l := selectedLine(s); !strings.Contains(l, "DIVERGE") || !strings.Contains(l, "IFC-BLIND") || !strings.Contains(l, "q-attack") {
		t.Errorf("attacked query not first: %q", l)
	}
	m = press(t, m, "enter")
	s = screen(m)
	mustContain(t, s, "Query q-attack", "G_auth (authenticated)", "G (full graph)", "+ new", "p-5 pushed out by G",
		"Culprits: 2 of 4", "-[60.00]->", "INJECTED", "Wire the payment to account 7731", "act-2")
	// The query is a document: G scrolls to its end (Lemma 1), g back.
	m = press(t, m, "G")
	mustContain(t, screen(m), "Lemma 1: capture bound 0.050", "EVICTABLE", "nothing removed")
	m = press(t, m, "g")
	// Toggle one culprit: still diverges.
	m = press(t, m, "x")
	s = screen(m)
	mustContain(t, s, "removed 1: vs G same", "vs G_auth DIVERGE", "[x] w-60a")
	if strings.Contains(s, "restores the G_auth selection") {
		t.Error("one culprit of two claimed to restore G_auth")
	}
	m = press(t, m, "j", "x")
	mustContain(t, screen(m), "removed 2", "restores the G_auth selection", "selection: p-1 p-2 p-3 p-4 p-5")
	// w puts all culprits back, x on a non-culprit then changes nothing.
	m = press(t, m, "w")
	mustContain(t, screen(m), "nothing removed")
	m = press(t, m, "esc")
	mustContain(t, screen(m), "3 queries")
}

func TestActionsShouldHaveRefusedFirst(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 50, 120, 40, tui.Options{})
	m = press(t, m, "8")
	s := screen(m)
	// One column per defence, the ! mark, and the count of what any
	// defence refuses (as memscope actions prints them).
	mustContain(t, s, "3 actions, 1 dispatched that a defence refuses (memlineage 1, authselect 1)", "recomputed External",
		"NONE", "IFC", "MEMLINEAGE", "AUTHSELECT", "SMSR")
	if l := selectedLine(s); !strings.Contains(l, "! act-2") || strings.Count(l, "deny") != 2 || !strings.Contains(l, "not checked") {
		t.Errorf("refused action not first, or its verdicts missing: %q", l)
	}
	m = press(t, m, "j", "j")
	mustContain(t, screen(m), "NOT IN STORE (counts as External)")
	// act-3 followed no query: enter opens its distrusted justification.
	m = press(t, m, "enter")
	mustContain(t, screen(m), "no justifying entry of act-3")
	// act-2 followed q-attack: enter opens that query's story.
	m = press(t, m, "k", "k", "enter")
	mustContain(t, screen(m), "[6 Replay]", "q-attack")
}

func TestDetailErrorIsShownWithWhatToDo(t *testing.T) {
	t.Parallel()
	m, f := open(t, 50, 120, 40, tui.Options{})
	f.FailDetail = true
	m = press(t, m, "3", "enter")
	mustContain(t, screen(m), "could not load the entry: snapshot.db: database disk image is malformed", "press esc")
}

func TestHelpShowsRemappedKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(path, []byte(`{"down": ["n"], "quit": ["Q"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	km, err := tui.LoadKeyMap(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := open(t, 50, 120, 40, tui.Options{Keys: &km})
	m = press(t, m, "?")
	s := screen(m)
	mustContain(t, s, "Keys", "n ", "Q ")
	if strings.Contains(lineWith(s, "down"), "j") {
		t.Errorf("help still shows j for down: %q", lineWith(s, "down"))
	}
	m = press(t, m, "esc") // closes help
	m = press(t, m, "3", "n", "n")
	mustContain(t, screen(m), "3/50")
	m = press(t, m, "j") // no longer bound
	mustContain(t, screen(m), "3/50")
	mustContain(t, screen(m), "Q quit")
}

func TestLoadKeyMapErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown": `{"jump": ["j"]}`,
		"empty":   `{"up": []}`,
		"blank":   `{"up": [""]}`,
		"syntax":  `{"up": "k"`,
	} {
		path := filepath.Join(dir, name+".json")
		os.WriteFile(path, []byte(body), 0o644)
		_, err := tui.LoadKeyMap(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v does not name the file", name, err)
		}
	}
	if _, err := tui.LoadKeyMap(filepath.Join(dir, "missing.json")); err != nil {
		t.Errorf("missing file: %v", err)
	}
}

func TestCopySanitisesAndExportWritesJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, _ := open(t, 20, 120, 40, tui.Options{ExportDir: dir})
	m = press(t, m, "3", "j", "y")
	mustContain(t, screen(m), "copied "+tuitest.ID(1))
	m = press(t, m, "e")
	files, _ := filepath.Glob(filepath.Join(dir, "memscope-entries-*.json"))
	if len(files) != 1 {
		t.Fatalf("export wrote %v", files)
	}
	b, _ := os.ReadFile(files[0])
	// Exports share the CLI's JSON schema: evidence strings are sanitised
	// (the fake's ESC [2J arrives as the visible \e[2J).
	if !strings.Contains(string(b), tuitest.ID(19)) || strings.Contains(string(b), `\u001b`) || !strings.Contains(string(b), `\\e[2J`) {
		t.Errorf("export lacks rows or is not sanitised: %.300s", b)
	}
	mustContain(t, screen(m), "exported to")
	// DOT export from the lineage view.
	press(t, m, "3", "l", "E")
	dots, _ := filepath.Glob(filepath.Join(dir, "*.dot"))
	if len(dots) != 1 {
		t.Fatalf("DOT export wrote %v", dots)
	}
}

func TestPlainModeUsesASCIIMarkers(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 20, 120, 40, tui.Options{Plain: true, NoColor: true})
	m = press(t, m, "3")
	s := screen(m)
	if strings.ContainsAny(s, "▶█░⠋") {
		t.Error("plain mode shows Unicode markers")
	}
	if !strings.HasPrefix(selectedLine(s), "> ") {
		t.Errorf("no ASCII selection marker: %q", selectedLine(s))
	}
}

func TestQuitCancelsBackgroundWork(t *testing.T) {
	t.Parallel()
	m, _ := open(t, 10, 80, 24, tui.Options{})
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q did not quit")
	}
}

func TestPickerOpensScenarioAndShowsErrors(t *testing.T) {
	t.Parallel()
	sc := []tui.Scenario{{Name: "broken", Description: "cannot open"}, {Name: "structural-write", Description: "attack"}}
	openFn := func(name string) (tui.Source, error) {
		if name == "broken" {
			return nil, fmt.Errorf("snapshot unreadable")
		}
		return tuitest.New(30), nil
	}
	var m tea.Model = tui.NewPicker(sc, openFn, tui.Options{Static: true})
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	mustContain(t, screen(m), "structural-write", "attack")
	m = press(t, m, "enter")
	mustContain(t, screen(m), "could not open the scenario: broken: snapshot unreadable")
	m = press(t, m, "j", "enter")
	mustContain(t, screen(m), "[1 Overview]", "fake store")
	m = press(t, m, "6")
	mustContain(t, screen(m), "q-attack")
}

// The open-time findings are replaced, not extended, by verification's:
// the fake reports REGISTRY_ROOT_UNANCHORED both before and after, as the
// real source does, and the list shows it once.
func TestVerificationFindingsReplaceOpenTimeOnes(t *testing.T) {
	t.Parallel()
	m, f := open(t, 20, 140, 40, tui.Options{})
	m = press(t, m, "2")
	s := screen(m)
	if n := strings.Count(s, "REGISTRY_ROOT_UNANCHORED"); n != 1 {
		t.Errorf("REGISTRY_ROOT_UNANCHORED listed %d times:\n%s", n, s)
	}
	mustContain(t, s, fmt.Sprintf("%d of %d findings", len(f.VerifyFindings()), len(f.VerifyFindings())))
}

// The picker releases what it opens: the shown source when it is closed,
// and a source whose open finishes after the picker was closed at once.
func TestPickerClosesWhatItOpens(t *testing.T) {
	t.Parallel()
	sc := []tui.Scenario{{Name: "one", Description: "first"}}
	var opened []*tuitest.Fake
	openFn := func(string) (tui.Source, error) {
		f := tuitest.New(10)
		opened = append(opened, f)
		return f, nil
	}
	p := tui.NewPicker(sc, openFn, tui.Options{Static: true}).(*tui.Picker)
	var m tea.Model = p
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	m = press(t, m, "enter")
	mustContain(t, screen(m), "[1 Overview]")
	if len(opened) != 1 || opened[0].Closed.Load() != 0 {
		t.Fatalf("opened %d, closed early", len(opened))
	}
	if err := p.Close(); err != nil || opened[0].Closed.Load() == 0 {
		t.Fatalf("Close: %v, source closed %d times", err, opened[0].Closed.Load())
	}

	late := tui.NewPicker(sc, openFn, tui.Options{Static: true}).(*tui.Picker)
	_, cmd := late.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter started no open")
	}
	late.Close()
	if msg := cmd(); msg != nil {
		t.Errorf("an open finishing after Close was delivered: %T", msg)
	}
	if len(opened) != 2 || opened[1].Closed.Load() == 0 {
		t.Error("the source opened after Close was not released")
	}
}

// Every view's JSON export uses snake_case keys, as the CLI's --json does.
func TestExportsUseSnakeCaseKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m, _ := open(t, 20, 120, 40, tui.Options{ExportDir: dir})
	for _, keys := range [][]string{{"1"}, {"2"}, {"3"}, {"3", "j", "enter"}, {"3", "j", "l"}, {"6"}, {"7"}, {"8"}} {
		m = press(t, m, append(keys, "e")...)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "memscope-*.json"))
	if len(files) != 8 {
		t.Fatalf("exports written: %v", files)
	}
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	var walk func(file string, v any)
	walk = func(file string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if !snake.MatchString(k) {
					t.Errorf("%s: key %q is not snake_case", filepath.Base(file), k)
				}
				walk(file, val)
			}
		case []any:
			for _, val := range x {
				walk(file, val)
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		walk(f, v)
	}
}

// t switches the replay between the graph as each query ran and as it is
// now; what-ifs run only on the graph as it is now.
func TestReplayAsRanToggle(t *testing.T) {
	t.Parallel()
	m, f := open(t, 50, 120, 40, tui.Options{})
	f.WithAsRan = true
	m = press(t, m, "6")
	mustContain(t, screen(m), "3 queries: 1 DIVERGE, 1 REORDER, 1 IFC-blind", "graph: now (every write)   t: as each query ran")
	m = press(t, m, "t")
	s := screen(m)
	mustContain(t, s, "3 queries: 0 DIVERGE, 1 REORDER, 0 IFC-blind", "graph: as each query ran")
	m = press(t, m, "G", "enter")
	s = screen(m)
	mustContain(t, s, "Query q-attack", "replayed as of leaf 41 (before query q-attack)")
	m = press(t, m, "x")
	mustContain(t, screen(m), "what-ifs run on the graph as it is now")
	m = press(t, m, "esc", "t")
	mustContain(t, screen(m), "3 queries: 1 DIVERGE, 1 REORDER, 1 IFC-blind", "graph: now (every write)")
	// The refused toggle left the what-if set empty.
	m = press(t, m, "g", "enter")
	mustContain(t, screen(m), "Query q-attack", "what-if: none")
}

// In a native store nothing is signed: the query view never calls an edge
// or G_auth "authenticated", it says the store's own fields explain it.
func TestNativeStoreQueryViewSaysExplainedNotAuthenticated(t *testing.T) {
	t.Parallel()
	f := tuitest.New(50)
	f.Unsigned = true
	m := tui.New(f, tui.Options{Static: true})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = press(t, m, "6")
	m = press(t, m, "enter")
	s := screen(m)
	mustContain(t, s, "G_auth (store-explained)", "Culprits: 2 of 4 unexplained writes")
	// (The defence reasons are the source's words, not the view's.)
	for _, word := range []string{"G_auth (authenticated)", "unauthenticated", "G_auth = authenticated"} {
		if strings.Contains(s, word) {
			t.Errorf("a native store's query view says %q:\n%s", word, s)
		}
	}
}

// A native store's graph node has no time: the list and the detail say so
// instead of printing the zero time as 1970-01-01.
func TestNativeNodeWithoutTimeShowsNone(t *testing.T) {
	t.Parallel()
	f := tuitest.New(20)
	f.Unsigned, f.Timeless = true, true
	m := tui.New(f, tui.Options{Static: true})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	m = press(t, m, "3")
	if s := screen(m); !strings.Contains(s, "writer") || strings.Contains(s, "1970") {
		t.Errorf("the entry list shows the zero time:\n%s", s)
	}
	m = press(t, m, "enter")
	s := screen(m)
	mustContain(t, s, "none (the store records no time for it)")
	if strings.Contains(s, "1970") {
		t.Errorf("the detail shows the zero time:\n%s", s)
	}
}

// With more scenarios than rows, the picker's list scrolls and the footer
// and help stay on screen at 80x24 (16 scenarios pushed them off before).
func TestPickerFitsTheScreen(t *testing.T) {
	t.Parallel()
	var sc []tui.Scenario
	for i := 0; i < 30; i++ {
		sc = append(sc, tui.Scenario{Name: fmt.Sprintf("scenario-%02d", i), Description: "a case", Expect: "a finding"})
	}
	var m tea.Model = tui.NewPicker(sc, func(string) (tui.Source, error) { return tuitest.New(5), nil }, tui.Options{Static: true})
	m = send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	fits := func(s string) {
		t.Helper()
		if n := strings.Count(s, "\n") + 1; n > 24 {
			t.Errorf("%d lines on a 24-line screen:\n%s", n, s)
		}
	}
	s := screen(m)
	fits(s)
	mustContain(t, s, "scenario-00", "? help", "of 30)")
	m = press(t, m, "?")
	s = screen(m)
	fits(s)
	mustContain(t, s, "Keys in the picker", "any key closes this help")
	m = press(t, m, "x", "G")
	s = screen(m)
	fits(s)
	mustContain(t, s, "scenario-29", "expect:")
}
