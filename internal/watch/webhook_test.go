package watch

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
)

// TestWebhookRetriesAndNeverBlocks: a loopback receiver that fails twice
// then accepts gets each event once accepted; Send returns at once even
// while the receiver stalls; a receiver that answers 400 is not retried;
// Close waits only as long as its context.
func TestWebhookRetriesAndNeverBlocks(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			http.Error(w, "bad", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, e.ID)
		mu.Unlock()
	}))
	defer srv.Close()
	enc := func(e Event) ([]byte, error) { return json.Marshal(e) }
	w := NewWebhook(srv.URL, enc)
	w.Backoff = 5 * time.Millisecond
	ev := Event{ID: "a", Finding: finding.New(finding.CheckpointFork, "checkpoint", "x")}
	w.Send(ev)
	ev.ID = "b"
	w.Send(ev)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	failed, dropped := w.Close(ctx)
	if len(failed) != 0 || dropped != 0 {
		t.Fatalf("failed %v dropped %d", failed, dropped)
	}
	if len(got) != 2 || got[0] != "a" || got[1] != "b" || calls.Load() != 4 {
		t.Fatalf("delivered %v in %d calls, want a and b after two refusals", got, calls.Load())
	}

	// A stalled receiver: Send must not block, and Close gives up at its
	// deadline.
	stall := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stall }))
	defer slow.Close()
	defer close(stall)
	w = NewWebhook(slow.URL, enc)
	start := time.Now()
	for i := 0; i < 2*webhookQueue; i++ {
		w.Send(ev)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Send blocked for %v", d)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	_, dropped = w.Close(ctx2)
	if dropped == 0 {
		t.Fatal("a full queue dropped nothing")
	}

	// 400: the receiver refuses this body; one try.
	var tries atomic.Int32
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries.Add(1)
		http.Error(w, "no", http.StatusBadRequest)
	}))
	defer bad.Close()
	w = NewWebhook(bad.URL, enc)
	w.Backoff = time.Millisecond
	w.Send(ev)
	failed, _ = w.Close(context.Background())
	if len(failed) != 1 || tries.Load() != 1 {
		t.Fatalf("400: failed %v after %d tries, want one failure after one try", failed, tries.Load())
	}
}
