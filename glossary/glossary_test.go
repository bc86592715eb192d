package glossary

import (
	"strings"
	"testing"
)

func TestTermsSortedUniqueAndFindable(t *testing.T) {
	seen := map[string]string{}
	for i, term := range Terms {
		if i > 0 && strings.ToLower(Terms[i-1].Term) >= strings.ToLower(term.Term) {
			t.Errorf("%q comes after %q: keep the list alphabetical", term.Term, Terms[i-1].Term)
		}
		if term.Meaning == "" || !strings.HasSuffix(term.Meaning, ".") {
			t.Errorf("%q: the meaning must be a sentence", term.Term)
		}
		for _, name := range append([]string{term.Term}, term.Aliases...) {
			key := strings.ToLower(name)
			if other, ok := seen[key]; ok {
				t.Errorf("%q is both %q and %q", name, other, term.Term)
			}
			seen[key] = term.Term
			got, ok := Lookup(strings.ToUpper(name))
			if !ok || got.Term != term.Term {
				t.Errorf("Lookup(%q) = %q, %v", name, got.Term, ok)
			}
		}
	}
	if _, ok := Lookup("no such term"); ok {
		t.Error("an unknown term was found")
	}
}

// The terms the issue names must be explained.
func TestRequiredTerms(t *testing.T) {
	for _, name := range []string{"G_auth", "IFC-blind", "tau", "Lemma 1", "no-source write", "teleport floor", "capture bound", "1-minimal", "fail-open", "fail-closed"} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("%q is not in the glossary", name)
		}
	}
}

func TestSearch(t *testing.T) {
	if got := Search("bottle"); len(got) != 1 || got[0].Term != "bottleneck" {
		t.Errorf("prefix: %v", got)
	}
	if got := Search("dt"); len(got) != 1 || got[0].Term != "Derived-Trusted" {
		t.Errorf("alias: %v", got)
	}
	if got := Search("ed25519"); len(got) == 0 {
		t.Error("no term mentions ed25519")
	}
	if len(Search("")) != len(Terms) {
		t.Error("empty query does not list every term")
	}
}
