package glossary

import (
	"os"
	"strings"
	"testing"
)

// docs/GLOSSARY.md holds every term word for word.
func TestGlossaryDocMatches(t *testing.T) {
	doc, err := os.ReadFile("../docs/GLOSSARY.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range Terms {
		row := "| `" + g.Term + "` | " + strings.Join(g.Aliases, ", ") + " | " + strings.ReplaceAll(g.Meaning, "|", "\\|") + " |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/GLOSSARY.md lacks (or words differently) %q", g.Term)
		}
	}
}
