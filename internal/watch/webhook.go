package watch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Webhook POSTs error events to a URL from its own goroutine, so a slow or
// dead receiver never holds a round: Send only queues. Each event is tried
// a bounded number of times with a bounded wait; a full queue drops the
// event and counts it (the JSON lines on standard output still have it).
type Webhook struct {
	url     string
	encode  func(Event) ([]byte, error)
	client  *http.Client
	queue   chan Event
	done    chan struct{}
	mu      sync.Mutex
	dropped int
	failed  []string
	// Tries and Backoff bound the retries (tests shorten them).
	Tries   int
	Backoff time.Duration
}

// webhookQueue bounds the events waiting for the receiver.
const webhookQueue = 1024

// NewWebhook starts the sender. encode turns an event into the POST body
// (the caller's sanitised JSON).
func NewWebhook(url string, encode func(Event) ([]byte, error)) *Webhook {
	w := &Webhook{url: url, encode: encode, client: &http.Client{Timeout: 5 * time.Second},
		queue: make(chan Event, webhookQueue), done: make(chan struct{}), Tries: 3, Backoff: 500 * time.Millisecond}
	go w.loop()
	return w
}

// Send queues e; it never blocks.
func (w *Webhook) Send(e Event) {
	select {
	case w.queue <- e:
	default:
		w.mu.Lock()
		w.dropped++
		w.mu.Unlock()
	}
}

func (w *Webhook) loop() {
	defer close(w.done)
	for e := range w.queue {
		if err := w.post(e); err != nil {
			w.mu.Lock()
			w.failed = append(w.failed, fmt.Sprintf("event %s: %v", e.ID, err))
			w.mu.Unlock()
		}
	}
}

func (w *Webhook) post(e Event) error {
	body, err := w.encode(e)
	if err != nil {
		return err
	}
	var last error
	for try := 0; try < w.Tries; try++ {
		if try > 0 {
			time.Sleep(w.Backoff << (try - 1))
		}
		resp, err := w.client.Post(w.url, "application/json", bytes.NewReader(body))
		if err != nil {
			last = err
			continue
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		if resp.StatusCode/100 == 2 {
			return nil
		}
		last = fmt.Errorf("%s answered %s", w.url, resp.Status)
		if resp.StatusCode/100 == 4 && resp.StatusCode != http.StatusTooManyRequests {
			return last // the receiver refuses this body: retrying will not help
		}
	}
	return last
}

// Close stops taking events and waits, until ctx ends, for the queued ones
// to be sent. It returns the events that could not be delivered.
func (w *Webhook) Close(ctx context.Context) (failed []string, dropped int) {
	close(w.queue)
	select {
	case <-w.done:
	case <-ctx.Done():
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.failed...), w.dropped
}
