package verify_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/verify"
)

// The cross-record checks keep their facts per log position when every
// record has its own leaf, and fall back to a general fact list otherwise.
// Both must report the same findings in the same order: runScenario
// compares them on every scenario (and on every tampered copy the other
// tests build), and an honest store, bulk entries included, must take the
// per-position path, which holds a few bytes per leaf.
func TestCrossPathsAgreeOnEveryScenario(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("generates every scenario and verifies each twice")
	}
	dir := t.TempDir()
	shared := scenariocache.Dir(t, 3)
	bulk, _ := scenario.Lookup("clean")
	m, err := scenario.Generate(context.Background(), filepath.Join(dir, "bulk"), bulk, scenario.Options{Seed: 3, Entries: 1000})
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{"bulk clean": filepath.Join(dir, "bulk", m.Name)}
	for _, spec := range scenario.Specs {
		dirs[spec.Name] = filepath.Join(shared, spec.Name)
	}
	for name, d := range dirs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rep := runScenario(t, d)
			if name != "clean" && name != "bulk clean" {
				return
			}
			if !rep.OK {
				t.Fatalf("%s does not verify: %+v", name, rep.Findings)
			}
			m, err := evidence.ReadManifest(d)
			if err != nil {
				t.Fatal(err)
			}
			_, general, err := verify.RunTookGeneral(context.Background(), verify.Options{Snapshot: filepath.Join(d, m.Snapshot), Log: filepath.Join(d, m.Log)})
			if err != nil {
				t.Fatal(err)
			}
			if general {
				t.Errorf("%s took the general path: an honest store must fit the per-position facts", name)
			}
		})
	}
}
