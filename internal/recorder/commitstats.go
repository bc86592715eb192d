package recorder

import (
	"sync"
	"time"
)

// commitTimes keeps how long the snapshot's last commits took (from the
// commit's start to its WAL sync's return, as the group waited for them)
// and how long the syncs alone took, so a measurement can put the sync
// the recorder actually paid beside the latency it added, under the same
// load. Bounded: the last commitTimesKept commits.
type commitTimes struct {
	mu    sync.Mutex
	ring  [commitTimesKept]time.Duration
	syncs [commitTimesKept]time.Duration
	n     int
	jobs  int // committed by the commits since the last read
}

const commitTimesKept = 4096

func (c *commitTimes) add(commit, sync time.Duration, jobs int) {
	c.mu.Lock()
	c.ring[c.n%commitTimesKept] = commit
	c.syncs[c.n%commitTimesKept] = sync
	c.n++
	c.jobs += jobs
	c.mu.Unlock()
}

// CommitTimes returns, since the last call, how long each of the last
// commits (at most 4,096) took, from the commit's start to its sync's
// return, how long their WAL syncs alone took, and how many jobs
// (recorded calls) they committed in all: a measurement reads it around
// the calls it times.
func (r *Recorder) CommitTimes() (commits, syncs []time.Duration, jobs int) {
	c := &r.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	k := min(c.n, commitTimesKept)
	for i := c.n - k; i < c.n; i++ {
		commits = append(commits, c.ring[i%commitTimesKept])
		syncs = append(syncs, c.syncs[i%commitTimesKept])
	}
	c.n = 0
	jobs, c.jobs = c.jobs, 0
	return commits, syncs, jobs
}
