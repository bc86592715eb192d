package storefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
)

// A 2 GiB JSON file (sparse: no disk is used) is refused by its size,
// before a byte is read, with the file named.
func TestRefusesOversizeBeforeReading(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "openie_results_ner_x.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, _, err = ReadAll(context.Background(), path, "OpenIE results (JSON)", MaxJSON)
	var tl *evidence.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "2.0 GiB") {
		t.Fatalf("err %v, want a TooLargeError naming %s and its size", err, path)
	}
}

func TestReadAllDigests(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte("{}"), 0o444); err != nil {
		t.Fatal(err)
	}
	b, f, err := ReadAll(context.Background(), path, "x", 10)
	if err != nil || string(b) != "{}" || f.Size != 2 || f.SHA256 != "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" {
		t.Fatalf("%q %+v %v", b, f, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := ReadAll(ctx, path, "x", 10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
}
