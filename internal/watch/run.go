package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// RunOnce runs one round for t with the state at statePath and hands each
// event to deliver, in order. The state is written before the events are
// delivered, with the events as pending, and again once they are: a kill
// at any moment loses no event (the next run delivers the pending ones
// first). A kill in the instant between delivering an event and
// recording that can repeat it; the event's id is stable, so a consumer
// can tell. The error is for a round that could not run; the state is then
// unchanged.
func RunOnce(ctx context.Context, t Target, statePath string, now time.Time, deliver func(Event) error) ([]Event, error) {
	st, err := LoadState(statePath)
	if err != nil {
		return nil, err
	}
	var out []Event
	if len(st.Pending) > 0 {
		for _, e := range st.Pending {
			if err := deliver(e); err != nil {
				return out, err
			}
			out = append(out, e)
		}
		st.Pending = nil
		if err := SaveState(statePath, st); err != nil {
			return out, err
		}
	}
	if st.Log != "" && canonicalLog(st.Log) != canonicalLog(t.Log) {
		return out, fmt.Errorf("state %s is for log %s, not %s", statePath, st.Log, t.Log)
	}
	evs, next, err := Round(ctx, t, st, now)
	if err != nil {
		return out, err
	}
	for i := range evs {
		next.Seq++
		evs[i].Seq = next.Seq
	}
	next.Pending = evs
	if err := SaveState(statePath, next); err != nil {
		return out, err
	}
	if len(evs) == 0 {
		return out, nil
	}
	for _, e := range evs {
		if err := deliver(e); err != nil {
			return out, err
		}
		out = append(out, e)
	}
	next.Pending = nil
	return out, SaveState(statePath, next)
}

// canonicalLog is a log location as the state compares it: a directory by
// its absolute path (a relative --log names the same log from anywhere),
// a URL as given.
func canonicalLog(loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return abs
	}
	return loc
}
