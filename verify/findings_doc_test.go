package verify

import (
	"os"
	"strings"
	"testing"
)

// TestFindingsDocumented keeps docs/FINDINGS.md in step with the catalogue:
// every code, with its severity and family, has a row there.
func TestFindingsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/FINDINGS.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range Codes {
		if seen[c.Code] {
			t.Errorf("code %s appears twice in the catalogue", c.Code)
		}
		seen[c.Code] = true
		row := "| `" + c.Code + "` | " + string(c.Family) + " | " + string(c.Severity) + " |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/FINDINGS.md lacks the row %q", row)
		}
	}
}
