package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/watch"
)

// TestWatchExitCodes: --once exits 0 on a first and an idle round, 1 when
// the log shows another root for the size it verified (a fork, as the
// JSON line says), and 2 when the log cannot be read or a flag is missing.
func TestWatchExitCodes(t *testing.T) {
	sdir := filepath.Join(demoDir, "structural-write")
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"watch", "--log", "log", "--log-key", "log.vkey", "--state", state, "--once"}
	for i, what := range []string{"first use", "idle"} {
		code, out, errs := runIn(t, sdir, args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", what, code, errs)
		}
		if i == 0 && !strings.Contains(out, `"code":"WATCH_STATE_NEW"`) {
			t.Fatalf("first round printed %q", out)
		}
		if i == 1 && out != "" {
			t.Fatalf("idle round printed %q", out)
		}
	}
	st, err := watch.LoadState(state)
	if err != nil {
		t.Fatal(err)
	}
	st.Root = append([]byte(nil), st.Root...)
	st.Root[0] ^= 1
	if err := watch.SaveState(state, st); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runIn(t, sdir, args...)
	var ev watch.Event
	if json.Unmarshal([]byte(strings.TrimSpace(out)), &ev); code != exitFindings || ev.Code != "CHECKPOINT_FORK" {
		t.Fatalf("fork: exit %d, %q", code, out)
	}
	if code, _, errs := runIn(t, sdir, "watch", "--log", "nolog", "--log-key", "log.vkey", "--state", filepath.Join(t.TempDir(), "s"), "--once"); code != exitUsage || !strings.Contains(errs, "nolog") {
		t.Fatalf("missing log: exit %d: %s", code, errs)
	}
	if code, _, _ := runIn(t, sdir, "watch", "--log", "log", "--state", state, "--once"); code != exitUsage {
		t.Fatalf("no log key: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(sdir, "log", "checkpoint")); err != nil {
		t.Fatal(err)
	}
}
