//go:build unix

package storefile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Head reads at most n bytes of a regular file and refuses what is not
// one without opening it: a FIFO with no writer would block an open.
func TestHead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	short := filepath.Join(dir, "short.json")
	if err := os.WriteFile(short, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, ok := Head(short, 4); !ok || string(b) != `{"a"` {
		t.Errorf("first 4 bytes: %q %v", b, ok)
	}
	if b, ok := Head(short, 100); !ok || string(b) != `{"a":1}` {
		t.Errorf("a shorter file: %q %v", b, ok)
	}
	if _, ok := Head(filepath.Join(dir, "missing.json"), 4); ok {
		t.Error("a missing file was read")
	}
	if _, ok := Head(dir, 4); ok {
		t.Error("a directory was read")
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan bool)
	go func() { _, ok := Head(fifo, 4); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO was read")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Head blocked on a FIFO")
	}
}
