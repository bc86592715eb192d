package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/tui"
)

func TestTimeCommandsOnIncident(t *testing.T) {
	dir := filepath.Join(demoDir, "incident")
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errb := runIn(t, dir, "replay", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--query", m.Attack.Query, "--first-flip", "--json")
	if code != exitOK && code != exitFindings {
		t.Fatalf("replay --first-flip exited %d: %s", code, errb)
	}
	var rows []struct {
		FirstFlip *struct {
			Write           string   `json:"write"`
			Writer          string   `json:"writer"`
			Leaf            *int64   `json:"leaf"`
			Time            string   `json:"time"`
			QueriesAffected []string `json:"queries_affected"`
			ActionsAffected []string `json:"actions_affected"`
		} `json:"first_flip"`
		AsRan *struct {
			RecordedMismatch *bool `json:"recorded_mismatch"`
		} `json:"as_ran"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 1 || rows[0].FirstFlip == nil || rows[0].FirstFlip.Write != m.Attack.FirstWrite || rows[0].FirstFlip.Leaf == nil ||
		*rows[0].FirstFlip.Leaf != *m.Attack.FirstWriteLeaf || rows[0].FirstFlip.Writer != "agent:peer" || rows[0].FirstFlip.Time == "" {
		t.Fatalf("first_flip %+v, manifest %s", rows[0].FirstFlip, m.Attack.FirstWrite)
	}
	if rows[0].AsRan == nil || rows[0].AsRan.RecordedMismatch == nil || *rows[0].AsRan.RecordedMismatch {
		t.Fatalf("as_ran %+v", rows[0].AsRan)
	}

	code, out, errb = runIn(t, dir, "timeline", "snapshot.db", "--json")
	// Every event of a generated store is logged (queries, actions and
	// gate events are signed records), so nothing is placed by time.
	if code != exitOK || !strings.Contains(out, `"order": "log"`) || strings.Contains(out, `"placed_by": "time"`) {
		t.Fatalf("timeline exited %d: %s %s", code, errb, out[:min(len(out), 400)])
	}

	code, out, errb = runIn(t, dir, "diff", "phase-3-acted.db", "snapshot.db", "--log", "log", "--anchors", "scenario.json", "--json")
	if code != exitFindings {
		t.Fatalf("diff across the silent deletion exited %d, want %d: %s", code, exitFindings, errb)
	}
	var d struct {
		Changes []struct {
			Table, Key, Change string
		} `json:"changes"`
		Consistency struct{ Status string } `json:"consistency"`
		Findings    []struct{ Code string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("diff --json is not JSON: %v\n%s", err, out)
	}
	last := m.Phases[len(m.Phases)-1]
	kinds := map[string]string{}
	for _, c := range d.Changes {
		kinds[c.Key+"/"+c.Table] = c.Change
	}
	if kinds[last.Tombstoned[0]+"/entries"] != "tombstoned" || kinds[last.SilentlyDeleted[0]+"/entries"] != "removed" || d.Consistency.Status != "consistent" {
		t.Fatalf("changes %v consistency %s", kinds, d.Consistency.Status)
	}
	// The anchors come from scenario.json inside the evidence, which diff
	// says (ANCHOR_FROM_EVIDENCE, a warning); the one error is the silent
	// deletion.
	var codes []string
	for _, f := range d.Findings {
		codes = append(codes, f.Code)
	}
	if strings.Join(codes, ",") != "ANCHOR_FROM_EVIDENCE,DIFF_REMOVED_WITHOUT_TOMBSTONE" {
		t.Fatalf("findings %v", codes)
	}
}

// The diff mode opens on the differences: the silent deletion's error is
// on the first screen.
func TestDiffModeOpensOnDifferences(t *testing.T) {
	dir := filepath.Join(demoDir, "incident")
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := assemble.DiffOptions{A: filepath.Join(dir, m.Phases[2].Snapshot), B: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey}
	var changes []diff.RowChange
	res, err := assemble.DiffSnapshots(context.Background(), o, func(c diff.RowChange) error {
		changes = append(changes, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var model tea.Model = tui.NewDiff(diffData(o, res, changes, 0), tui.Options{NoColor: true})
	model, _ = model.Update(tea.WindowSizeMsg{Width: 160, Height: 20})
	screen := model.View().Content
	for _, want := range []string{"consistency: consistent", "DIFF_REMOVED_WITHOUT_TOMBSTONE", "entry " + m.Phases[3].SilentlyDeleted[0], "tombstoned", "Changes from A to B"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("first screen lacks %q:\n%s", want, screen)
		}
	}
	// Scrolling reaches the per-query selections at the end.
	model, _ = model.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if s := model.View().Content; !strings.Contains(s, "then ") || !strings.Contains(s, "now  ") {
		t.Fatalf("end of the document lacks the selections:\n%s", s)
	}
}
