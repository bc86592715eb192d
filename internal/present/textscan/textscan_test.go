package textscan

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
)

func TestStoreNamesRecordFieldAndClass(t *testing.T) {
	t.Parallel()
	fs := Fields("mem0 store /ev/history\x1b[2J.db", slices.Values([]Field{
		{"node n1", "id", "n1"}, {"node n1", "label", "plain text\twith a tab\r\n"}, {"node n2", "label", "Acme\u202e Holdings"},
		{"history v1", "new_memory", "pay \x1b]0;owned\x07 now"}, {"history v1", "old_memory", ""}, {"message m1", "content", "over\rwrite"}}))
	got := map[string]finding.Finding{}
	for _, f := range fs {
		got[string(f.Code)+" "+f.Subject] = f
	}
	if len(fs) != 3 {
		t.Fatalf("%d findings, want 3 (a label with bidi, new_memory with escapes, content with a bare CR; a tab and CRLF are text): %v", len(fs), fs)
	}
	root := `mem0 store /ev/history\e[2J.db: `
	for key, field := range map[string]string{
		"TEXT_HIDDEN_CHARS " + root + "node n2":     "field label carries bidi",
		"TEXT_CONTROL_CHARS " + root + "history v1": "field new_memory carries control,terminal-escape",
		"TEXT_CONTROL_CHARS " + root + "message m1": "field content carries carriage-return",
	} {
		f, ok := got[key]
		if !ok {
			t.Errorf("no finding %q in %v", key, fs)
			continue
		}
		if !strings.HasPrefix(f.Message, field) || strings.ContainsAny(f.Message+f.Subject, "\x1b\x07\r\u202e") {
			t.Errorf("%s: message %q: want it to start %q, with every control escaped", key, f.Message, field)
		}
	}
	if f := got["TEXT_CONTROL_CHARS "+root+"history v1"]; f.Severity != finding.SevError {
		t.Errorf("terminal escapes graded %s, want error", f.Severity)
	}
}

// A store with a poisoned field in every record yields a bounded list:
// PerCode named, and one finding counting the rest.
func TestManyFieldsAreCounted(t *testing.T) {
	t.Parallel()
	var fields []Field
	for i := 0; i < 1000; i++ {
		fields = append(fields, Field{fmt.Sprint("memory ", i), "content", fmt.Sprint("\x1b[31m", i)})
	}
	fs := Fields("smsr store m.db", slices.Values(fields))
	if len(fs) != PerCode+1 || !strings.Contains(fs[PerCode].Message, fmt.Sprint(1000-PerCode, " more fields")) {
		t.Fatalf("%d findings, last %q; want %d and a count of %d more", len(fs), fs[len(fs)-1].Message, PerCode+1, 1000-PerCode)
	}
}

// Concurrent callers (verify's workers) get the same findings whatever
// order the fields arrive in: those of smallest order are named.
func TestCheckAtIsOrderIndependent(t *testing.T) {
	t.Parallel()
	field := func(i int) Field { return Field{fmt.Sprint("entry ", i), "content", fmt.Sprint("x\x1b[2J", i)} }
	fwd, rev := New("s.db"), New("s.db")
	for i := 0; i < 300; i++ {
		fwd.CheckAt(int64(i), field(i))
		rev.CheckAt(int64(299-i), field(299-i))
	}
	a, b := fwd.Findings(), rev.Findings()
	if fmt.Sprint(a) != fmt.Sprint(b) || len(a) != PerCode+1 || a[0].Subject != "s.db: entry 0" {
		t.Fatalf("forward and reverse differ or name the wrong fields:\n%v\n%v", a, b)
	}
}
