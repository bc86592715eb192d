package watch

import (
	"context"
	"sync"
	"time"
)

// Job is one log of a round with its state file.
type Job struct {
	Target Target
	State  string
}

// JobResult is what one job's round gave.
type JobResult struct {
	Job    Job
	Events []Event
	Err    error
}

// RunJobs runs one round of every job on at most workers goroutines and
// returns the results in the jobs' order. deliver is called for every
// event, from several goroutines: it must serialise its own output.
func RunJobs(ctx context.Context, jobs []Job, workers int, now time.Time, deliver func(Event) error) []JobResult {
	out := make([]JobResult, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(max(workers, 1), len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				evs, err := RunOnce(ctx, jobs[i].Target, jobs[i].State, now, deliver)
				out[i] = JobResult{Job: jobs[i], Events: evs, Err: err}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
