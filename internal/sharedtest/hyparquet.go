package sharedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Hyparquet returns the node_modules directory where .ci/services.sh
// installs hyparquet and hyparquet-compressors (pinned) for
// scripts/graphrag-counts.mjs, a parquet reader independent of
// parquet-go. Without node or the packages the test skips with one line,
// and fails when CI=true.
func Hyparquet(t testing.TB) string {
	t.Helper()
	mods := filepath.Join(memscopeCache(), "npm", "node_modules")
	_, errNode := exec.LookPath("node")
	_, errPkg := os.Stat(filepath.Join(mods, "hyparquet", "package.json"))
	_, errComp := os.Stat(filepath.Join(mods, "hyparquet-compressors", "package.json"))
	if errNode == nil && errPkg == nil && errComp == nil {
		return mods
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("node with hyparquet and hyparquet-compressors is not installed (.ci/services.sh installs them into %s)", mods)
	}
	t.Skipf("skipping: node with hyparquet not installed in %s (run .ci/services.sh)", mods)
	return mods
}
