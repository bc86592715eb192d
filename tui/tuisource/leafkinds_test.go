package tuisource

import (
	"testing"

	"github.com/memscope/memscope/tui"
)

// Every leaf of a generated store's log names its kind and subject in the
// Log view: signed queries, actions, gate events and node declarations
// included (they read "unknown" before their leaves were indexed).
func TestEveryLeafHasItsKind(t *testing.T) {
	t.Parallel()
	src, _ := openScenario(t, "structural-write")
	finish(t, src)
	seen := map[tui.LeafKind]int{}
	for i := 0; i < src.LeafCount(); i++ {
		lr := src.Leaf(i)
		if lr.Kind == tui.LeafUnknown || lr.Subject == "" {
			t.Errorf("leaf %d: kind %s, subject %q", i, lr.Kind, lr.Subject)
		}
		seen[lr.Kind]++
	}
	for _, k := range []tui.LeafKind{tui.LeafEntry, tui.LeafWrite, tui.LeafRegistry, tui.LeafQuery, tui.LeafAction, tui.LeafGate, tui.LeafNode, tui.LeafConfig, tui.LeafSighting} {
		if seen[k] == 0 {
			t.Errorf("no %s leaf in the log", k)
		}
	}
}
