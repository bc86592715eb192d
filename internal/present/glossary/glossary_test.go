package glossary

import (
	"strings"
	"testing"
)

func TestTermsUniqueAndFindable(t *testing.T) {
	seen := map[string]bool{}
	for _, term := range Terms {
		key := strings.ToLower(term.Term)
		if seen[key] {
			t.Errorf("%q twice", term.Term)
		}
		seen[key] = true
		if !strings.HasSuffix(strings.TrimRight(term.Meaning, ")"), ".") && !strings.HasSuffix(term.Meaning, ".") {
			t.Errorf("%q: the meaning must be a sentence", term.Term)
		}
		if got, ok := Lookup(strings.ToUpper(term.Term)); !ok || got.Term != term.Term {
			t.Errorf("Lookup(%q) = %q, %v", term.Term, got.Term, ok)
		}
	}
	if _, ok := Lookup("no such term"); ok {
		t.Error("an unknown term was found")
	}
}

// The words the report and the issue name must be explained, and a report
// (which leaves inspector-only words out) must still explain them.
func TestRequiredTerms(t *testing.T) {
	for _, name := range []string{"G", "G_auth", "IFC-blind", "tau", "Lemma 1", "no-source", "floor", "capture bound", "1-minimal", "fail-open",
		"fail-closed", "DIVERGE", "REORDER", "SAME", "culprit", "AuthSelect", "MemLineage M6", "justification IFC", "SMSR", "not checked", "anchor", "top-k"} {
		term, ok := Lookup(name)
		if !ok || term.InspectorOnly {
			t.Errorf("%q: found %v, inspector only %v", name, ok, term.InspectorOnly)
		}
	}
}
