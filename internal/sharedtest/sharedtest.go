// Package sharedtest finds the shared test material that lives beside the
// repository, never inside it: the real stores upstream tools wrote
// (../shared/realstores/cases) and peers' test corpora
// (../shared/peercorpora). A clone without ../shared skips the tests that
// need it with one line saying why; under CI (env CI=true) the material is
// required, so its absence fails the test instead.
package sharedtest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// RealStores returns the directory holding one folder per real store
// (each with its SOURCE.txt), or skips (fails under CI) when it is absent.
func RealStores(t testing.TB) string {
	t.Helper()
	return require(t, filepath.Join("realstores", "cases"))
}

// PeerCorpora returns the directory of peers' test corpora, or skips
// (fails under CI) when it is absent.
func PeerCorpora(t testing.TB) string {
	t.Helper()
	return require(t, "peercorpora")
}

// Cases lists the real store cases whose folder name starts with prefix
// ("" for all), sorted, as absolute paths.
func Cases(t testing.TB, prefix string) []string {
	t.Helper()
	dir := RealStores(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read %s: %v", dir, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatalf("no real store case named %s* in %s", prefix, dir)
	}
	return out
}

// Case returns one named real store case.
func Case(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(RealStores(t), name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("real store case %s: %v", name, err)
	}
	return p
}

// CopyCase copies the folder sub of the named real store case into a
// test's temporary folder (the case itself is never written) and returns
// the original folder and the copy.
func CopyCase(t testing.TB, name, sub string) (src, dst string) {
	t.Helper()
	src = filepath.Join(Case(t, name), sub)
	dst = t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return src, dst
}

// InCI says whether the tests run under CI, where shared material is
// required rather than optional.
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing handles absent shared material: a skip with one line locally, a
// failure under CI.
func Missing(t testing.TB, what string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is missing and CI=true requires it", what)
	}
	t.Skipf("skipped: %s is missing (a clone without ../shared; CI requires it)", what)
}

func require(t testing.TB, rel string) string {
	t.Helper()
	for _, base := range sharedDirs() {
		p := filepath.Join(base, rel)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
	}
	Missing(t, "../shared/"+filepath.ToSlash(rel))
	return ""
}

// sharedDirs are where shared/ may be: $MEMSCOPE_SHARED when set, beside
// the repository root, and, for a git worktree (.git is a file naming the
// main repository's git directory), beside the main checkout.
func sharedDirs() []string {
	if d := os.Getenv("MEMSCOPE_SHARED"); d != "" {
		return []string{d}
	}
	root, err := RepoRoot()
	if err != nil {
		return nil
	}
	dirs := []string{filepath.Join(filepath.Dir(root), "shared")}
	if b, err := os.ReadFile(filepath.Join(root, ".git")); err == nil && len(b) < 4096 {
		// "gitdir: <main>/.git/worktrees/<name>"
		line := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
		if i := strings.Index(line, string(filepath.Separator)+".git"+string(filepath.Separator)); i > 0 {
			dirs = append(dirs, filepath.Join(filepath.Dir(line[:i]), "shared"))
		}
	}
	return dirs
}

// RepoRoot is the directory holding this module's go.mod, found upward
// from the test's working directory (its package directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
