package recorder

import (
	"fmt"
	"time"
)

// Overlapping syncs. The committer's snapshot commit only appends the
// group's rows to the WAL (writer.Config.DeferSync); the group's sync
// runs in its own goroutine, and the committer goes on to the next
// group's inserts and append meanwhile, whose sync starts as soon as that
// append returns, while the first may still run. A call that arrives
// during a sync so waits for about one append and sync of its own, not
// for the rest of the sync in flight and then its own. The releaser takes
// the groups in commit order and releases each (or hands it to the log)
// only once its sync and every earlier group's have returned, so
// acknowledgements and log leaves keep the commit order, and no leaf
// reaches the log before its row is synced in the snapshot.

// maxSyncsInFlight bounds the groups committed and not yet synced: past
// it the committer waits, so a disk that stalls stalls the recorder
// rather than piling up goroutines.
const maxSyncsInFlight = 1

// syncing is one committed group on its way to durability.
type syncing struct {
	jobs   []*job
	batch  *logBatch
	start  time.Time     // when the group's commit began
	synced chan struct{} // closed once its sync returned
	took   time.Duration // from the commit's start to the sync's return
	err    error
}

// startSync starts the sync of what the snapshot committed so far and
// queues it for the releaser (waiting while maxSyncsInFlight syncs run).
func (r *Recorder) startSync(s *syncing) {
	s.synced = make(chan struct{})
	r.syncWG.Add(1)
	r.syncsInFlight.Add(1)
	r.syncq <- s
	go func() {
		s.err = r.st.SyncWAL()
		s.took = time.Since(s.start)
		close(s.synced)
		r.syncsInFlight.Add(-1)
		select {
		case r.syncDone <- struct{}{}:
		default:
		}
	}()
}

// releaser releases the synced groups in commit order, for the life of
// the recorder (until syncq closes).
func (r *Recorder) releaser() {
	for s := range r.syncq {
		<-s.synced
		if s.err != nil {
			r.fail(fmt.Errorf("record: snapshot sync failed, recording stopped: %w", s.err))
		}
		// After a failure nothing more is durable for certain, and later
		// groups were sequenced against the lost ones: none is
		// acknowledged, and no leaf of theirs goes to the log.
		if err := r.failed(); err != nil {
			release(s.jobs, err)
			r.syncWG.Done()
			continue
		}
		if len(s.jobs) > 0 {
			r.commits.add(s.took, len(s.jobs))
		}
		if r.ack == AckSequenced {
			release(s.jobs, nil)
		} else {
			s.batch.jobs = s.jobs
		}
		r.sendBatch(s.batch)
		r.syncWG.Done()
	}
}

// awaitSynced waits until every group committed so far is synced and
// released or handed to the log.
func (r *Recorder) awaitSynced() { r.syncWG.Wait() }
