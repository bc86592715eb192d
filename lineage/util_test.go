package lineage

import (
	"fmt"
	"math/rand/v2"
)

// idFor makes a canonical-looking UUID text from an index.
func idFor(i int) string {
	return fmt.Sprintf("00000000-0000-7000-8000-%012x", i)
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }
