package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"

	tea "charm.land/bubbletea/v2"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/tui"
	"github.com/memscope/memscope/tui/tuisource"
	"github.com/memscope/memscope/tui/tuitest"
)

// An export from the inspector's Replay, Actions and Timeline views is the
// document the command's --json writes for the same evidence (one JSON
// type per answer, issue 22): replay --json, actions --json and timeline
// --json, whole.
func TestInspectorExportsAreTheCLIsAnswers(t *testing.T) {
	for _, name := range []string{"structural-write", "peer-cites-external", "tampered", "incident", "channel-promotion"} {
		t.Run(name, func(t *testing.T) {
			sdir := filepath.Join(demoDir, name)
			m, err := evidence.ReadManifest(sdir)
			if err != nil {
				t.Fatal(err)
			}
			snap := filepath.Join(sdir, m.Snapshot)
			opts := assemble.Options{Snapshot: snap, Log: filepath.Join(sdir, m.Log), LogKey: m.Anchors.LogKey}
			opts.TrustRoots = evidencetest.Roots(t, m)
			opts.HMACKey = evidencetest.HMACKey(t, sdir, m)
			src, err := tuisource.New(context.Background(), opts, false)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			out := t.TempDir()
			var mdl tea.Model = tui.New(src, tui.Options{ExportDir: out, Static: true})
			mdl = tuitest.Drive(t, mdl, mdl.(*tui.Model).Init())
			mdl = tuitest.Send(t, mdl, tea.WindowSizeMsg{Width: 160, Height: 50})
			exported := func(key, view string) any {
				t.Helper()
				mdl = tuitest.Press(t, mdl, key, "e")
				files, _ := filepath.Glob(filepath.Join(out, "memscope-"+view+"-*.json"))
				if len(files) != 1 {
					t.Fatalf("%s export: %v\n%s", view, files, tuitest.Screen(mdl))
				}
				b, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				var v any
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatal(err)
				}
				return v
			}
			args := m.VerifyArgs
			sameExport(t, "replay", exported("6", "replay"), answer(t, sdir, "replay", args))
			sameExport(t, "actions", exported("8", "actions"), answer(t, sdir, "actions", args))
			tl, _ := exported("9", "timeline").(map[string]any)
			cliTimeline, _ := answer(t, sdir, "timeline", args).(map[string]any)
			// The snapshot as each was given it.
			delete(tl, "snapshot")
			delete(cliTimeline, "snapshot")
			sameExport(t, "timeline", tl, cliTimeline)
		})
	}
}

func sameExport(t *testing.T, what string, got, want any) {
	t.Helper()
	if want == nil {
		t.Fatalf("%s: the CLI's answer has no such part", what)
	}
	if !reflect.DeepEqual(got, want) {
		if d := os.Getenv("MEMSCOPE_EXPORT_DIFF"); d != "" {
			os.WriteFile(filepath.Join(d, what+".got.json"), mustJSON(t, got), 0o644)
			os.WriteFile(filepath.Join(d, what+".want.json"), mustJSON(t, want), 0o644)
		}
		t.Errorf("the inspector's %s export differs from the CLI's --json:\ninspector %s\nCLI       %s", what, clipBytes(mustJSON(t, got)), clipBytes(mustJSON(t, want)))
	}
}
