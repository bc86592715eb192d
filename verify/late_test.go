package verify

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// lateRecordsQuadratic is the check as it was: every record against every
// checkpoint the store saw, one result per (record, checkpoint) pair.
func lateRecordsQuadratic(cps []seenCheckpoint, pos, ts []uint64) map[int][]seenCheckpoint {
	out := map[int][]seenCheckpoint{}
	for _, cp := range cps {
		if cp.seenAt <= 0 {
			continue
		}
		for i := range pos {
			if pos[i] < cp.size && ts[i] > uint64(cp.seenAt) {
				out[i] = append(out[i], cp)
			}
		}
	}
	return out
}

// TestLateRecordsAgreesWithTheQuadraticCheck: on stores with thousands of
// checkpoints (sizes and seen_at drawn with ties, some never seen), the
// sorted sweep flags exactly the records the pairwise check flagged, names
// the earliest-seen of that record's checkpoints, and counts them all.
func TestLateRecordsAgreesWithTheQuadraticCheck(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 10))
		n := 500 + rng.IntN(5000)
		m := 1 + rng.IntN(3000)
		pos := make([]uint64, n) // non-decreasing, with repeats (records sharing a leaf)
		ts := make([]uint64, n)
		for i := range pos {
			if i > 0 {
				pos[i] = pos[i-1] + uint64(rng.IntN(3))
			}
			ts[i] = uint64(1000 + 10*i + rng.IntN(2000))
			if rng.IntN(50) == 0 {
				ts[i] = 1 << 62 // a timestamp in the future
			}
		}
		cps := make([]seenCheckpoint, m)
		for j := range cps {
			cps[j] = seenCheckpoint{seq: int64(j), size: uint64(rng.IntN(int(pos[n-1]) + 2)), seenAt: int64(500 + rng.IntN(10*n+2000))}
			switch rng.IntN(10) {
			case 0:
				cps[j].seenAt = 0 // not recorded: no bound
			case 1:
				cps[j].seenAt = cps[rng.IntN(j+1)].seenAt // a tie
			}
		}
		want := lateRecordsQuadratic(cps, pos, ts)
		got := lateRecords(cps, func(fn func(ref int, pos, ts uint64)) {
			for i := n - 1; i >= 0; i-- {
				fn(i, pos[i], ts[i])
			}
		})
		if len(got) != len(want) {
			t.Fatalf("seed %d (%d records, %d checkpoints): %d late records, the pairwise check finds %d", seed, n, m, len(got), len(want))
		}
		if len(want) == 0 {
			t.Fatalf("seed %d: no late record; the test checks nothing", seed)
		}
		for _, l := range got {
			pairs := want[l.ref]
			if len(pairs) == 0 {
				t.Fatalf("seed %d: record %d flagged, the pairwise check does not flag it", seed, l.ref)
			}
			first := slices.MinFunc(pairs, func(a, b seenCheckpoint) int {
				if a.seenAt != b.seenAt {
					return int(a.seenAt - b.seenAt)
				}
				return int(a.seq - b.seq)
			})
			if l.first != first || l.count != len(pairs) || l.pos != pos[l.ref] || l.ts != ts[l.ref] {
				t.Fatalf("seed %d: record %d: got checkpoint %+v of %d, want %+v of %d", seed, l.ref, l.first, l.count, first, len(pairs))
			}
		}
	}
}

// BenchmarkLateRecords1M is the check on 1M records and 100,000 seen
// checkpoints (the pairwise check would make 10^11 comparisons).
func BenchmarkLateRecords1M(b *testing.B) {
	const n, m = 1_000_000, 100_000
	rng := rand.New(rand.NewPCG(1, 1))
	cps := make([]seenCheckpoint, m)
	for j := range cps {
		cps[j] = seenCheckpoint{seq: int64(j), size: uint64(rng.IntN(n + 1)), seenAt: int64(1 + rng.IntN(2*n))}
	}
	for b.Loop() {
		lateRecords(cps, func(fn func(ref int, pos, ts uint64)) {
			for i := n - 1; i >= 0; i-- {
				fn(i, uint64(i), uint64(2*i))
			}
		})
	}
}
