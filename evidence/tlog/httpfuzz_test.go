package tlog

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// FuzzHTTPLog serves a real log over an httptest server with the fuzzer's
// bytes in place of the checkpoint and of one entry bundle or hash tile,
// and a status code the fuzzer picks, then opens the log and reads leaves
// and a proof. Any outcome is allowed but a panic, a hang or an error that
// does not name the URL. One server serves every run (a server per run
// would measure the kernel, not the reader).
func FuzzHTTPLog(f *testing.F) {
	signer, _ := testKey(f, testOrigin, 1)
	dir := filepath.Join(f.TempDir(), "log")
	cp := writeLogAt(f, dir, signer, testLeaves(300))
	bundle, _ := os.ReadFile(filepath.Join(dir, "tile/entries/000"))
	f.Add(cp, bundle, uint8(0), uint16(200))
	f.Add(cp, bundle[:len(bundle)/2], uint8(1), uint16(200))
	f.Add([]byte("origin\n18446744073709551615\nAAAA\n\n"), []byte{0xff, 0xff}, uint8(2), uint16(200))
	f.Add(cp, []byte{}, uint8(0), uint16(404))
	f.Add(cp, bundle, uint8(3), uint16(302))

	var mu sync.Mutex
	var cur struct {
		cp, body []byte
		target   string
		status   int
	}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		c := cur
		mu.Unlock()
		switch {
		case r.URL.Path == "/checkpoint":
			w.Write(c.cp)
		case r.URL.Path == c.target:
			if c.status == http.StatusFound {
				http.Redirect(w, r, "http://127.0.0.1:1/elsewhere", c.status)
				return
			}
			w.WriteHeader(c.status)
			w.Write(c.body)
		default:
			files.ServeHTTP(w, r)
		}
	}))
	f.Cleanup(srv.Close)
	targets := []string{"/tile/entries/000", "/tile/entries/001.p/44", "/tile/0/000", "/tile/1/000.p/1"}
	opts := Options{ConnectTimeout: time.Second, HeaderTimeout: time.Second, IdleTimeout: time.Second, RequestTimeout: 3 * time.Second}
	f.Fuzz(func(t *testing.T, cpBytes, body []byte, which uint8, status uint16) {
		st := int(status)
		if st < 200 || st > 599 {
			st = 200
		}
		// Runs in one fuzz worker are sequential: the server reads cur under
		// the lock only to copy it.
		mu.Lock()
		cur.cp, cur.body, cur.target, cur.status = cpBytes, body, targets[int(which)%len(targets)], st
		mu.Unlock()
		r, err := OpenWith(context.Background(), srv.URL, opts)
		if err != nil {
			if !strings.Contains(err.Error(), srv.URL) && !strings.Contains(err.Error(), "checkpoint") {
				t.Fatalf("Open error does not name the URL: %v", err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		size, err := r.Size()
		if err != nil {
			return
		}
		if r.Present(ctx, size) != nil {
			return
		}
		n := min(size, 300)
		for _, err := range r.Leaves(ctx, 0, n) {
			if err != nil {
				break
			}
		}
		if n > 0 {
			r.InclusionProof(ctx, n-1, n)
		}
		if ctx.Err() != nil {
			t.Fatal("reading took 10 s (a hang?)")
		}
	})
}
