package recorder

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// A session's --agent must be an agent principal with a name: "agent:"
// alone would have been registered (the root key was at hand) and every
// record of the session unreadable as a writer; "tool:x" would have
// recorded the agent's writes as a tool's. Nothing is registered.
func TestRunRefusesUnreadableSessionAgent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := Init(context.Background(), dir, nil, ""); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"agent:", "tool:x", "user", "agent:a b"} {
		err := Run(context.Background(), RunOptions{Store: dir, Command: []string{"true"}, Agent: agent}, strings.NewReader(""), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "want agent:NAME") {
			t.Errorf("--agent %q: %v", agent, err)
		}
	}
	info, err := readInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(info.Agents, []string{DefaultAgent}) {
		t.Errorf("agents after the refusals: %v", info.Agents)
	}
}
