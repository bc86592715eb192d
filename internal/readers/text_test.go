package stores

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/present/textscan"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

func TestStoreNamesRecordFieldAndClass(t *testing.T) {
	t.Parallel()
	st := &storemodel.Store{Format: storemodel.Mem0, Root: "/ev/history\x1b[2J.db",
		Nodes: []storemodel.Node{{ID: "n1", Label: "plain text\twith a tab\r\n"}, {ID: "n2", Label: "Acme\u202e Holdings"},
			{ID: "n3", Label: "Acme\u200f Holdings"}, {ID: "n4", Label: "page one\n\x00![](figure.png)\x0c"}},
		Versions: []storemodel.Version{{ID: "v1", New: "pay \x1b]0;owned\x07 now"}},
		Messages: []storemodel.Message{{ID: "m1", Content: "over\rwrite"}}}
	fs := TextFindings(st)
	// Findings hold raw text; every output shows it through sanitize.Line
	// once, so the keys are what a responder reads.
	got := map[string]finding.Finding{}
	for _, f := range fs {
		got[string(f.Code)+" "+sanitize.Line(f.Subject)] = f
	}
	if len(fs) != 5 {
		t.Fatalf("%d findings, want 5 (a label with a bidi override, one with a bidi mark, one with PDF NUL and FF, new_memory with escapes, content with a bare CR; a tab and CRLF are text): %v", len(fs), fs)
	}
	root := `mem0 store /ev/history\e[2J.db: `
	for key, field := range map[string]string{
		"TEXT_CONTROL_CHARS " + root + "node n2":    "field label carries bidi,bidi-override",
		"TEXT_HIDDEN_CHARS " + root + "node n3":     "field label carries bidi",
		"TEXT_INERT_CONTROLS " + root + "node n4":   "field label carries control",
		"TEXT_CONTROL_CHARS " + root + "history v1": "field new_memory carries control,terminal-escape",
		"TEXT_CONTROL_CHARS " + root + "message m1": "field content carries carriage-return",
	} {
		f, ok := got[key]
		if !ok {
			t.Errorf("no finding %q in %v", key, fs)
			continue
		}
		shown := sanitize.Line(f.Message)
		if !strings.HasPrefix(shown, field) || strings.ContainsAny(shown, "\x1b\x07\r\u202e\u200f\x00\x0c") {
			t.Errorf("%s: message shown %q: want it to start %q, with every control escaped", key, shown, field)
		}
	}
	if f := got["TEXT_CONTROL_CHARS "+root+"history v1"]; f.Severity != finding.SevError {
		t.Errorf("terminal escapes graded %s, want error", f.Severity)
	}
	if f := got["TEXT_INERT_CONTROLS "+root+"node n4"]; f.Severity != finding.SevWarning {
		t.Errorf("NUL and FF graded %s, want warning: no terminal acts on them", f.Severity)
	}
}

// A store with a poisoned field in every record yields a bounded list:
// textscan.PerCode named, and one finding counting the rest.
func TestManyFieldsAreCounted(t *testing.T) {
	t.Parallel()
	st := &storemodel.Store{Format: storemodel.SMSR, Root: "m.db"}
	for i := 0; i < 1000; i++ {
		st.Memories = append(st.Memories, storemodel.Memory{ID: int64(i), Content: fmt.Sprint("\x1b[31m", i)})
	}
	fs := TextFindings(st)
	if len(fs) != textscan.PerCode+1 || !strings.Contains(fs[textscan.PerCode].Message, fmt.Sprint(1000-textscan.PerCode, " more fields")) {
		t.Fatalf("%d findings, last %q; want %d and a count of %d more", len(fs), fs[len(fs)-1].Message, textscan.PerCode+1, 1000-textscan.PerCode)
	}
}
