package scenario_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

var (
	genOnce sync.Once
	genDir  string
	genMans []*evidence.Manifest
	genErr  error
)

// generated writes every scenario with seed 1 once per test binary
// (generation takes a few seconds).
func generated(t *testing.T) (string, []*evidence.Manifest) {
	t.Helper()
	genOnce.Do(func() {
		genDir, genErr = os.MkdirTemp("", "scenario-test-")
		if genErr != nil {
			return
		}
		genMans, genErr = scenario.GenerateAll(context.Background(), genDir, nil, scenario.Options{Seed: 1})
	})
	if genErr != nil {
		t.Fatal(genErr)
	}
	return genDir, genMans
}

func TestMain(m *testing.M) {
	code := m.Run()
	if genDir != "" {
		os.RemoveAll(genDir)
	}
	os.Exit(code)
}

// optionsFrom reads a manifest's anchors the way a user would supply them:
// the log key and root keys from the manifest, the HMAC key from its file.
func optionsFrom(t *testing.T, dir string, m *evidence.Manifest) verify.Options {
	t.Helper()
	opts := verify.Options{Snapshot: filepath.Join(dir, m.Snapshot), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey}
	opts.TrustRoots = evidencetest.Roots(t, m)
	opts.HMACKey = evidencetest.HMACKey(t, dir, m)
	return opts
}

func codeSet(fs []finding.Finding) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, f := range fs {
		if c := string(f.Code); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

func TestEveryScenarioYieldsExactlyItsExpectedFindings(t *testing.T) {
	t.Parallel()
	root, mans := generated(t)
	if len(mans) != len(scenario.Specs) {
		t.Fatalf("generated %d scenarios, want %d", len(mans), len(scenario.Specs))
	}
	for _, m := range mans {
		t.Run(m.Name, func(t *testing.T) {
			dir := filepath.Join(root, m.Name)
			// The manifest on disk is what other tools read.
			onDisk, err := evidence.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(onDisk, m) {
				t.Fatalf("scenario.json differs from the returned manifest")
			}
			rep, err := verify.Run(context.Background(), optionsFrom(t, dir, onDisk))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Anchors.LogKey != "pinned" || rep.Anchors.Registry != "pinned" {
				t.Fatalf("anchors %+v, want both pinned", rep.Anchors)
			}
			got := codeSet(rep.Findings)
			want := append([]string{}, onDisk.ExpectedFindings...)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("finding codes %v\nwant %v\nfindings: %+v", got, want, rep.Findings)
			}
			if len(want) == 0 && (len(rep.Findings) != 0 || !rep.OK) {
				t.Fatalf("a scenario expecting nothing has findings (any severity): %+v", rep.Findings)
			}
			if rep.Records == 0 || rep.Entries == 0 || rep.TreeSize == 0 {
				t.Fatalf("report counts nothing: %+v", rep)
			}
		})
	}
}

// TestUnanchoredCleanWarnsOnly: without user anchors the clean store still
// verifies, but both anchors are reported as unanchored warnings.
func TestUnanchoredCleanWarnsOnly(t *testing.T) {
	t.Parallel()
	root, _ := generated(t)
	dir := filepath.Join(root, "clean")
	rep, err := verify.Run(context.Background(), verify.Options{Snapshot: filepath.Join(dir, evidence.SnapshotFile), Log: filepath.Join(dir, evidence.LogDir)})
	if err != nil {
		t.Fatal(err)
	}
	if got := codeSet(rep.Findings); !reflect.DeepEqual(got, []string{"CHECKPOINT_UNANCHORED", "REGISTRY_ROOT_UNANCHORED"}) {
		t.Fatalf("codes %v", got)
	}
	if !rep.OK {
		t.Fatal("warnings alone made the report fail")
	}
}

// readTree maps every file below dir (relative path) to its bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSameSeedSameBytes(t *testing.T) {
	t.Parallel()
	root, _ := generated(t)
	again := t.TempDir()
	if _, err := scenario.GenerateAll(context.Background(), again, nil, scenario.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	a, b := readTree(t, root), readTree(t, again)
	if len(a) != len(b) {
		t.Errorf("%d files vs %d", len(a), len(b))
	}
	for name, want := range a {
		got, ok := b[name]
		if !ok {
			t.Errorf("%s missing from the second generation", name)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s differs between two generations with seed 1", name)
		}
	}
}

func TestOtherSeedOtherKeys(t *testing.T) {
	t.Parallel()
	root, mans := generated(t)
	other := t.TempDir()
	m2, err := scenario.GenerateAll(context.Background(), other, []string{"clean"}, scenario.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var m1 *evidence.Manifest
	for _, m := range mans {
		if m.Name == "clean" {
			m1 = m
		}
	}
	if m1.Anchors.LogKey == m2[0].Anchors.LogKey || reflect.DeepEqual(m1.Anchors.Trust, m2[0].Anchors.Trust) {
		t.Fatalf("seeds 1 and 2 share anchors: %+v", m1.Anchors)
	}
	s1, err := os.ReadFile(filepath.Join(root, "clean", evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	s2, err := os.ReadFile(filepath.Join(other, "clean", evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(s1) == string(s2) {
		t.Fatal("seeds 1 and 2 give the same snapshot")
	}
	// The other seed's store is just as clean under its own anchors.
	rep, err := verify.Run(context.Background(), optionsFrom(t, filepath.Join(other, "clean"), m2[0]))
	if err != nil || len(rep.Findings) != 0 {
		t.Fatalf("seed 2 clean: %v %+v", err, rep)
	}
	// And its anchors reject seed 1's log and registry.
	crossed := optionsFrom(t, filepath.Join(root, "clean"), m1)
	crossed.LogKey, crossed.TrustRoots = m2[0].Anchors.LogKey, optionsFrom(t, filepath.Join(other, "clean"), m2[0]).TrustRoots
	rep, err = verify.Run(context.Background(), crossed)
	if err != nil {
		t.Fatal(err)
	}
	got := codeSet(rep.Findings)
	for _, want := range []string{"CHECKPOINT_SIG_INVALID", "REGISTRY_SIG_INVALID"} {
		if !contains(got, want) {
			t.Errorf("foreign anchors: codes %v lack %s", got, want)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestGenerateRefusesExistingDirAndUnknownName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "clean"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec, _ := scenario.Lookup("clean")
	if _, err := scenario.Generate(context.Background(), dir, spec, scenario.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("existing directory: %v", err)
	}
	if _, err := scenario.GenerateAll(context.Background(), t.TempDir(), []string{"no-such"}, scenario.Options{Seed: 1}); err == nil || !strings.Contains(err.Error(), "no-such") {
		t.Fatalf("unknown name: %v", err)
	}
}
