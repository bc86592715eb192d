package recorder

import (
	"sync"
	"time"
)

// commitTimes keeps how long the snapshot's last commits took (the WAL
// append and its fsync, as the committer waited for them), so a
// measurement can put the sync the recorder actually paid beside the
// latency it added, under the same load. Bounded: the last
// commitTimesKept commits.
type commitTimes struct {
	mu   sync.Mutex
	ring [commitTimesKept]time.Duration
	n    int
	jobs int // committed by the commits since the last read
}

const commitTimesKept = 4096

func (c *commitTimes) add(d time.Duration, jobs int) {
	c.mu.Lock()
	c.ring[c.n%commitTimesKept] = d
	c.n++
	c.jobs += jobs
	c.mu.Unlock()
}

// CommitTimes returns how long each of the last commits (at most 4,096)
// took, and how many jobs (recorded calls) they committed in all, since
// the last call: a measurement reads it around the calls it times.
func (r *Recorder) CommitTimes() (times []time.Duration, jobs int) {
	c := &r.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	k := min(c.n, commitTimesKept)
	for i := c.n - k; i < c.n; i++ {
		times = append(times, c.ring[i%commitTimesKept])
	}
	c.n = 0
	jobs, c.jobs = c.jobs, 0
	return times, jobs
}
