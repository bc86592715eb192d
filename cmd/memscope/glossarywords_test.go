package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/glossary"
)

// The words issue 24 found unexplained: memscope help WORD explains each
// (exit 0, the glossary's text).
func TestHelpExplainsEveryWordOnScreen(t *testing.T) {
	for _, w := range []string{"S_dom", "S_adv", "EXPOSED", "rho_detect", "delta", "substitute", "escalate", "HEADLINE", "AS-RAN",
		"RANK1 FLIP", "low-floor", "authority", "Leiden", "RRF", "PRLR"} {
		code, out, errs := runIn(t, demoDir, "help", w)
		term, ok := glossary.Lookup(w)
		if code != exitOK || !ok || !strings.Contains(out, term.Meaning[:40]) {
			t.Errorf("memscope help %s: exit %d, in the glossary %v\n%s%s", w, code, ok, out, errs)
		}
	}
}

// capsToken is a word in capitals as table headers print them.
var capsToken = regexp.MustCompile(`^[A-Z#(][A-Z0-9_?<=/()-]*$`)

// headerWords are the capital words of a table header line: a line with
// three or more of them (defence names are lower case; they are glossary
// terms too).
func headerWords(line string) []string {
	var ws []string
	for _, w := range strings.Fields(line) {
		if capsToken.MatchString(w) {
			ws = append(ws, w)
		}
	}
	if len(ws) < 3 {
		return nil
	}
	return ws
}

// cliPlainWords are ordinary English column headers (see the inspector's
// test in tui/tuisource for the same rule).
var cliPlainWords = map[string]bool{"ACTION": true, "TOOL": true, "QUERY": true, "WRITER": true, "TIME": true, "KIND": true,
	"WHAT": true, "ID": true, "SIZE": true, "ROOT": true, "LEAF": true, "WRITE": true, "RANK": true, "ENTRY": true, "CODE": true,
	"SEVERITY": true, "SUBJECT": true, "CLASS": true, "TEXT": true, "ROW": true, "RECORDED": true, "TIE": true, "PATH": true,
	"LOCAL": true, "ALPHA": true, "PROVENANCE": true, "SELECTOR": true, "PRINCIPAL": true, "#": true, "TABLE": true, "COUNT": true,
	"STATUS": true, "BY": true, "CHECKED": true, "TOTAL": true, "SIGNED": true, "EVENT": true, "UTC": true, "(UTC)": true, "LABEL": true,
	"YES": true, "NO": true, "CLASSES": true, "OK": true, "PASS": true, "FAIL": true, "ERROR": true, "WARNING": true, "INFO": true}

// Every column header the CLI's tables print on the demo scenarios has a
// glossary entry (or is a finding code, or ordinary English).
func TestEveryCLIHeaderIsInTheGlossary(t *testing.T) {
	missing := map[string]string{}
	headers := 0
	for _, name := range []string{"structural-write", "mwp", "tampered"} {
		sdir := filepath.Join(demoDir, name)
		ev := []string{"snapshot.db", "--log", "log", "--anchors", "scenario.json"}
		for _, args := range [][]string{
			append([]string{"verify"}, ev...), append([]string{"actions"}, ev...), append([]string{"replay"}, ev...),
			append([]string{"timeline"}, ev...), append([]string{"lineage"}, ev...),
			append([]string{"exposure", "--draws", "5", "--curve-draws", "0"}, ev...),
		} {
			_, out, _ := runIn(t, sdir, args...)
			for _, line := range strings.Split(out, "\n") {
				ws := headerWords(line)
				if ws == nil {
					continue
				}
				headers++
				for _, w := range ws {
					if cliPlainWords[w] || glossary.Explains(w) || strings.Contains(w, "W<=") && glossary.Explains("S_adv") {
						continue
					}
					if _, ok := finding.Lookup(finding.Code(w)); ok {
						continue
					}
					missing[w] = name + " " + args[0]
				}
			}
		}
	}
	if headers < 6 {
		t.Errorf("only %d table headers found: the test reads nothing", headers)
	}
	for w, where := range missing {
		t.Errorf("%q (memscope %s) has no glossary entry", w, where)
	}
}
