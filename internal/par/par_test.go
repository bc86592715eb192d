package par

import (
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{-1, 0, 1, 2, 7} {
		for _, n := range []int{0, 1, 3, 100} {
			counts := make([]atomic.Int32, n)
			Each(n, workers, func(i int) { counts[i].Add(1) })
			for i := range counts {
				if c := counts[i].Load(); c != 1 {
					t.Fatalf("workers %d n %d: index %d called %d times", workers, n, i, c)
				}
			}
		}
	}
}
