package evidence

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO planted where a file is expected must be refused at once: a plain
// open would wait for a writer forever.
func TestSpecialFilesRefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "graph.pickle")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	regular := filepath.Join(dir, "ok")
	if err := os.WriteFile(regular, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	openers := map[string]func(string) error{
		"OpenRegular": func(p string) error {
			f, err := OpenRegular(p)
			if err == nil {
				f.Close()
			}
			return err
		},
		"OpenFile": func(p string) error {
			f, err := OpenFile(p, 1<<20)
			if err == nil {
				f.Close()
			}
			return err
		},
		"HashFile": func(p string) error {
			_, _, err := HashFile(context.Background(), p)
			return err
		},
	}
	for name, open := range openers {
		done := make(chan error, 1)
		go func() { done <- open(fifo) }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s accepted a FIFO", name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s blocked on a FIFO", name)
		}
		if err := open(regular); err != nil {
			t.Errorf("%s refused a regular file: %v", name, err)
		}
		if err := open("/dev/zero"); err == nil {
			t.Errorf("%s accepted /dev/zero", name)
		}
	}
}
