package recorder

import (
	"fmt"
	"time"
)

// Syncs off the committer. The committer's snapshot commit only appends
// the group's rows to the WAL (writer.Config.DeferSync); the group's sync
// runs in its own goroutine, and the committer goes on meanwhile: the
// jobs queued during the sync are inserted at once into the next
// transaction, which commits as the next group as soon as the sync
// returns. A call that arrives during a sync so waits for the sync, one
// append and its own sync, not also for the inserts of its group. Each
// sync's goroutine releases its group (or hands it to the log) only once
// the sync and every earlier group's release are done, so
// acknowledgements and log leaves keep the commit order, and no leaf
// reaches the log before its row is synced in the snapshot.

// maxSyncsInFlight is how many groups may be syncing at once. More than
// one overlaps the syncs themselves: on this 2-core machine under load
// that made two to three times as many commits for the same calls (each
// group committed as soon as the previous append returned, not after its
// sync), and the extra SQLite commits cost more CPU and latency than the
// overlap saved (docs/RECORD.md).
const maxSyncsInFlight = 1

// syncing is one committed group on its way to durability.
type syncing struct {
	jobs     []*job
	batch    *logBatch
	start    time.Time     // when the group's commit began
	prev     *syncing      // the group committed before, or nil
	released chan struct{} // closed once released (or failed)
}

// startSync starts the sync of what the snapshot committed so far; its
// goroutine then releases the group after the one before it.
func (r *Recorder) startSync(s *syncing) {
	s.released = make(chan struct{})
	s.prev, r.lastSync = r.lastSync, s
	r.syncWG.Add(1)
	r.syncsInFlight.Add(1)
	go func() {
		syncStart := time.Now()
		err := r.syncSnapshot()
		synced := time.Now()
		took := [2]time.Duration{synced.Sub(s.start), synced.Sub(syncStart)}
		r.syncsInFlight.Add(-1)
		select { // the committer may commit the next group now
		case r.syncDone <- struct{}{}:
		default:
		}
		if s.prev != nil {
			<-s.prev.released
			s.prev = nil // the chain must not hold every group ever synced
		}
		r.release(s, err, took)
		close(s.released)
		r.syncWG.Done()
	}()
}

// release acknowledges a synced group (AckSequenced) and hands its leaves
// to the log flusher; took is the commit's time with its sync, and the
// sync's alone.
func (r *Recorder) release(s *syncing, syncErr error, took [2]time.Duration) {
	if syncErr != nil {
		r.fail(fmt.Errorf("record: snapshot sync failed, recording stopped: %w", syncErr))
	}
	// After a failure nothing more is durable for certain, and later
	// groups were sequenced against the lost ones: none is acknowledged,
	// and no leaf of theirs goes to the log.
	if err := r.failed(); err != nil {
		release(s.jobs, err)
		return
	}
	if len(s.jobs) > 0 {
		r.commits.add(took[0], took[1], len(s.jobs))
	}
	if r.ack == AckSequenced {
		release(s.jobs, nil)
	} else {
		s.batch.jobs = s.jobs
	}
	r.sendBatch(s.batch)
}

// syncSnapshot syncs the snapshot's WAL (through syncHook in tests,
// which hold a sync back or fail it).
func (r *Recorder) syncSnapshot() error {
	if r.syncHook != nil {
		return r.syncHook()
	}
	return r.st.SyncWAL()
}

// awaitSynced waits until every group committed so far is synced and
// released or handed to the log.
func (r *Recorder) awaitSynced() { r.syncWG.Wait() }
