// Package ctxtest has a context for tests of cancellation: it is cancelled
// at a chosen check, so a test can stop a computation at a deterministic
// point (mid-solve, mid-search, mid-draw) and count the checks made after.
package ctxtest

import (
	"context"
	"sync"
	"time"
)

// Tripwire is a context whose Err is nil for the first After calls and
// context.Canceled from then on (Done closes at that call). Calls counts
// every Err call, before and after the trip.
type Tripwire struct {
	After int64 // Err calls answered nil; negative: never trips
	// OnTrip, when set, runs once, at the call that trips (for example to
	// note how much work was done by then).
	OnTrip func()

	mu    sync.Mutex
	calls int64
	done  chan struct{}
}

// New returns a Tripwire that trips at Err call after+1.
func New(after int64) *Tripwire {
	return &Tripwire{After: after, done: make(chan struct{})}
}

// Err implements context.Context.
func (t *Tripwire) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls++
	if t.After >= 0 && t.calls > t.After {
		select {
		case <-t.done:
		default:
			close(t.done)
			if t.OnTrip != nil {
				t.OnTrip()
			}
		}
		return context.Canceled
	}
	return nil
}

// Calls returns how many times Err was called.
func (t *Tripwire) Calls() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls
}

// AfterTrip returns how many Err calls came after the one that tripped
// (0 when it has not tripped): the checks a computation made once it had
// been told to stop.
func (t *Tripwire) AfterTrip() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.After < 0 || t.calls <= t.After {
		return 0
	}
	return t.calls - t.After - 1
}

// Done implements context.Context.
func (t *Tripwire) Done() <-chan struct{} { return t.done }

// Deadline implements context.Context: none.
func (t *Tripwire) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value implements context.Context: none.
func (t *Tripwire) Value(any) any { return nil }
