package tlog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/evidencetest"
)

// A server that stays inside the idle limit by trickling a byte at a time
// ends its request once the body's average rate is under MinThroughput
// after ThroughputGrace, not after RequestTimeout (issue 23 item 15); an
// honest body delivered at once passes.
func TestHTTPMinimumThroughput(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	dir, _ := writeLog(t, signer, testLeaves(300))
	files := http.FileServer(http.Dir(dir))
	trickle := evidencetest.Trickle(50 * time.Millisecond) // inside the idle limit
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("mode") != "trickle" {
			files.ServeHTTP(w, r)
			return
		}
		trickle(w, r)
	}))
	defer srv.Close()
	o := Options{IdleTimeout: time.Second, RequestTimeout: time.Minute, MinThroughput: 1000, ThroughputGrace: 300 * time.Millisecond}
	start := time.Now()
	_, err := OpenWith(context.Background(), srv.URL+"/?mode=trickle&", o)
	if err == nil || !strings.Contains(err.Error(), "bytes a second") {
		t.Errorf("trickle: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("trickle held the request %v", d)
	}
	r, err := OpenWith(context.Background(), srv.URL, o)
	if err != nil {
		t.Fatalf("honest server: %v", err)
	}
	if _, err := r.Check(context.Background(), 300, r.published.Root); err != nil {
		t.Errorf("honest server: %v", err)
	}
}

// Past Options.Deadline every HTTP read fails with ErrDeadline, however
// well each request behaves: a server that answers each read slowly but
// inside every per-request limit cannot hold a command past it.
func TestHTTPDeadline(t *testing.T) {
	t.Parallel()
	signer, _ := testKey(t, testOrigin, 1)
	dir, _ := writeLog(t, signer, testLeaves(3000))
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(100 * time.Millisecond): // slow, inside every limit
		case <-r.Context().Done():
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	r, err := OpenWith(ctx, srv.URL, Options{Deadline: time.Now().Add(700 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	probs, err := r.Check(ctx, 3000, r.published.Root)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the deadline did not stop the reads: %v", d)
	}
	found := err != nil && errors.Is(err, ErrDeadline)
	for _, p := range probs {
		found = found || strings.Contains(p.What, ErrDeadline.Error())
	}
	if !found || !r.PastDeadline() {
		t.Errorf("no read failed with the deadline (past it: %v): %v %v", r.PastDeadline(), err, probs)
	}
}
