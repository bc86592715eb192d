package tlog

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
)

// defaultTileCacheSize bounds the cache: a full expanded tile is about
// 16 KiB, so 2048 tiles stay under 33 MiB.
const defaultTileCacheSize = 2048

type tileKey struct {
	level, index uint64
	width        int // number of hashes used at the tile's bottom row
}

// expandedTile holds every perfect subtree hash inside one hash tile:
// rows[0] are the stored hashes, rows[k] the nodes k levels above them.
type expandedTile struct {
	rows [layout.TileHeight][]byte
	// proven is the tree (size and root) this tile was proven part of by
	// CheckLeaf; nil until then.
	proven atomic.Pointer[provenTree]
}

type provenTree struct {
	size uint64
	root [HashSize]byte
}

func (t *expandedTile) provenIn(size uint64, root []byte) bool {
	p := t.proven.Load()
	return p != nil && p.size == size && bytes.Equal(p.root[:], root)
}

func (t *expandedTile) markProven(size uint64, root []byte) {
	p := &provenTree{size: size}
	copy(p.root[:], root)
	t.proven.Store(p)
}

func expand(bottom []byte) *expandedTile {
	t := &expandedTile{}
	t.rows[0] = bottom
	for k := 1; k < layout.TileHeight; k++ {
		below := t.rows[k-1]
		n := len(below) / HashSize / 2
		row := make([]byte, 0, n*HashSize)
		for i := 0; i < n; i++ {
			row = append(row, rfc6962.DefaultHasher.HashChildren(below[2*i*HashSize:(2*i+1)*HashSize], below[(2*i+1)*HashSize:(2*i+2)*HashSize])...)
		}
		t.rows[k] = row
	}
	return t
}

// node returns the hash at (level inside the tile, index in that row), or
// nil when the tile is too narrow to hold it.
func (t *expandedTile) node(level uint, index uint64) []byte {
	row := t.rows[level]
	end := (index + 1) * HashSize
	if end > uint64(len(row)) {
		return nil
	}
	return row[end-HashSize : end : end]
}

// tileCache is a bounded cache of expanded tiles. Eviction is arbitrary
// (map order): proofs touch few tiles, and the bound only guards memory.
type tileCache struct {
	mu    sync.Mutex
	max   int
	tiles map[tileKey]*expandedTile
}

func newTileCache(max int) *tileCache {
	return &tileCache{max: max, tiles: make(map[tileKey]*expandedTile)}
}

func (c *tileCache) get(ctx context.Context, k tileKey, fetch func(context.Context, uint64, uint64, int) ([]byte, error)) (*expandedTile, error) {
	c.mu.Lock()
	t, ok := c.tiles[k]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	raw, err := fetch(ctx, k.level, k.index, k.width)
	if err != nil {
		return nil, err
	}
	t = expand(raw)
	c.mu.Lock()
	for old := range c.tiles {
		if len(c.tiles) < c.max {
			break
		}
		delete(c.tiles, old)
	}
	c.tiles[k] = t
	c.mu.Unlock()
	return t, nil
}
