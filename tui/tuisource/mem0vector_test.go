package tuisource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/sharedtest"
	"github.com/memscope/memscope/tui"
)

// The inspector on a copy of a real Mem0 store with planted rows
// (testdata/mem0vec/plant.py): history rows carry their memory's vector
// state, the planted vector has a row of its own flagged NOT IN HIST, and
// the findings are the CLI's (same codes, same count).
func TestInspectorMem0VectorState(t *testing.T) {
	src := filepath.Join(sharedtest.RealStores(t), "mem0-qdrant-mikolgi-empty", "data")
	dir := filepath.Join(t.TempDir(), "data")
	script, err := os.ReadFile("../../testdata/mem0vec/plant.py")
	if err != nil {
		t.Fatal(err)
	}
	var none struct{}
	sharedtest.RunPython(t, string(script), &none, src, dir)
	n := openNative(t, dir, "", NativeOptions{})
	// 6 history rows (a, c twice, d, e, f) and the vector-only memory b.
	if n.EntryCount() != 7 {
		t.Fatalf("%d rows", n.EntryCount())
	}
	last := n.Entry(6)
	if last.ID != "b" || last.Status != tui.Failed || last.Problem != "NOT IN HIST" {
		t.Fatalf("vector-only row %+v", last)
	}
	d, err := n.EntryDetail(t.Context(), 6)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, f := range d.Fields {
		text += f.Name + "=" + f.Value + "\n"
	}
	if !strings.Contains(text, "history=none") || !strings.Contains(text, "vector text=pay attacker") || !strings.Contains(text, string(finding.Mem0VectorNotInHistory)) {
		t.Fatalf("detail:\n%s", text)
	}
	i, _ := n.EntryIndex("h4") // d: ADD "original", vector "edited"
	d, _ = n.EntryDetail(t.Context(), i)
	text = ""
	for _, f := range d.Fields {
		text += f.Name + "=" + f.Value + "\n"
	}
	if n.Entry(i).Problem != "TEXT DIFF" || !strings.Contains(text, "vector text=edited") {
		t.Fatalf("row %+v detail:\n%s", n.Entry(i), text)
	}
	e, _, _ := finding.Count(n.Findings())
	if e != 4 {
		t.Fatalf("%d errors, the CLI reports 4", e)
	}
}
