package assemble

import (
	"context"
	"sync"
	"testing"
)

// Two concurrent Verify calls share one run: both get the same report.
// (Before, each saw no cached report and ran verify on its own.) Run with
// -race.
func TestVerifyRunsOnceWhenCalledConcurrently(t *testing.T) {
	t.Parallel()
	s, _ := open(t, "clean")
	var wg sync.WaitGroup
	reps := make([]any, 4)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := s.Verify(context.Background(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			reps[i] = rep
		}()
	}
	wg.Wait()
	for i := 1; i < len(reps); i++ {
		if reps[i] != reps[0] {
			t.Fatalf("call %d got a report of its own: verification ran more than once", i)
		}
	}
	// A waiter whose context ends stops waiting; a later call still gets
	// the cached report.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := s.Verify(ctx, nil); err != nil || rep != reps[0] {
		t.Errorf("cached report after the run: %p %v", rep, err)
	}
}

// Index and RowOf may be called while Load publishes the lineage graph;
// -race flags an unsynchronised read.
func TestIndexWhileLoading(t *testing.T) {
	t.Parallel()
	s, _ := openUnloaded(t, "sleeper")
	done := make(chan error, 1)
	go func() { done <- s.Load(context.Background(), nil) }()
	id := ""
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if id == "" {
				id = s.EntryAt(0).ID
			}
			row, ok := s.Index(id)
			if !ok || s.EntryAt(row).ID != id {
				t.Fatalf("Index(%s) = %d, %v after Load", id, row, ok)
			}
			j, _ := s.Lineage.Index(id)
			if s.RowOf(j) != row {
				t.Fatalf("RowOf disagrees with Index")
			}
			return
		default:
			if s.Loaded() > 0 && id == "" {
				id = s.EntryAt(0).ID
			}
			if id != "" {
				if row, ok := s.Index(id); ok && s.RowOf(0) < 0 {
					t.Fatalf("row %d", row)
				}
			}
		}
	}
}
