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

// maxRepairedTiles bounds the tiles Check may repair (8 KiB each, 32 MiB in
// all): past it, proofs use the stored tiles and fail where they are wrong.
const maxRepairedTiles = 4096

// repair replaces, for every later proof, the stored hash tiles that Check
// found wrong by the hashes it recomputed from the entry bundles. Check
// calls it only when those bundles hash up to the root it was asked to
// verify, so the recomputed hashes are the signed tree's: a record whose
// leaf is in an intact bundle is then proven included even when a stored
// tile above it was corrupted (the corruption itself is Check's problem
// report). Without this, one flipped hash fails the proof of every leaf
// whose path crosses it.
func (r *Reader) repair(tiles map[tileKey][]byte) {
	if len(tiles) == 0 {
		return
	}
	r.repairMu.Lock()
	if r.repaired == nil {
		r.repaired = map[tileKey][]byte{}
	}
	for k, h := range tiles {
		if len(r.repaired) >= maxRepairedTiles {
			break
		}
		r.repaired[k] = h
	}
	r.repairMu.Unlock()
	r.tiles.mu.Lock()
	for k := range tiles {
		delete(r.tiles.tiles, k)
	}
	r.tiles.mu.Unlock()
}

// provenTileHashes is tileHashes for proofs: a tile Check repaired is
// answered from its recomputed hashes.
func (r *Reader) provenTileHashes(ctx context.Context, level, index uint64, width int) ([]byte, error) {
	r.repairMu.Lock()
	h, ok := r.repaired[tileKey{level, index, width}]
	r.repairMu.Unlock()
	if ok {
		return h, nil
	}
	return r.tileHashes(ctx, level, index, width)
}
