package tuisource

import (
	"sync"

	"github.com/memscope/memscope/tui"
)

// leafChunk is how many leaves share one block of the leaf index.
const leafChunk = 1 << 16

// leafSlot is one leaf's claiming table and row.
type leafSlot struct {
	row  int32
	kind tui.LeafKind
}

// leafIndex says which table row claims each log leaf. Blocks are
// allocated when a leaf in them is first claimed, so opening a 10M-leaf
// log costs nothing before the first frame, and unclaimed stretches cost
// nothing at all.
type leafIndex struct {
	size   uint64
	mu     sync.RWMutex
	chunks [][]leafSlot // nil: no leaf in the block claimed yet
}

func newLeafIndex(size uint64) *leafIndex {
	return &leafIndex{size: size, chunks: make([][]leafSlot, (size+leafChunk-1)/leafChunk)}
}

// set records that row of the table behind kind claims leaf i (ignored
// past the log's size).
func (x *leafIndex) set(i int64, kind tui.LeafKind, row int) {
	if i < 0 || uint64(i) >= x.size {
		return
	}
	x.mu.Lock()
	c := &x.chunks[i/leafChunk]
	if *c == nil {
		*c = make([]leafSlot, leafChunk)
		for j := range *c {
			(*c)[j].kind = tui.LeafUnknown
		}
	}
	(*c)[i%leafChunk] = leafSlot{row: int32(row), kind: kind}
	x.mu.Unlock()
}

// get is leaf i's kind and row (LeafUnknown when no row claims it).
func (x *leafIndex) get(i int) (tui.LeafKind, int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if c := x.chunks[i/leafChunk]; c != nil {
		s := c[i%leafChunk]
		return s.kind, int(s.row)
	}
	return tui.LeafUnknown, 0
}
