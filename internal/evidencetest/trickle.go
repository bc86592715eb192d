package evidencetest

import (
	"net/http"
	"time"
)

// Trickle is an HTTP handler that answers with one byte every interval,
// forever (until the client goes away): a server that stays inside every
// idle limit and yet never finishes a response.
func Trickle(every time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(every):
			case <-r.Context().Done():
				return
			}
		}
	}
}
