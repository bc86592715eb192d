package storediff

import (
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

func v(id, mem, event, text string) storemodel.Version {
	return storemodel.Version{ID: id, MemoryID: mem, Event: event, New: text, Old: text}
}

// The later copy extends each chain (changed, deleted, added); a chain the
// later copy rewrote or dropped is MEM0_HISTORY_REWRITTEN, an error.
func TestMem0CopiesCompared(t *testing.T) {
	a := &storemodel.Store{Format: storemodel.Mem0, Versions: []storemodel.Version{
		v("h1", "m1", "ADD", "likes tea"), v("h2", "m2", "ADD", "lives in Lyon"), v("h3", "m3", "ADD", "allergic to nuts"), v("h4", "m4", "ADD", "works at Acme")}}
	b := &storemodel.Store{Format: storemodel.Mem0, Versions: []storemodel.Version{
		v("h1", "m1", "ADD", "likes tea"), v("h2", "m2", "ADD", "lives in Lyon"), v("h3x", "m3", "ADD", "not allergic"),
		v("h5", "m1", "UPDATE", "likes coffee"), v("h6", "m2", "DELETE", "lives in Lyon"), v("h7", "m5", "ADD", "new")}}
	r, err := Diff(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range r.Memories {
		got[m.Memory] = m.Change
	}
	want := map[string]string{"m1": Changed, "m2": Deleted, "m3": Changed, "m4": Removed, "m5": Added}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], w, got)
		}
	}
	rewritten := map[string]bool{}
	for _, f := range r.Findings {
		if f.Code == finding.Mem0HistoryRewritten && f.Severity == finding.SevError {
			rewritten[f.Subject] = true
		}
	}
	if len(rewritten) != 2 || !rewritten["memory m3"] || !rewritten["memory m4"] {
		t.Errorf("rewritten %v, want m3 (its ADD replaced) and m4 (dropped)", rewritten)
	}
	if _, err := Diff(a, &storemodel.Store{Format: storemodel.LightRAG}); err == nil {
		t.Error("two formats compared")
	}
}
