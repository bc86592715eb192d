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

// BreakUTF8 inserts bad, bytes that are not UTF-8, into the file at path
// just after the first marker, has Python json.load the file as opened by
// open (the Python expression, path as sys.argv[1]), requires Python's
// UnicodeDecodeError at the inserted byte, and returns its offset.
func BreakUTF8(t testing.TB, path, marker string, bad []byte, open string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(marker)) + len(marker)
	if at < len(marker) {
		t.Fatalf("%s: no %q", path, marker)
	}
	b = append(b[:at:at], append(append([]byte(nil), bad...), b[at:]...)...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var py struct{ At int }
	RunPython(t, `
import json, sys
try:
    json.load(`+open+`)
    print(json.dumps({"at": -1}))
except UnicodeDecodeError as e:
    print(json.dumps({"at": e.start}))
`, &py, path)
	if py.At != at {
		t.Fatalf("Python's json.load of %s fails at byte %d, want %d (-1: it reads the file)", path, py.At, at)
	}
	return at
}
