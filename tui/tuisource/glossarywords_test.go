package tuisource

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/glossary"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuitest"
)

// capsWord is a column header, badge or status word as the views print
// them: capitals (with digits, _, ?, -, <=) of two or more characters.
var capsWord = regexp.MustCompile(`(?:^|[\s(\[|,])([A-Z][A-Z0-9_?]*(?:[-<=][A-Za-z0-9_?=]+)*[A-Z0-9?])(?:$|[\s)\]|,:])`)

// plainWords are ordinary English column headers: a glossary entry would
// say nothing their word does not. Anything else a view prints in capitals
// must be explained.
var plainWords = map[string]bool{
	"ACTION": true, "TOOL": true, "QUERY": true, "WRITER": true, "TIME": true, "CONTENT": true, "STATUS": true,
	"KIND": true, "WHAT": true, "ID": true, "SIZE": true, "ROOT": true, "LEAF": true, "WRITE": true, "RANK": true,
	"ENTRY": true, "CODE": true, "SEVERITY": true, "SUBJECT": true, "MESSAGE": true, "REASON": true, "SELECTOR": true,
	"CLASS": true, "SIGNATURE": true, "TS": true, "UTC": true, "NOTE": true, "LABEL": true, "COUNT": true,
	"ERROR": true, "WARNING": true, "INFO": true, "YES": true, "NO": true, "OK": true, "PASS": true, "FAIL": true,
	"JSON": true, "DOT": true, "URL": true, "ASCII": true, "CLI": true, "TAB": true, "REL": true, "WHEN": true,
	"INDEX": true, "TEXT": true, "PRINCIPAL": true, "RELATION": true, "PATH": true, "KEY": true, "LOG": true,
	"FAILED": true, "VERIFIED": true, "PROVENANCE": true,
	// Standard computing terms in messages.
	"NULL": true, "BFS": true, "HMAC-SHA256": true,
}

// explained: the glossary explains it (glossary.Explains), or it is a
// finding code, which memscope help CODE explains.
func explained(w string) bool {
	if glossary.Explains(w) {
		return true
	}
	if strings.HasPrefix(w, "W<=") {
		// The clean-budget column, S_ADV W<=2: the S_adv entry explains it.
		return glossary.Explains("S_adv")
	}
	_, ok := finding.Lookup(finding.Code(w))
	return ok
}

// unexplained lists the capital words of text that no glossary entry or
// finding code explains; evidence holds the words of the store's own text,
// which the glossary cannot explain.
func unexplained(text string, evidence map[string]bool, into map[string]string, where string) {
	for _, m := range capsWord.FindAllStringSubmatch(text, -1) {
		w := m[1]
		if plainWords[w] || evidence[w] || explained(w) {
			continue
		}
		if _, seen := into[w]; !seen {
			into[w] = where
		}
	}
}

// Every word in capitals that a view prints (column headers, badges,
// status words) on the demo scenarios has a glossary entry (issue 24,
// item 7). The screens are read with every view open, the story of each
// divergent query, and the Exposure view.
func TestEveryViewWordIsInTheGlossary(t *testing.T) {
	if testing.Short() {
		t.Skip("opens scenarios")
	}
	missing := map[string]string{}
	for _, name := range []string{"structural-write", "tampered", "mwp", "smsr", "memorygraft", "incident"} {
		src, _ := openScenario(t, name)
		evidence := map[string]bool{}
		if err := src.ReadPreviews(context.Background(), 0, src.EntryCount()); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < src.EntryCount(); i++ {
			e := src.Entry(i)
			for _, w := range strings.FieldsFunc(e.Preview+" "+e.Writer+" "+e.ID, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				evidence[w] = true
			}
		}
		var m tea.Model = tui.New(src, tui.Options{Static: true})
		m = tuitest.Drive(t, m, m.Init())
		m = tuitest.Send(t, m, tea.WindowSizeMsg{Width: 250, Height: 60})
		for _, keys := range [][]string{{"1"}, {"2"}, {"3"}, {"3", "enter"}, {"3", "l"}, {"6"}, {"6", "enter"}, {"6", "enter", "G"}, {"7"}, {"8"}, {"9"}, {"0"}, {"0", "pgdown"}, {"0", "pgdown", "pgdown"}, {"0", "G"}} {
			m = tuitest.Press(t, m, "esc", "esc", "1")
			m = tuitest.Press(t, m, keys...)
			unexplained(tuitest.Screen(m), evidence, missing, name+" "+strings.Join(keys, " "))
		}
	}
	var words []string
	for w := range missing {
		words = append(words, w)
	}
	sort.Strings(words)
	for _, w := range words {
		t.Errorf("%q (%s) has no glossary entry", w, missing[w])
	}
}
