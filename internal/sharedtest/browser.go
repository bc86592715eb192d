package sharedtest

import (
	"os"
	"os/exec"
	"testing"
)

// Chromium is the path of a headless-capable Chromium (Debian's chromium
// package, or chromium-browser or google-chrome). Without one the test is
// skipped, or fails under CI or when MEMSCOPE_BROWSER_TEST asks for the
// browser tests.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if InCI() || os.Getenv("MEMSCOPE_BROWSER_TEST") != "" {
		t.Fatal("no chromium is installed, and CI or MEMSCOPE_BROWSER_TEST requires it (apt-get install chromium poppler-utils)")
	}
	t.Skip("chromium not installed (apt-get install chromium poppler-utils)")
	return ""
}
