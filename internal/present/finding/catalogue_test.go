package finding

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestCatalogueMatchesDocs keeps docs/FINDINGS.md and the catalogue in step
// both ways: every code has its row (code, family, severity), and every
// code the document's tables name is catalogued.
func TestCatalogueMatchesDocs(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../../docs/FINDINGS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	seen := map[Code]bool{}
	for _, s := range Catalogue {
		if seen[s.Code] {
			t.Errorf("code %s appears twice in the catalogue", s.Code)
		}
		seen[s.Code] = true
		row := "| `" + string(s.Code) + "` | " + string(s.Family) + " | " + string(s.Severity) + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/FINDINGS.md lacks the row %q", row)
		}
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(doc, -1) {
		if !seen[Code(m[1])] {
			t.Errorf("docs/FINDINGS.md documents %s, which is not in the catalogue", m[1])
		}
	}
}

// TestOneNamingScheme: every code is UPPER_SNAKE, every spec complete.
func TestOneNamingScheme(t *testing.T) {
	t.Parallel()
	upper := regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$`)
	sevs := map[Severity]bool{SevError: true, SevWarning: true, SevInfo: true}
	for _, s := range Catalogue {
		if !upper.MatchString(string(s.Code)) {
			t.Errorf("code %q is not UPPER_SNAKE", s.Code)
		}
		if !sevs[s.Severity] || s.Family == "" || s.Meaning == "" {
			t.Errorf("code %s: incomplete spec %+v", s.Code, s)
		}
	}
}

func TestLookupAndNew(t *testing.T) {
	t.Parallel()
	if _, ok := Lookup("lineage.laundering"); ok {
		t.Error("the old dotted name still resolves")
	}
	f := New(CheckpointUnanchored, "checkpoint (published)", "no key")
	if f.Severity != SevWarning || f.Family != FamLog || f.Code != CheckpointUnanchored {
		t.Errorf("New took the wrong spec: %+v", f)
	}
	if s, ok := Catalogue.Lookup(ParentMissing); !ok || s.Family != FamReferences {
		t.Errorf("PARENT_MISSING: %+v %v", s, ok)
	}
	defer func() {
		if recover() == nil {
			t.Error("New accepted an uncatalogued code")
		}
	}()
	New("NOT_A_CODE", "", "")
}

func TestOfAndFamilies(t *testing.T) {
	t.Parallel()
	verifyFams := []Family{FamSignatures, FamRegistry, FamEncoding, FamLog, FamTombstones, FamHMAC, FamGate, FamReferences, FamSnapshot}
	got := Catalogue.Of(verifyFams...)
	for _, s := range got {
		if s.Family == FamLineage || s.Family == FamReplay {
			t.Errorf("Of returned %s of family %s", s.Code, s.Family)
		}
	}
	if len(got) == 0 || len(got) >= len(Catalogue) {
		t.Errorf("verify families hold %d of %d codes", len(got), len(Catalogue))
	}
	fams := Catalogue.Families()
	if fams[0] != FamSignatures || fams[len(fams)-1] != FamDiff {
		t.Errorf("Families() = %v", fams)
	}
	seen := map[Family]bool{}
	for _, f := range fams {
		if seen[f] {
			t.Errorf("Families() lists %s twice: %v", f, fams)
		}
		seen[f] = true
	}
}
