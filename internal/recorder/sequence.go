package recorder

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
)

// The sequencer: a job's function runs in its caller's goroutine under
// seqMu, which makes the jobs' lookups, index changes, record times and
// queue places one total order. Its lookups must see every job sequenced
// before it, but the snapshot has only what the committer committed: the
// overlay holds what jobs sequenced and not yet committed have declared,
// recorded or deleted, and the committer drops a job's keys from it once
// the job's group is committed (committed). A lookup asks the overlay
// first and the snapshot's committed state (rdb) after, so whichever of
// the two holds a fact, it is found.

// entryFacts is what lookups read of an entry recorded by a job not yet
// committed: its item key, trust and what a tombstone of it carries.
type entryFacts struct {
	hsrc    [32]byte
	trust   record.Trust
	writer  string
	parents []record.ID
	weights []float64
}

// overlay is what sequenced jobs not yet committed have done.
type overlay struct {
	nodes   map[string]bool // entity nodes declared
	entries map[record.ID]entryFacts
	deleted map[record.ID]bool // entries tombstoned
}

// overlayKeys are one job's additions to the overlay.
type overlayKeys struct {
	nodes   []string
	entries []record.ID
	deleted []record.ID
}

func newOverlay() overlay {
	return overlay{nodes: map[string]bool{}, entries: map[record.ID]entryFacts{}, deleted: map[record.ID]bool{}}
}

// openCommitted opens the snapshot read-only, a second connection beside
// the writer's: in WAL mode it reads the last committed state without
// waiting for the writer.
func openCommitted(dir string) (*sql.DB, error) {
	abs, err := filepath.Abs(filepath.Join(dir, evidence.SnapshotFile))
	if err != nil {
		return nil, err
	}
	dsn := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&_pragma=busy_timeout(5000)"}
	db, err := sql.Open("sqlite", dsn.String())
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// sequence runs fn for job j under the sequencing lock and queues the job
// for the committer in the same critical section, so queue order is the
// order of the records' times. An error means j was not queued.
func (r *Recorder) sequence(j *job, fn func(*Tx) error) error {
	r.seqMu.Lock()
	defer r.seqMu.Unlock()
	if r.closed {
		return errors.New("record: the recorder is closed")
	}
	if err := r.failed(); err != nil {
		return err
	}
	j.err = fn(&Tx{r: r, j: j})
	r.qmu.Lock()
	r.queue = append(r.queue, j)
	r.qmu.Unlock()
	r.wake()
	return nil
}

// wake tells the committer the queue changed (without waiting).
func (r *Recorder) wake() {
	select {
	case r.qwake <- struct{}{}:
	default:
	}
}

// take removes up to max jobs from the head of the queue; closed says
// the recorder is closing (the committer stops once the queue is empty).
func (r *Recorder) take(max int) (jobs []*job, closed bool) {
	r.qmu.Lock()
	defer r.qmu.Unlock()
	n := min(len(r.queue), max)
	jobs = append(jobs, r.queue[:n]...)
	r.queue = append(r.queue[:0], r.queue[n:]...)
	return jobs, r.qclosed
}

// committed runs after a group's commit: what its jobs added to the
// overlay is in the snapshot now (or the recorder failed, and nothing
// more is sequenced). The item index's transaction ends here too, so its
// page cache does not hold a whole run's changes.
func (r *Recorder) committed(group []*job) {
	r.seqMu.Lock()
	defer r.seqMu.Unlock()
	for _, j := range group {
		for _, n := range j.keys.nodes {
			delete(r.pending.nodes, n)
		}
		for _, id := range j.keys.entries {
			delete(r.pending.entries, id)
		}
		for _, id := range j.keys.deleted {
			delete(r.pending.deleted, id)
		}
	}
	if r.failed() == nil {
		if err := r.ix.commit(); err != nil {
			r.fail(fmt.Errorf("record: item index failed, recording stopped: %w", err))
		}
	}
}

// Lookups for a job being sequenced (seqMu held): the overlay, then the
// snapshot's committed state.

// hasNode says whether node id is declared.
func (t *Tx) hasNode(id string) (bool, error) {
	if t.r.pending.nodes[id] {
		return true, nil
	}
	return t.committedRow("SELECT 1 FROM nodes WHERE id = ?", id)
}

// isLive says whether an entry is live, as liveEntry does without reading
// and decoding its record.
func (t *Tx) isLive(id record.ID) (bool, error) {
	if t.r.pending.deleted[id] {
		return false, nil
	}
	if _, ok := t.r.pending.entries[id]; ok {
		return true, nil
	}
	return t.committedRow("SELECT 1 FROM entries WHERE eid = ?", id.String())
}

// committedRow says whether query (SELECT 1 ...) finds a row in the
// snapshot's committed state.
func (t *Tx) committedRow(query string, arg any) (bool, error) {
	var one int
	switch err := t.r.rdb.QueryRow(query, arg).Scan(&one); {
	case err == nil:
		return true, nil
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	default:
		return false, err
	}
}

// liveEntry returns what is known of a live entry; ok is false for an
// entry that is not live (never recorded, or tombstoned).
func (t *Tx) liveEntry(id record.ID) (f entryFacts, ok bool, err error) {
	if t.r.pending.deleted[id] {
		return f, false, nil
	}
	if f, ok := t.r.pending.entries[id]; ok {
		return f, true, nil
	}
	var raw []byte
	switch err := t.r.rdb.QueryRow("SELECT record FROM entries WHERE eid = ?", id.String()).Scan(&raw); {
	case errors.Is(err, sql.ErrNoRows):
		return f, false, nil
	case err != nil:
		return f, false, err
	}
	e, err := record.DecodeEntry(raw)
	if err != nil {
		return f, false, fmt.Errorf("record: entry %s in the snapshot: %w", id, err)
	}
	return entryFacts{hsrc: e.HSrc, trust: e.Trust, writer: e.Writer, parents: e.Parents, weights: e.Weights}, true, nil
}

// entryTrust is a live entry's recorded trust, read from its row's
// decoded column (not from the record: a read needs no decoding).
func (t *Tx) entryTrust(id record.ID) (record.Trust, bool) {
	if t.r.pending.deleted[id] {
		return 0, false
	}
	if f, ok := t.r.pending.entries[id]; ok {
		return f.trust, true
	}
	var tr int
	if err := t.r.rdb.QueryRow("SELECT trust FROM entries WHERE eid = ?", id.String()).Scan(&tr); err != nil || tr < 0 || tr > int(record.External) {
		return 0, false
	}
	return record.Trust(tr), true
}

// prepare adds a record to the job: sign runs in the caller after
// sequencing, add (given what sign returned) in the committer.
func prepare[S any](t *Tx, sign func() (S, error), add func(S) error) {
	var signed S
	t.j.recs = append(t.j.recs, prepared{sign: func() (err error) {
		signed, err = sign()
		return err
	}, insert: func() error { return add(signed) }})
}
