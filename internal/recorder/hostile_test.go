package recorder_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHostileContentVerbatimShownSanitised records a page and an entity
// name carrying terminal escapes, bidi overrides and invisible characters:
// the snapshot holds them byte for byte, memscope's outputs never print
// them raw.
func TestHostileContentVerbatimShownSanitised(t *testing.T) {
	memscope, _, store, cfg := storySetup(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, _ := connect(t, ctx, memscope, store, cfg)
	page := call(t, ctx, cs, "fetch_page", map[string]any{"url": "hostile"})
	name := "Evil\u202eCorp\u200b\x1b[31m\x07"
	call(t, ctx, cs, "create_entities", map[string]any{"entities": []map[string]any{{"name": name, "entityType": "company", "observations": []string{"obs \u2066hidden\u2069 \x1b]0;title\x07"}}}})
	cs.Close()

	snap := filepath.Join(store, "snapshot.db")
	db := openSnapshot(t, snap)
	defer db.Close()
	var got string
	if err := db.QueryRow("SELECT content FROM entries WHERE writer = 'external:web'").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != page {
		t.Errorf("page not recorded verbatim:\n got %q\nwant %q", got, page)
	}
	var label string
	if err := db.QueryRow("SELECT label FROM nodes WHERE kind = 'entity'").Scan(&label); err != nil {
		t.Fatal(err)
	}
	if label != name {
		t.Errorf("entity name not recorded verbatim: %q, want %q", label, name)
	}
	// verify flags the characters (every signature still checks).
	if out, _ := memscopeRun(t, memscope, append([]string{"verify", snap}, anchors(store)...)...); !strings.Contains(out, "TEXT_CONTROL_CHARS") || !strings.Contains(out, "signatures  PASS") {
		t.Errorf("verify does not flag the hostile text, or a signature failed:\n%s", out)
	}
	for _, cmd := range [][]string{{"verify", snap}, {"timeline", snap}, {"lineage", snap}, {"replay", snap}} {
		out, _ := memscopeRun(t, memscope, append(cmd, anchors(store)...)...)
		if i := strings.IndexAny(out, "\x1b\x07\u202e\u200b\u2066\u2069"); i >= 0 {
			t.Errorf("memscope %s prints a raw control, bidi or invisible character at byte %d: %q", cmd[0], i, out[max(0, i-40):min(len(out), i+40)])
		}
	}
}
