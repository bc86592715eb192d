package tlog

import (
	"bytes"
	"context"
	"fmt"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
)

// Problem is one disagreement found by Check.
type Problem struct {
	// Resource is the log-relative path of the file at fault (or the one
	// that could not be read), e.g. "tile/0/x001/234.p/7" or
	// "tile/entries/000"; "root" for the final root comparison.
	Resource string
	// Level is the hash tile level; -1 for entry bundles and the root.
	Level int
	// Index is the tile or bundle index.
	Index uint64
	// Width is the number of hashes or entries the tree uses from it
	// (256 for a full tile).
	Width int
	// Leaf is the first leaf index concerned, when HasLeaf.
	Leaf    uint64
	HasLeaf bool
	What    string
}

func (p Problem) String() string {
	if p.HasLeaf {
		return fmt.Sprintf("%s (leaf %d): %s", p.Resource, p.Leaf, p.What)
	}
	return fmt.Sprintf("%s: %s", p.Resource, p.What)
}

// maxNodeProblems caps per-tile reports; one flipped leaf otherwise only
// repeats itself.
const maxNodeProblems = 4

// Check recomputes the tree of the first size leaves from the entry
// bundles, compares every hash tile (full and partial) with the hashes it
// should hold, and the recomputed root with root. It keeps going after a
// problem and returns them all; the error is for bad arguments or a
// cancelled context.
func (r *Reader) Check(ctx context.Context, size uint64, root []byte) ([]Problem, error) {
	return r.CheckWith(ctx, size, root, nil)
}

// BundleFunc receives, in bundle order, the entries of each entry bundle
// Check read: the very bytes it hashed into the recomputed tree (err is set,
// and entries nil, for a bundle that could not be read).
type BundleFunc func(index uint64, entries [][]byte, err error)

// CheckWith is Check handing each bundle's entries to each as they are
// hashed (each may be nil). A caller that needs the leaves uses these
// instead of reading the bundles again: a server may answer a second read
// of the same bundle with other bytes, and only the bytes hashed here are
// the ones the root vouches for. each runs on Check's goroutine and may
// keep the slices.
func (r *Reader) CheckWith(ctx context.Context, size uint64, root []byte, each BundleFunc) ([]Problem, error) {
	if len(root) != HashSize {
		return nil, fmt.Errorf("check: root is %d bytes, want %d", len(root), HashSize)
	}
	if err := r.checkSize(size); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c := &checker{r: r, size: size, pending: map[[2]uint64][]byte{}}
	tree := rangeFactory.NewEmptyRange(0)
	numBundles := (size + layout.EntryBundleWidth - 1) / layout.EntryBundleWidth

	type fetched struct {
		index   uint64
		width   int
		entries [][]byte
		path    string
		err     error
	}
	// Read ahead on one goroutine while this one hashes.
	ch := make(chan fetched, 4)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(ch)
		for b := uint64(0); b < numBundles; b++ {
			w := widthAt(0, b, size)
			entries, path, err := r.bundleEntries(ctx, b, w)
			select {
			case ch <- fetched{b, w, entries, path, err}:
			case <-stop:
				return
			}
		}
	}()

	for f := range ch {
		if err := ctx.Err(); err != nil {
			return c.problems, err
		}
		// Fresh per bundle: the compact range may keep a leaf hash slice.
		leafHashes := make([]byte, 0, f.width*HashSize)
		first := f.index * layout.EntryBundleWidth
		if each != nil {
			each(f.index, f.entries, f.err)
		}
		if f.err == nil {
			for _, e := range f.entries {
				leafHashes = append(leafHashes, rfc6962.DefaultHasher.HashLeaf(e)...)
			}
			c.bundlePath = f.path
		} else {
			c.add(Problem{Resource: layout.EntriesPath(f.index, uint8(f.width%layout.EntryBundleWidth)), Level: -1, Index: f.index, Width: f.width, Leaf: first, HasLeaf: true, What: f.err.Error()})
			// Keep the upper levels checkable: stand in the stored leaf
			// hashes for the unreadable bundle.
			c.unreadable = true
			stored, err := r.tileHashes(ctx, 0, f.index, f.width)
			if err != nil {
				c.add(Problem{Resource: layout.TilePath(0, f.index, uint8(f.width%layout.TileWidth)), Level: 0, Index: f.index, Width: f.width, Leaf: first, HasLeaf: true,
					What: fmt.Sprintf("%v; neither the bundle nor its hash tile can be read, so the tree is not recomputed beyond leaf %d", err, first)})
				return c.problems, nil
			}
			leafHashes = append(leafHashes, stored...)
			c.bundlePath = ""
		}
		for i := 0; i < f.width; i++ {
			if err := tree.Append(leafHashes[i*HashSize:(i+1)*HashSize:(i+1)*HashSize], c.visit); err != nil {
				return c.problems, fmt.Errorf("check: appending leaf %d: %w", first+uint64(i), err)
			}
		}
		c.flushFull(ctx)
	}
	if err := ctx.Err(); err != nil {
		return c.problems, err
	}
	c.flushPartial(ctx)

	got := rfc6962.DefaultHasher.EmptyRoot()
	if size > 0 {
		var err error
		if got, err = tree.GetRootHash(nil); err != nil {
			return c.problems, fmt.Errorf("check: root: %w", err)
		}
	}
	if !bytes.Equal(got, root) {
		c.add(Problem{Resource: "root", Level: -1, What: fmt.Sprintf("root of %d leaves recomputed from the entry bundles is %x, expected %x", size, got, root)})
		return c.problems, nil
	}
	if !c.unreadable {
		r.repair(c.repairs)
	}
	return c.problems, nil
}

func widthAt(level, index, size uint64) int {
	if p := layout.PartialTileSize(level, index, size); p != 0 {
		return int(p)
	}
	return layout.TileWidth
}

type checker struct {
	r          *Reader
	size       uint64
	pending    map[[2]uint64][]byte // (tile level, tile index) -> recomputed hashes
	ready      [][2]uint64          // tiles completed by the last bundle
	bundlePath string               // bundle the current level-0 hashes came from ("" if stand-in)
	problems   []Problem
	// repairs holds the recomputed hashes of the stored tiles that
	// disagree with them, and unreadable is set when a bundle could not
	// be read (its stored hashes stood in): see Reader.repair.
	repairs    map[tileKey][]byte
	unreadable bool
}

func (c *checker) add(p Problem) { c.problems = append(c.problems, p) }

// visit collects the nodes that hash tiles store (every 8th level).
func (c *checker) visit(id compact.NodeID, h []byte) {
	if id.Level%layout.TileHeight != 0 {
		return
	}
	k := [2]uint64{uint64(id.Level / layout.TileHeight), id.Index / layout.TileWidth}
	c.pending[k] = append(c.pending[k], h...)
	if len(c.pending[k]) == layout.TileWidth*HashSize {
		c.ready = append(c.ready, k)
	}
}

func (c *checker) flushFull(ctx context.Context) {
	for _, k := range c.ready {
		c.compare(ctx, k[0], k[1], c.pending[k])
		delete(c.pending, k)
	}
	c.ready = c.ready[:0]
}

func (c *checker) flushPartial(ctx context.Context) {
	for level := uint64(0); ; level++ {
		idx := (c.size >> (level * layout.TileHeight)) / layout.TileWidth
		k := [2]uint64{level, idx}
		want, ok := c.pending[k]
		if !ok {
			if c.size>>(level*layout.TileHeight) < layout.TileWidth {
				return
			}
			continue
		}
		c.compare(ctx, level, idx, want)
		delete(c.pending, k)
	}
}

// compare checks one stored tile against the recomputed hashes.
func (c *checker) compare(ctx context.Context, level, index uint64, want []byte) {
	width := len(want) / HashSize
	path := layout.TilePath(level, index, uint8(width%layout.TileWidth))
	leavesPerNode := uint64(1) << (level * layout.TileHeight)
	firstLeaf := index * layout.TileWidth * leavesPerNode
	got, err := c.r.tileHashes(ctx, level, index, width)
	if err == nil && bytes.Equal(got, want) {
		return
	}
	if len(c.repairs) < maxRepairedTiles {
		if c.repairs == nil {
			c.repairs = map[tileKey][]byte{}
		}
		c.repairs[tileKey{level, index, width}] = bytes.Clone(want)
	}
	if err != nil {
		c.add(Problem{Resource: path, Level: int(level), Index: index, Width: width, Leaf: firstLeaf, HasLeaf: true, What: err.Error()})
		return
	}
	bad := 0
	for i := 0; i < width; i++ {
		g, w := got[i*HashSize:(i+1)*HashSize], want[i*HashSize:(i+1)*HashSize]
		if bytes.Equal(g, w) {
			continue
		}
		bad++
		if bad > maxNodeProblems {
			continue
		}
		leaf := firstLeaf + uint64(i)*leavesPerNode
		var what string
		if level == 0 && c.bundlePath != "" {
			what = fmt.Sprintf("hash %d is %x, but entry %d of %s hashes to %x", i, g, i, c.bundlePath, w)
			what += c.attributeLeafMismatch(ctx, index, got)
		} else {
			what = fmt.Sprintf("hash %d (leaves %d..%d) is %x, recomputed %x", i, leaf, leaf+leavesPerNode-1, g, w)
		}
		c.add(Problem{Resource: path, Level: int(level), Index: index, Width: width, Leaf: leaf, HasLeaf: true, What: what})
	}
	if bad > maxNodeProblems {
		c.add(Problem{Resource: path, Level: int(level), Index: index, Width: width, Leaf: firstLeaf, HasLeaf: true, What: fmt.Sprintf("%d more differing hashes in this tile not listed", bad-maxNodeProblems)})
	}
}

// attributeLeafMismatch says which side of a bundle/tile disagreement the
// rest of the stored tree supports, when that can be told: a full level-0
// tile's stored hashes either hash up to the stored level-1 node or not.
func (c *checker) attributeLeafMismatch(ctx context.Context, index uint64, stored []byte) string {
	if len(stored) != layout.TileWidth*HashSize {
		return ""
	}
	parentWidth := widthAt(1, index/layout.TileWidth, c.size)
	if int(index%layout.TileWidth) >= parentWidth {
		return ""
	}
	parent, err := c.r.tileHashes(ctx, 1, index/layout.TileWidth, parentWidth)
	if err != nil {
		return ""
	}
	up := expand(stored)
	top := rfc6962.DefaultHasher.HashChildren(up.node(layout.TileHeight-1, 0), up.node(layout.TileHeight-1, 1))
	slot := int(index % layout.TileWidth)
	if bytes.Equal(top, parent[slot*HashSize:(slot+1)*HashSize]) {
		return " (the stored tile agrees with the tile above it: the entry bundle differs from what was logged)"
	}
	return " (the stored tile does not hash up to the tile above it: the hash tile was altered)"
}
