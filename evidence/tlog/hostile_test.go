package tlog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
)

// A checkpoint that is a symlink to /dev/zero, a FIFO, or a bundle that
// points outside the log directory: each is refused with an error naming
// the file, without reading (a FIFO open would block forever).
func TestDirectoryReadsAreRegularFilesInside(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	signer, _ := testKey(t, testOrigin, 1)
	pristine, _ := writeLog(t, signer, testLeaves(300))

	zero := copyTree(t, pristine)
	os.Remove(filepath.Join(zero, "checkpoint"))
	if err := os.Symlink("/dev/zero", filepath.Join(zero, "checkpoint")); err != nil {
		t.Skip(err)
	}
	if _, err := Open(ctx, zero); err == nil || !strings.Contains(err.Error(), "outside the log directory") {
		t.Errorf("checkpoint -> /dev/zero: %v", err)
	}

	fifo := copyTree(t, pristine)
	os.Remove(filepath.Join(fifo, "checkpoint"))
	if err := syscall.Mkfifo(filepath.Join(fifo, "checkpoint"), 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := Open(ctx, fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO checkpoint: %v", err)
	}

	out := copyTree(t, pristine)
	bundle := filepath.Join(out, "tile/entries/000")
	outside := filepath.Join(t.TempDir(), "elsewhere")
	b, _ := os.ReadFile(bundle)
	os.WriteFile(outside, b, 0o644)
	os.Remove(bundle)
	os.Symlink(outside, bundle)
	r, err := Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	var streamErr error
	for _, err := range r.Leaves(ctx, 0, 300) {
		if err != nil {
			streamErr = err
		}
	}
	if streamErr == nil || !strings.Contains(streamErr.Error(), "outside the log directory") {
		t.Errorf("bundle symlinked outside: %v", streamErr)
	}

	// A bundle far larger than any bundle can be is refused by size.
	big := copyTree(t, pristine)
	os.WriteFile(filepath.Join(big, "tile/entries/000"), make([]byte, maxBundleBytes+1), 0o644)
	r, err = Open(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	streamErr = nil
	for _, err := range r.Leaves(ctx, 0, 300) {
		if err != nil {
			streamErr = err
		}
	}
	var tooLarge *evidence.TooLargeError
	if !errors.As(streamErr, &tooLarge) {
		t.Errorf("oversized bundle: %v", streamErr)
	}
}

// Present refuses a size the log does not hold before anything is sized
// by it.
func TestPresentChecksTheClaimedSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, _ := testKey(t, testOrigin, 1)
	dir, _ := writeLog(t, signer, testLeaves(300))
	r, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []uint64{1, 256, 300} {
		if err := r.Present(ctx, size); err != nil {
			t.Errorf("Present(%d): %v", size, err)
		}
	}
	for _, size := range []uint64{301, 1 << 40, 1<<63 + 5} {
		if err := r.Present(ctx, size); err == nil {
			t.Errorf("Present(%d) accepted a size the log does not hold", size)
		}
	}
}

// HTTP: a body that never ends is cut at the cap; a server that never
// answers, or stalls mid-body, hits the time limits; a redirect to another
// origin is refused unless allowed.
func TestHTTPReadsAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	signer, _ := testKey(t, testOrigin, 1)
	dir, _ := writeLog(t, signer, testLeaves(300))
	files := http.FileServer(http.Dir(dir))
	block := make(chan struct{})
	defer close(block)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("mode") {
		case "endless":
			buf := make([]byte, 32<<10)
			for {
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
		case "silent":
			select {
			case <-block:
			case <-r.Context().Done():
			}
		case "stall":
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("partial"))
			w.(http.Flusher).Flush()
			select {
			case <-block:
			case <-r.Context().Done():
			}
		default:
			files.ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	fast := Options{ConnectTimeout: time.Second, HeaderTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond, RequestTimeout: 5 * time.Second}
	for _, tc := range []struct{ mode, want string }{{"endless", "over the limit"}, {"silent", "timeout"}, {"stall", "stalled"}} {
		start := time.Now()
		_, err := OpenWith(ctx, srv.URL+"/?mode="+tc.mode+"&", fast)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.mode, err)
		}
		if d := time.Since(start); d > 4*time.Second {
			t.Errorf("%s took %v", tc.mode, d)
		}
	}

	other := httptest.NewServer(files)
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirect.Close()
	if _, err := OpenWith(ctx, redirect.URL, fast); err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Errorf("cross-origin redirect: %v", err)
	}
	if _, err := OpenWith(ctx, redirect.URL, Options{AllowCrossOriginRedirects: true}); err != nil {
		t.Errorf("cross-origin redirect, allowed: %v", err)
	}
}
