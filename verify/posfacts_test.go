package verify

import (
	"math"
	"testing"
)

// Times are kept as offsets from a per-block base; every time must come
// back exactly, whatever its distance from the base.
func TestPosFactsTimesRoundTrip(t *testing.T) {
	t.Parallel()
	var p posFacts
	p.alloc(nil, 3*tsBlock)
	times := []uint64{1_700_000_000_000_000_000, 0, 1, math.MaxUint64, 1_700_000_000_000_000_000 + math.MaxInt32,
		1_700_000_000_000_000_000 + math.MaxInt32 + 1, 1_700_000_000_000_000_000 - 1<<31, 1_700_000_000_000_000_000 - 1<<31 - 1, 1 << 62}
	for block := uint64(0); block < 3; block++ {
		for i, ts := range times {
			pos := block*tsBlock + uint64(i)*7
			p.flags[pos] = pfHas
			p.setTS(pos, ts+block)
		}
	}
	for block := uint64(0); block < 3; block++ {
		for i, ts := range times {
			pos := block*tsBlock + uint64(i)*7
			if got := p.tsAt(pos); got != ts+block {
				t.Errorf("leaf %d: time %d came back as %d", pos, ts+block, got)
			}
		}
	}
	if len(p.wide) == 0 || len(p.wide) == 3*len(times) {
		t.Errorf("%d of %d times kept wide: the offsets are not exercised", len(p.wide), 3*len(times))
	}
}
