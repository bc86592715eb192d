package loader_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memscope/memscope/loader"
)

// FuzzOpenSnapshot writes the input to a file, opens it and streams every
// table. Seeds (testdata/fuzz/FuzzOpenSnapshot, from
// `go run ./loader/testdata/genseeds`) are a small real snapshot and broken
// variants. Any input may be rejected, but only with a loader.Error naming
// the file, and never with a panic or a hang.
func FuzzOpenSnapshot(f *testing.F) {
	f.Add([]byte("SQLite format 3\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "snapshot.db")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := loader.Open(path)
		if err == nil {
			err = streamAll(ctx, s)
			s.Close()
		}
		if ctx.Err() != nil {
			t.Fatalf("reading took longer than 10 s (a hang?): %v", err)
		}
		if err != nil {
			var le *loader.Error
			if !errors.As(err, &le) || le.File != path {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
		}
		b, rerr := os.ReadFile(path)
		if rerr != nil || string(b) != string(data) {
			t.Fatal("the input file changed")
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Fatalf("reading left %d files beside the snapshot", len(entries)-1)
		}
	})
}
