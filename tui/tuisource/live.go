package tuisource

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/watch"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/tui"
)

// liveState is what Live keeps between polls: the record counts and the
// log's monitor state at open.
type liveState struct {
	mu     sync.Mutex
	base   map[string]int
	st     *watch.State
	errors []finding.Finding
}

// IsLive says whether a gateway is writing the store right now: memscope
// record holds an exclusive flock on record.lock beside the snapshot
// (internal/recorder, lock.go). The file is opened read-only and only a
// shared lock is tried, which changes nothing on disk; a copy handed to a
// responder has no lock held, and the inspector then polls nothing.
func IsLive(snapshot string) bool {
	f, err := os.Open(filepath.Join(filepath.Dir(snapshot), "record.lock"))
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return true // another process holds it exclusively: the gateway
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// Following implements tui.LiveSource: the snapshot is being written.
func (src *Source) Following() bool { return IsLive(src.s.Opts.Snapshot) }

// Live implements tui.LiveSource: the records added since the first call
// (counted through a read-only connection that reads the WAL) and the
// error events of a monitor round over the log (checkpoint signature,
// consistency with the checkpoint seen at the first call, every new leaf
// proved into the new root), as memscope watch reports them.
func (src *Source) Live(ctx context.Context) (tui.Live, error) {
	src.live.mu.Lock()
	defer src.live.mu.Unlock()
	o := src.s.Opts
	counts, err := loader.LiveCounts(ctx, o.Snapshot)
	if err != nil {
		return tui.Live{}, err
	}
	if src.live.base == nil {
		src.live.base = counts
	}
	var out tui.Live
	for t, n := range counts {
		out.NewRecords += n - src.live.base[t]
	}
	if o.Log != "" && o.LogKey != "" {
		if src.live.st == nil {
			src.live.st = &watch.State{Version: 1}
		}
		evs, next, err := watch.Round(ctx, watch.Target{Log: o.Log, LogKey: o.LogKey, TrustRoots: o.TrustRoots, LogOptions: o.LogOptions}, src.live.st, time.Now())
		if err != nil {
			return out, err
		}
		for _, e := range evs {
			if e.Severity == finding.SevError {
				src.live.errors = append(src.live.errors, e.Finding)
			}
		}
		src.live.st = next
		out.LogSize = next.Size
	}
	out.Errors = append([]finding.Finding(nil), src.live.errors...)
	return out, nil
}
