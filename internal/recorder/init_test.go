package recorder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/lineage"
)

// record init takes only agent principals the analyses can read as
// writers: "agent:" alone was accepted, and lineage refuses it as a
// writer, so every record of such a store would have been unreadable.
// A refused name creates nothing.
func TestInitRefusesUnreadableAgentNames(t *testing.T) {
	for _, name := range []string{"agent:", "agent:a b", "user:x", "tool:x", "agent:" + strings.Repeat("a", 200), "agent:\x1b"} {
		dir := filepath.Join(t.TempDir(), "store")
		if _, err := Init(context.Background(), dir, []string{name}, ""); err == nil {
			t.Errorf("Init with %q: accepted", name)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("Init with %q: created %s", name, dir)
		}
	}
	if _, err := lineage.ParseWriter("agent:"); err == nil {
		t.Fatal(`lineage reads "agent:" as a writer: the premise of this test is gone`)
	}
	name := "agent:ok"
	if _, err := lineage.ParseWriter(name); err != nil {
		t.Fatalf("lineage refuses %q: %v", name, err)
	}
	if _, err := Init(context.Background(), filepath.Join(t.TempDir(), "store"), []string{name}, ""); err != nil {
		t.Errorf("Init with %q: %v", name, err)
	}
}
