package tuisource

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// selectedLine is the list row the inspector marks as selected.
func selectedLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▶ ") {
			return l
		}
	}
	return ""
}

// statusLine is the line above the key help.
func statusLine(screen string) string {
	ls := strings.Split(screen, "\n")
	return ls[len(ls)-2]
}

// Enter on every finding of every scenario lands on its subject, selected
// (the entry in Detail, the leaf or checkpoint in Log, the write, registry
// event, tombstone or gate event in Log or Timeline, the query's story, the
// action), and esc comes back to the same finding row.
func TestEnterOnEveryFindingSelectsItsSubject(t *testing.T) {
	if testing.Short() {
		t.Skip("opens every scenario")
	}
	kinds := map[string]bool{}
	unanchored := func(o *assemble.Options) { o.LogKey, o.TrustRoots = "", nil }
	for _, name := range []string{"tampered", "mwp", "lategate", "tombstone", "structural-write", "smsr", "agentpoison", "memorygraft", "clean/unanchored"} {
		t.Run(name, func(t *testing.T) {
			scen, how, _ := strings.Cut(name, "/")
			var edit func(*assemble.Options)
			if how == "unanchored" {
				edit = unanchored
			}
			src, _ := openScenarioWith(t, scen, edit)
			var m tea.Model = tui.New(src, tui.Options{Static: true})
			m = tuitest.Drive(t, m, m.Init())
			m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 200, Height: 50})
			// Findings, not grouped: one row per finding.
			m = tuitest.Press(t, m, "2", "o", "o", "o", "o")
			if !strings.Contains(tuitest.Screen(m), "grouped by: none") {
				t.Fatalf("findings are still grouped:\n%s", tuitest.Screen(m))
			}
			var shown, total int
			if _, err := fmt.Sscanf(strings.Split(tuitest.Screen(m), "\n")[2], "%d of %d findings", &shown, &total); err != nil || shown != total {
				t.Fatalf("no finding count (%v):\n%s", err, tuitest.Screen(m))
			}
			if total == 0 {
				return // a store with nothing to report (tombstone: every table signed, no finding)
			}
			seen := map[string]bool{}
			for row := 0; ; row++ {
				before := selectedLine(tuitest.Screen(m))
				m = tuitest.Press(t, m, "y")
				subject := tuitest.Clipboard()
				if seen[before+subject] {
					break // j no longer moves: the last row
				}
				seen[before+subject] = true
				m = tuitest.Press(t, m, "enter")
				scr := tuitest.Screen(m)
				kind := checkLanded(t, m, subject)
				kinds[kind] = true
				if st := statusLine(scr); strings.Contains(st, "cannot open") || strings.Contains(st, "neither") {
					t.Errorf("row %d, subject %q: %s", row, subject, st)
				}
				m = tuitest.Press(t, m, "esc")
				if got := selectedLine(tuitest.Screen(m)); got != before {
					t.Errorf("row %d, subject %q: esc came back to %q, not %q", row, subject, got, before)
				}
				m = tuitest.Press(t, m, "j")
			}
			if len(seen) != total {
				t.Fatalf("walked %d of %d findings", len(seen), total)
			}
		})
	}
	t.Logf("kinds opened: %v", kinds)
	for _, k := range []string{"entry", "leaf", "checkpoint", "write", "principal", "tombstone", "gate", "query", "action", "tile", "table", "registry", "published checkpoint"} {
		if !kinds[k] {
			t.Errorf("no finding of kind %s was opened: the test covers less than it claims", k)
		}
	}
}

// tableViews is where a finding about a whole table (or an unreadable
// row of it) lands: the view listing that table.
var tableViews = map[string]string{"entries": "Entries", "queries": "Replay", "actions": "Actions", "gate_events": "Timeline", "nodes": "Overview"}

var tilePath = regexp.MustCompile(`^tile/`)

// checkLanded asserts the inspector shows subject, selected, and returns
// the subject's kind.
func checkLanded(t *testing.T, m tea.Model, subject string) string {
	t.Helper()
	scr := tuitest.Screen(m)
	tab := activeTab(scr)
	word, rest, _ := strings.Cut(subject, " ")
	copied := func() string {
		m = tuitest.Press(t, m, "y")
		return tuitest.Clipboard()
	}
	want := func(view, id string) {
		t.Helper()
		if tab != view {
			t.Errorf("%q opened %s, not %s", subject, tab, view)
			return
		}
		if got := copied(); got != id {
			t.Errorf("%q: %s selects %q, not %q", subject, view, got, id)
		}
	}
	switch {
	case tilePath.MatchString(subject):
		if tab != "Log" || !regexp.MustCompile(`^▶ \d+ `).MatchString(selectedLine(scr)) {
			t.Errorf("tile %q: no leaf selected in the Log view (%s): %q", subject, tab, selectedLine(scr))
		}
		return "tile"
	case word == "leaf":
		if tab != "Log" || !strings.HasPrefix(selectedLine(scr), "▶ "+rest+" ") {
			t.Errorf("%q: Log selects %q", subject, selectedLine(scr))
		}
		return word
	case word == "checkpoint" && rest != "(published)" && rest != "":
		want("Log", subject)
		return word
	case word == "checkpoint" || word == "registry":
		// The published checkpoint: the latest recorded one; the registry:
		// its first event's leaf.
		if tab != "Log" || selectedLine(scr) == "" {
			t.Errorf("%q: nothing selected in %s", subject, tab)
		}
		if word == "checkpoint" {
			return "published checkpoint"
		}
		return word
	case word == "write" || word == "principal" || word == "tombstone":
		if tab != "Log" && tab != "Timeline" {
			t.Errorf("%q opened %s", subject, tab)
		}
		if got := copied(); got != rest {
			t.Errorf("%q: %s selects %q", subject, tab, got)
		}
		return word
	case word == "gate":
		want("Timeline", rest)
		return word
	case word == "action":
		if tab == "Actions" {
			want("Actions", rest)
		} else {
			want("Timeline", rest)
		}
		return word
	case word == "query":
		if tab != "Replay" || !strings.Contains(scr, "Query "+rest) {
			t.Errorf("%q: the query's story is not open (%s)", subject, tab)
		}
		return word
	case tableViews[strings.SplitN(word, ".", 2)[0]] != "":
		if v := tableViews[strings.SplitN(word, ".", 2)[0]]; tab != v {
			t.Errorf("%q opened %s, not %s", subject, tab, v)
		}
		return "table"
	case !strings.Contains(subject, " ") && len(subject) == 36:
		want("Detail", subject)
		return "entry"
	}
	return fmt.Sprintf("other (%s)", word)
}

// activeTab is the view the tab bar marks ([N Name]).
func activeTab(screen string) string {
	first, _, _ := strings.Cut(screen, "\n")
	if sm := regexp.MustCompile(`\[\d ([A-Za-z]+)\]`).FindStringSubmatch(first); sm != nil {
		return sm[1]
	}
	return ""
}

// Enter on every Timeline event opens its record where a view shows it,
// and esc comes back to the same event.
func TestEnterOnEveryTimelineEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("walks a whole timeline")
	}
	src, _ := openScenario(t, "tampered")
	var m tea.Model = tui.New(src, tui.Options{Static: true})
	m = tuitest.Drive(t, m, m.Init())
	m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 200, Height: 50})
	m = tuitest.Press(t, m, "9")
	opened := map[string]int{}
	for row := 0; ; row++ {
		before := selectedLine(tuitest.Screen(m))
		m = tuitest.Press(t, m, "enter")
		scr := tuitest.Screen(m)
		if st := statusLine(scr); strings.Contains(st, "cannot open") || strings.Contains(st, "neither") {
			t.Errorf("event %d: %s", row, st)
		}
		if tab := activeTab(scr); tab != "Timeline" {
			opened[tab]++
			m = tuitest.Press(t, m, "esc")
		}
		if got := selectedLine(tuitest.Screen(m)); got != before {
			t.Fatalf("event %d: back on %q, not %q", row, got, before)
		}
		m = tuitest.Press(t, m, "j")
		if selectedLine(tuitest.Screen(m)) == before {
			break
		}
	}
	for _, v := range []string{"Detail", "Log", "Replay", "Actions"} {
		if opened[v] == 0 {
			t.Errorf("no event opened %s: %v", v, opened)
		}
	}
}
