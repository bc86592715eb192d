package sharedtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// Python is the interpreter the independent counts run in (Debian's
// python3: json, sqlite3 and pickle from the standard library, and the
// upstream tools' own libraries where packaged).
const Python = "/usr/bin/python3"

// RunPython runs script with args and decodes its stdout as JSON into v.
// Without the interpreter the test skips with one line (fails under CI).
func RunPython(t testing.TB, script string, v any, args ...string) {
	t.Helper()
	if _, err := os.Stat(Python); err != nil {
		Missing(t, Python)
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
