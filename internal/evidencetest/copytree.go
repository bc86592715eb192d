package evidencetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// CopyTree copies the directory src into a new temporary directory named
// like src and returns the copy's path, so that a test can edit evidence
// without touching the generated original.
func CopyTree(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := CopyDir(src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// CopyDir copies the directory src to dst (created as needed), file by
// file: what the hostile generator starts each case from.
func CopyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}
