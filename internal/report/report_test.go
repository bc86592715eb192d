package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

func TestStructuralWriteNamesTheAttack(t *testing.T) {
	t.Parallel()
	c, page, _ := buildCase(t, "structural-write", true)
	_, m := scenarioDir(t, "structural-write")
	if c.Verdict.Level != LevelCompromise {
		t.Errorf("level %s, want %s", c.Verdict.Level, LevelCompromise)
	}
	if len(c.Replay.Details) == 0 {
		t.Fatal("no diverging query in the report")
	}
	d := c.Replay.Details[0]
	if string(d.ID) != m.Attack.Query {
		t.Errorf("first diverging query %s, want the attacked %s", d.ID, m.Attack.Query)
	}
	var got []string
	for _, cu := range d.Culprits {
		got = append(got, string(cu.Edge))
		if cu.Writer != "agent:peer" || cu.Sources != 0 {
			t.Errorf("culprit %s: writer %q, %d sources; want agent:peer, no-source", cu.Edge, cu.Writer, cu.Sources)
		}
	}
	slices.Sort(got)
	want := slices.Clone(m.Attack.Edges)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("culprits %v, want the injected edges %v", got, want)
	}
	if !d.IFCBlind {
		t.Error("the attacked query is IFC-blind in this scenario")
	}
	if p := paragraph(c.Verdict); !strings.Contains(p, string(d.Text)) || !strings.Contains(p, "IFC-blind") {
		t.Errorf("the verdict paragraph does not name the attacked query: %s", p)
	}
	// The page has every section, in the reader's order.
	last := -1
	for _, id := range []string{`id="verdict"`, `id="evidence"`, `id="integrity"`, `id="actions"`, `id="replay"`, `id="lineage"`, `id="glossary"`, `id="appendix"`} {
		i := bytes.Index(page, []byte(id))
		if i < 0 || i < last {
			t.Errorf("section %s missing or out of order", id)
		}
		last = i
	}
	if !bytes.Contains(page, []byte(html.EscapeString(string(d.Text)))) {
		t.Error("the attacked query's text is not on the page")
	}
	// The payment that followed the attacked query: dispatched, passed by
	// justification IFC, refused by AuthSelect.
	alert := false
	for _, r := range c.Actions.Rows {
		if r.Alert && string(r.Query) == m.Attack.Query {
			alert = true
			if !r.Headline || !slices.Contains(r.RefusedBy, "AuthSelect") || r.Verdicts[1] != "allow" {
				t.Errorf("action %s: IFC-blind %v, refused by %v, IFC %s", r.ID, r.Headline, r.RefusedBy, r.Verdicts[1])
			}
		}
	}
	if !alert || c.Actions.Headlines == 0 {
		t.Error("no dispatched action after the attacked query is marked")
	}
	// The timeline marks the injected writes, in log order.
	if c.Timeline == nil {
		t.Fatal("no timeline")
	}
	marked := map[string]bool{}
	for _, e := range c.Timeline.Events {
		if e.Kind == "write" && e.Alert {
			marked[string(e.Subject)] = true
		}
	}
	for _, id := range m.Attack.Edges {
		if !marked[id] {
			t.Errorf("injected write %s is not marked on the timeline", id)
		}
	}
}

func TestTamperedGroupsByRootCause(t *testing.T) {
	t.Parallel()
	c, _, _ := buildCase(t, "tampered", true)
	_, m := scenarioDir(t, "tampered")
	s, _ := anchored(t, "tampered", true)
	rep, err := s.Verify(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	total, codes := 0, map[string]bool{}
	for _, g := range c.Integrity.Groups {
		total += g.Count
		for _, code := range g.Codes {
			codes[code] = true
		}
	}
	if total != len(rep.Findings) {
		t.Errorf("groups hold %d findings, verify reported %d", total, len(rep.Findings))
	}
	for _, code := range m.ExpectedFindings {
		if !codes[code] {
			t.Errorf("expected finding %s is in no group", code)
		}
	}
	inclusion := 0
	for _, f := range rep.Findings {
		if f.Code == "INCLUSION_FAILED" {
			inclusion++
		}
	}
	// The scenario alters one tile and, separately, moves one record to
	// another leaf: that failure has its own cause and must not fold under
	// the tile. Verify proves inclusion from the entry bundles when they
	// hash to the signed root, so the tile explains only the inclusion
	// failures it still causes (none on tampered): the group is the tile
	// and those.
	g := c.Integrity.Groups[0]
	wantCodes := []string{"TILE_MISMATCH"}
	if inclusion > 1 {
		wantCodes = append(wantCodes, "INCLUSION_FAILED")
	}
	if g.Code != "TILE_MISMATCH" || g.Count != inclusion || !slices.Equal(g.Codes, wantCodes) {
		t.Errorf("first group %s with %d findings (%v); want the altered tile explaining %d of the %d inclusion failures", g.Code, g.Count, g.Codes, inclusion-1, inclusion)
	}
	moved := false
	for _, o := range c.Integrity.Groups[1:] {
		for _, f := range o.Shown {
			moved = moved || f.Code == "INCLUSION_FAILED" && strings.Contains(string(f.Message), "places this record at leaf")
		}
	}
	if !moved {
		t.Error("the moved record's inclusion failure is not listed on its own")
	}
	if len(g.Shown) > DefaultLimits.Examples {
		t.Errorf("%d findings listed, limit %d", len(g.Shown), DefaultLimits.Examples)
	}
	if c.Integrity.Errors == 0 || c.Verdict.Level != LevelCompromise {
		t.Errorf("tampered store: %d errors, level %s", c.Integrity.Errors, c.Verdict.Level)
	}
}

func TestRefusedActionLineageIsDrawn(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"memorygraft", "sleeper"} {
		c, page, js := buildCase(t, name, true)
		if len(c.Lineage.Refused) == 0 {
			t.Fatalf("%s: no refused action", name)
		}
		drawn := 0
		for _, r := range c.Lineage.Refused {
			for _, e := range r.Entries {
				if e.Drawing == nil || e.Recomputed != "Derived-Untrusted" && e.Recomputed != "External" {
					continue
				}
				drawn++
				if len(e.Drawing.Nodes) != len(e.Nodes) {
					t.Errorf("%s: drawing has %d nodes, case file %d", name, len(e.Drawing.Nodes), len(e.Nodes))
				}
				ext := false
				for _, n := range e.Drawing.Nodes {
					if n.Shape != trustShape(n.Trust) {
						t.Errorf("%s: node %s drawn as %s", name, n.Trust, n.Shape)
					}
					ext = ext || n.Trust == "External" && n.Shape == "triangle"
				}
				if !ext {
					t.Errorf("%s: the lineage of untrusted entry %s shows no External ancestor", name, e.Entry)
				}
				if len(e.Origins) == 0 || e.Origins[0].Break != -1 {
					t.Errorf("%s: entry %s has no all-strong path from an External ancestor", name, e.Entry)
				}
			}
		}
		if drawn == 0 {
			t.Errorf("%s: no lineage drawn", name)
		}
		if n := bytes.Count(page, []byte(`<figure class="dag">`)); n != drawn {
			t.Errorf("%s: %d SVG drawings on the page, %d in the case", name, n, drawn)
		}
		if !bytes.Contains(page, []byte(`class="n-triangle"`)) || !bytes.Contains(page, []byte("[External]")) {
			t.Errorf("%s: External shown neither as a shape nor in words", name)
		}
		var back Case
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("%s: case file does not parse: %v", name, err)
		}
		if len(back.Lineage.Refused) != len(c.Lineage.Refused) {
			t.Errorf("%s: case file has %d refused actions, page %d", name, len(back.Lineage.Refused), len(c.Lineage.Refused))
		}
	}
}

func TestHonestLabels(t *testing.T) {
	t.Parallel()
	pinned, _, _ := buildCase(t, "clean", true)
	if pinned.Verdict.Level != LevelNoFinding {
		t.Errorf("clean store, pinned anchors: level %s (%s)", pinned.Verdict.Level, pinned.Verdict.Headline)
	}
	loose, page, _ := buildCase(t, "clean", false)
	if loose.Verdict.Level != LevelNotChecked {
		t.Errorf("clean store, no anchors: level %s, want %s", loose.Verdict.Level, LevelNotChecked)
	}
	if !strings.Contains(paragraph(loose.Verdict), "unanchored") || !strings.Contains(loose.Verdict.Certainty, "Not checked") {
		t.Errorf("unanchored verdict does not say so: %s / %s", paragraph(loose.Verdict), loose.Verdict.Certainty)
	}
	for _, word := range []string{"PASS", "verified", "intact"} {
		for _, c := range []*Case{pinned, loose} {
			v := c.Verdict
			all := v.Headline + paragraph(v) + v.Certainty + strings.Join(v.Todo, " ")
			if strings.Contains(all, word) {
				t.Errorf("verdict says %q: %s", word, all)
			}
		}
	}
	if !bytes.Contains(page, []byte("NOT CHECKED")) {
		t.Error("the page's badge does not say NOT CHECKED")
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	_, h1, j1 := buildCase(t, "structural-write", true)
	_, h2, j2 := buildCase(t, "structural-write", true)
	if !bytes.Equal(h1, h2) || !bytes.Equal(j1, j2) {
		t.Fatal("two reports of the same evidence, flags and clock differ")
	}
	if !bytes.Contains(h1, []byte(fixedClock.Format("2006-01-02T15:04:05Z"))) {
		t.Error("the fixed clock is not printed")
	}
}

func TestEvidenceHashedAndUnchanged(t *testing.T) {
	t.Parallel()
	dir, m := scenarioDir(t, "smsr")
	before := treeHashes(t, dir)
	c, _, _ := buildCase(t, "smsr", true)
	after := treeHashes(t, dir)
	if !maps(before, after) {
		t.Fatal("building the report changed the evidence")
	}
	want := before[filepath.Join(dir, m.Snapshot)]
	found := false
	for _, f := range c.Evidence.Inputs {
		if f.Role == "snapshot" {
			found = true
			if f.SHA256 != want {
				t.Errorf("snapshot SHA-256 %s, want %s", f.SHA256, want)
			}
		}
		if f.Role == "log" && f.SHA256 != before[string(f.Path)] {
			t.Errorf("log file %s: SHA-256 %s, want %s", f.Path, f.SHA256, before[string(f.Path)])
		}
	}
	if !found {
		t.Error("no snapshot among the inputs")
	}
	logFiles := 0
	for p := range before {
		if strings.HasPrefix(p, filepath.Join(dir, m.Log)+string(filepath.Separator)) {
			logFiles++
		}
	}
	n := 0
	for _, f := range c.Evidence.Inputs {
		if f.Role == "log" {
			n++
		}
	}
	if n != logFiles {
		t.Errorf("%d log files hashed, the log has %d", n, logFiles)
	}
	if c.Evidence.Anchors[2].Status != "given" {
		t.Errorf("HMAC key given but anchor says %q", c.Evidence.Anchors[2].Status)
	}
}

func treeHashes(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(p)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestFilesAreCreatedExclusively(t *testing.T) {
	t.Parallel()
	c, _, _ := buildCase(t, "clean", true)
	dir := t.TempDir()
	htmlPath, jsonPath := filepath.Join(dir, "r.html"), filepath.Join(dir, "r.json")
	if err := Files(c, htmlPath, jsonPath); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(htmlPath)
	if err := Files(c, htmlPath, ""); !errors.Is(err, fs.ErrExist) {
		t.Errorf("writing over an existing report: %v, want an exists error", err)
	}
	if again, _ := os.ReadFile(htmlPath); !bytes.Equal(again, page) {
		t.Error("an existing report was modified")
	}
	// When the JSON path exists, no HTML is left behind either.
	other := filepath.Join(dir, "other.html")
	if err := Files(c, other, jsonPath); !errors.Is(err, fs.ErrExist) {
		t.Errorf("existing case file: %v, want an exists error", err)
	}
	if _, err := os.Stat(other); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a half-written report was left: %v", err)
	}
}

func TestGroupFindingsWrongRoot(t *testing.T) {
	t.Parallel()
	// A wrong --trust key: every registry event fails, and every writer is
	// then unregistered. One headline explains them all.
	var fs []finding.Finding
	for i := 0; i < 3; i++ {
		fs = append(fs, finding.Finding{Severity: finding.SevError, Code: finding.RegistrySigInvalid, Subject: "principal p"})
	}
	for i := 0; i < 5; i++ {
		fs = append(fs, finding.Finding{Severity: finding.SevError, Code: finding.WriterUnregistered, Subject: "entry e"})
	}
	fs = append(fs, finding.Finding{Severity: finding.SevWarning, Code: finding.SourceMissing, Subject: "write w"})
	c := &Case{}
	buildIntegrity(c, nil, &verify.Report{Findings: fs, Principals: 3}, DefaultLimits)
	if len(c.Integrity.Groups) != 2 || c.Integrity.Groups[0].Count != 8 || !strings.Contains(string(c.Integrity.Groups[0].Headline), "registry root") {
		t.Fatalf("groups: %+v", c.Integrity.Groups)
	}
	// With one registry event still valid the root is right: no fold.
	c = &Case{}
	buildIntegrity(c, nil, &verify.Report{Findings: fs, Principals: 4}, DefaultLimits)
	if len(c.Integrity.Groups) != 3 {
		t.Fatalf("groups with a valid registry event: %+v", c.Integrity.Groups)
	}
}
