package loader_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/loader"
)

// FuzzOpenSnapshot opens the input as an in-memory SQLite image (the same
// structural checks and bounded reads as a file, without a file per run, so
// the fuzzer explores instead of waiting on the disk) and streams every
// table. Seeds (testdata/fuzz/FuzzOpenSnapshot, from
// `go run ./loader/testdata/genseeds`) are a small real snapshot and broken
// variants. Any input may be rejected, but only with a loader.Error naming
// the image, and never with a panic or a hang. TestOpenSnapshotFile keeps
// the on-disk path covered.
func FuzzOpenSnapshot(f *testing.F) {
	f.Add([]byte("SQLite format 3\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const path = "fuzz.db"
		orig := string(data)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := loader.OpenImage(ctx, path, data)
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
		if string(data) != orig {
			t.Fatal("the input image changed")
		}
	})
}

// TestOpenSnapshotFile runs the fuzzer's seeds through the file path:
// the same outcome as the image, the file unchanged and nothing beside it.
func TestOpenSnapshotFile(t *testing.T) {
	seeds, _ := filepath.Glob("testdata/fuzz/FuzzOpenSnapshot/*")
	if len(seeds) == 0 {
		t.Fatal("no seeds in testdata/fuzz/FuzzOpenSnapshot")
	}
	for _, seed := range seeds {
		data, err := readCorpusBytes(seed)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "snapshot.db")
		os.WriteFile(path, data, 0o644)
		ctx := context.Background()
		s, err := loader.Open(path)
		if err == nil {
			err = streamAll(ctx, s)
			s.Close()
		}
		si, ierr := loader.OpenImage(ctx, path, data)
		if ierr == nil {
			ierr = streamAll(ctx, si)
			si.Close()
		}
		if (err == nil) != (ierr == nil) {
			t.Errorf("%s: file %v, image %v", seed, err, ierr)
		}
		if b, _ := os.ReadFile(path); string(b) != string(data) {
			t.Fatalf("%s: the file changed", seed)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Fatalf("%s: reading left files beside the snapshot", seed)
		}
	}
}

// readCorpusBytes reads a "go test fuzz v1" corpus file holding one []byte.
func readCorpusBytes(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitN(string(b), "\n", 2)
	if len(lines) < 2 {
		return nil, fmt.Errorf("%s: not a corpus file", path)
	}
	body := strings.TrimSpace(lines[1])
	body = strings.TrimSuffix(strings.TrimPrefix(body, "[]byte("), ")")
	s, err := strconv.Unquote(body)
	return []byte(s), err
}
