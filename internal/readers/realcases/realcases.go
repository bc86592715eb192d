// Package realcases gives tests the real stores in
// <repo root>/../shared/realstores/cases and an independent Python to
// count them: a clone without them skips with one line saying why, CI
// (CI=true) fails instead.
package realcases

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Python is the interpreter the independent counts run in (Debian's, with
// the standard json, sqlite3 and pickle modules).
const Python = "/usr/bin/python3"

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", why)
	}
	t.Skip(why)
}

// Dir returns the cases directory: $MEMSCOPE_SHARED/realstores/cases when
// that is set (a git worktree has no ../shared beside it), else
// <repo root>/../shared/realstores/cases.
func Dir(t testing.TB) string {
	t.Helper()
	if s := os.Getenv("MEMSCOPE_SHARED"); s != "" {
		cases := filepath.Join(s, "realstores", "cases")
		if st, err := os.Stat(cases); err != nil || !st.IsDir() {
			missing(t, "no realstores/cases in $MEMSCOPE_SHARED: real-store tests not run")
		}
		return cases
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			cases := filepath.Join(d, "..", "shared", "realstores", "cases")
			if st, err := os.Stat(cases); err != nil || !st.IsDir() {
				missing(t, "no ../shared/realstores/cases beside the repository: real-store tests not run")
			}
			return cases
		}
		if filepath.Dir(d) == d {
			t.Fatal("no go.mod above " + wd)
		}
	}
}

// Cases lists the case directories whose names start with prefix.
func Cases(t testing.TB, prefix string) []string {
	t.Helper()
	dir := Dir(t)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatalf("no case %s* in %s", prefix, dir)
	}
	return out
}

// RunPython runs script with args and decodes its stdout as JSON into v.
func RunPython(t testing.TB, script string, v any, args ...string) {
	t.Helper()
	if _, err := os.Stat(Python); err != nil {
		missing(t, Python+" is absent: independent counts not computed")
	}
	cmd := exec.Command(Python, append([]string{"-c", script}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v: %s", err, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("python output %q: %v", out.String(), err)
	}
}
