package tuisource

import (
	"runtime/debug"
	"sync"
)

// gcHold keeps the collector at loadGCPercent while any of its holders
// needs it: on a big store the load (riding on verification) and the
// analyses that follow it until the last of them ends. The pacing is the
// process's, so one count decides when the old value comes back.
type gcHold struct {
	mu   sync.Mutex
	n    int
	prev int
}

// hold paces the collector at loadGCPercent until the returned function
// is called.
func (h *gcHold) hold() (release func()) {
	h.mu.Lock()
	if h.n == 0 {
		h.prev = debug.SetGCPercent(loadGCPercent)
	}
	h.n++
	h.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.n--
			if h.n == 0 {
				debug.SetGCPercent(h.prev)
			}
			h.mu.Unlock()
		})
	}
}
