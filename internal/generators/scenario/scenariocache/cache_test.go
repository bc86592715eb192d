package scenariocache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"
)

// Every package of the module that the generator links lies under a folder
// the cache key hashes, so a change to any of them makes a new entry.
func TestKeyCoversGenerator(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/memscope/memscope/internal/generators/scenario").Output()
	if err != nil {
		t.Fatal(err)
	}
	const mod = "github.com/memscope/memscope/"
	n := 0
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, mod)
		if !ok {
			continue
		}
		n++
		covered := false
		for _, s := range generatorSources {
			if rel == s || strings.HasPrefix(rel, s+"/") {
				covered = true
			}
		}
		if !covered {
			t.Errorf("the generator links %s, which the cache key does not hash: add it to generatorSources", p)
		}
	}
	if n < 5 {
		t.Fatalf("go list found only %d module packages: %s", n, out)
	}
}

// Two calls give the same directory, generated once, with every scenario
// and its manifest; the key changes with the seed.
func TestDirIsSharedAndComplete(t *testing.T) {
	dir := Dir(t, 1)
	if again := Dir(t, 1); again != dir {
		t.Fatalf("second call %s, first %s", again, dir)
	}
	before := evidencetest.HashTree(t, dir)
	d, m := Scenario(t, 1, "clean")
	if m.Name != "clean" || filepath.Dir(d) != dir {
		t.Fatalf("clean: %s %+v", d, m)
	}
	if _, err := os.Stat(filepath.Join(d, m.Snapshot)); err != nil {
		t.Fatal(err)
	}
	if after := evidencetest.HashTree(t, dir); len(after) != len(before) {
		t.Fatal("reading the cache changed it")
	}
	k1, err := generatorKey(1)
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := generatorKey(2)
	if k1 == k2 || filepath.Base(dir) != k1 {
		t.Fatalf("keys %s, %s; dir %s", k1, k2, dir)
	}
}
