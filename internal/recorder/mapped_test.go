package recorder_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigMappedMemoryServer records a memory server that is not the
// reference one through a config mapping alone: its writes become
// entries, its reads queries selecting them in order, its deletes
// tombstones.
func TestConfigMappedMemoryServer(t *testing.T) {
	memscope, web, _ := bins(t)
	notes := filepath.Join(filepath.Dir(memscope), "notes")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	initStore(t, memscope, store)
	cfg := filepath.Join(dir, "config.json")
	body := fmt.Sprintf(`{"servers":[
 {"name":"notes","command":[%q],"role":"memory","mapping":{
   "writes":[{"tool":"remember","content":"text","id":"id"}],
   "deletes":[{"tool":"forget","id":"id"}],
   "reads":[{"tool":"recall","query":"query","id":"id"}]}},
 {"name":"web","command":[%q],"role":"source-untrusted"}]}`, notes, web)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, _ := connect(t, ctx, memscope, store, cfg)
	call(t, ctx, cs, "fetch_page", map[string]any{"url": "x"})
	call(t, ctx, cs, "remember", map[string]any{"text": "alpha note"})
	call(t, ctx, cs, "remember", map[string]any{"text": "beta note"})
	if got := call(t, ctx, cs, "recall", map[string]any{"query": "note"}); !strings.Contains(got, "n2") {
		t.Fatalf("recall: %s", got)
	}
	call(t, ctx, cs, "forget", map[string]any{"id": "n1"})
	cs.Close()

	snap := filepath.Join(store, "snapshot.db")
	if out, code := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(store)...)...); code != 0 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	db := openSnapshot(t, snap)
	defer db.Close()
	alpha := entryWith(t, snap, "beta note")
	var selected, text string
	if err := db.QueryRow("SELECT selected, text FROM queries").Scan(&selected, &text); err != nil {
		t.Fatal(err)
	}
	if text != "note" || !strings.Contains(selected, "passage:"+alpha) || strings.Count(selected, "passage:") != 2 {
		t.Errorf("query %q selected %s, want both notes", text, selected)
	}
	var tomb int
	if err := db.QueryRow("SELECT COUNT(*) FROM tombstones").Scan(&tomb); err != nil || tomb != 1 {
		t.Errorf("tombstones: %d (%v), want 1 for forget n1", tomb, err)
	}
	var parents int
	if err := db.QueryRow("SELECT COUNT(*) FROM entries WHERE content = 'beta note' AND trust = 2").Scan(&parents); err != nil || parents != 1 {
		t.Errorf("the note written after the untrusted page is not Derived-Untrusted (%d, %v)", parents, err)
	}
}
