package tlog

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
)

// Reader reads a tlog-tiles log from a directory or an http(s) URL. It
// never writes: files are only opened for reading, no locks are taken.
// A Reader is safe for concurrent use.
type Reader struct {
	location string // as given to Open, for error messages
	base     string // directory or URL prefix ending in "/"

	readCheckpoint func(context.Context) ([]byte, error)
	readTile       func(ctx context.Context, level, index uint64, p uint8) ([]byte, error)
	readBundle     func(ctx context.Context, index uint64, p uint8) ([]byte, error)

	checkpoint    []byte
	published     Checkpoint // parsed without verifiers; valid if checkpointErr == nil
	checkpointErr error
	bundleWorkers uint
	tiles         *tileCache
	seen          *fingerprints // what each tile and bundle read answered
	deadline      time.Time     // Options.Deadline of an HTTP log
	repairMu      sync.Mutex
	repaired      map[tileKey][]byte // see repair
}

// Leaf is one log entry with its index. Data is not reused by the reader
// and may be kept.
type Leaf struct {
	Index uint64
	Data  []byte
}

// Open prepares reading the log at location: a directory path, or an
// http:// or https:// URL serving the same layout. The published checkpoint
// is read once, here; a malformed checkpoint does not stop Open (the log can
// still be checked against sizes and roots from elsewhere), see
// PublishedCheckpoint.
func Open(ctx context.Context, location string) (*Reader, error) {
	return OpenWith(ctx, location, Options{})
}

// OpenWith is Open with explicit limits and permissions (see Options).
// Every resource is read with a byte cap; a directory's files must be
// regular files inside it; HTTP reads have connect, header, idle and total
// time limits and refuse cross-origin redirects unless allowed.
func OpenWith(ctx context.Context, location string, o Options) (*Reader, error) {
	tiles := defaultTileCacheSize
	if o.TileCache > 0 {
		tiles = o.TileCache
	}
	r := &Reader{location: location, tiles: newTileCache(tiles), seen: newFingerprints()}
	if strings.HasPrefix(location, "http://") || strings.HasPrefix(location, "https://") {
		u, err := url.Parse(location)
		if err != nil {
			return nil, fmt.Errorf("tlog.Open: bad URL %q: %w", location, err)
		}
		f := newHTTPFetcher(u, o)
		r.deadline = o.Deadline
		r.base = strings.TrimSuffix(location, "/") + "/"
		r.readCheckpoint, r.readTile, r.readBundle = f.checkpoint, f.tile, f.bundle
		r.bundleWorkers = 8 // hide network latency
	} else {
		st, err := os.Stat(location)
		if err != nil {
			return nil, fmt.Errorf("tlog.Open: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("tlog.Open: %s is not a directory", location)
		}
		f, err := newDirFetcher(location)
		if err != nil {
			return nil, fmt.Errorf("tlog.Open: %w", err)
		}
		r.base = strings.TrimSuffix(location, string(filepath.Separator)) + string(filepath.Separator)
		r.readCheckpoint, r.readTile, r.readBundle = f.checkpoint, f.tile, f.bundle
		r.bundleWorkers = 2
	}
	cp, err := r.readCheckpoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("tlog.Open: reading %s: %w", r.where(layout.CheckpointPath), err)
	}
	r.checkpoint = cp
	r.published, r.checkpointErr = ParseCheckpoint(cp)
	if r.checkpointErr != nil {
		r.checkpointErr = fmt.Errorf("%s: %w", r.where(layout.CheckpointPath), r.checkpointErr)
	}
	return r, nil
}

// where names a resource of the log for messages: a file path or a URL.
func (r *Reader) where(rel string) string {
	if strings.HasSuffix(r.base, "/") && strings.Contains(r.base, "://") {
		return r.base + rel
	}
	return r.base + filepath.FromSlash(rel)
}

// Checkpoint returns the raw bytes of the published checkpoint as read by Open.
func (r *Reader) Checkpoint(ctx context.Context) ([]byte, error) {
	return append([]byte(nil), r.checkpoint...), nil
}

// PublishedCheckpoint returns the published checkpoint parsed without any
// verifier (so its Status is Unanchored at best), or why it did not parse.
func (r *Reader) PublishedCheckpoint() (Checkpoint, error) {
	return r.published, r.checkpointErr
}

// Size is the size of the published checkpoint.
func (r *Reader) Size() (uint64, error) {
	if r.checkpointErr != nil {
		return 0, r.checkpointErr
	}
	return r.published.Size, nil
}

// checkSize rejects sizes past the published checkpoint: there are no
// tiles for them, so any answer would be a guess.
func (r *Reader) checkSize(size uint64) error {
	if r.checkpointErr == nil && size > r.published.Size {
		return fmt.Errorf("tree size %d is larger than the published checkpoint size %d", size, r.published.Size)
	}
	return nil
}

// tileHashes returns the first width hashes of hash tile (level, index),
// exactly width*32 bytes. It reads the partial tile for that width, else the
// full tile, else the partial tile of the published size (an append-only
// log's larger tile starts with the smaller one), trimming as needed.
func (r *Reader) tileHashes(ctx context.Context, level, index uint64, width int) ([]byte, error) {
	p := uint8(width % layout.TileWidth)
	readP := p
	raw, err := r.readTile(ctx, level, index, p)
	if errors.Is(err, os.ErrNotExist) && p != 0 && r.checkpointErr == nil {
		if fp := layout.PartialTileSize(level, index, r.published.Size); fp > p {
			readP = fp
			raw, err = r.readTile(ctx, level, index, fp)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("hash tile %s: %w", layout.TilePath(level, index, p), err)
	}
	// The bytes came from the partial file asked for or, by fallback, the
	// full tile: exactly one of these two lengths is acceptable.
	path := layout.TilePath(level, index, readP)
	want := int(readP)
	if want == 0 {
		want = layout.TileWidth
	}
	if len(raw) != want*HashSize && len(raw) != layout.TileWidth*HashSize {
		if len(raw)%HashSize != 0 {
			return nil, fmt.Errorf("hash tile %s: %d bytes, not a multiple of %d (truncated or padded)", r.where(path), len(raw), HashSize)
		}
		return nil, fmt.Errorf("hash tile %s: holds %d hashes, tree needs %d (truncated or padded)", r.where(path), len(raw)/HashSize, want)
	}
	used := raw[:width*HashSize]
	r.seen.remember(resourceKey{int(level), index, width}, used)
	return used, nil
}

// bundleEntries returns the first width entries of entry bundle index,
// with the same fallbacks as tileHashes.
func (r *Reader) bundleEntries(ctx context.Context, index uint64, width int) ([][]byte, string, error) {
	entries, path, _, err := r.bundle(ctx, index, width)
	return entries, path, err
}

// bundle is bundleEntries also returning the raw bytes read.
func (r *Reader) bundle(ctx context.Context, index uint64, width int) ([][]byte, string, []byte, error) {
	p := uint8(width % layout.EntryBundleWidth)
	readP := p
	raw, err := r.readBundle(ctx, index, p)
	if errors.Is(err, os.ErrNotExist) && p != 0 && r.checkpointErr == nil {
		if fp := layout.PartialTileSize(0, index, r.published.Size); fp > p {
			readP = fp
			raw, err = r.readBundle(ctx, index, fp)
		}
	}
	path := layout.EntriesPath(index, readP)
	if err != nil {
		return nil, path, nil, fmt.Errorf("entry bundle %s: %w", layout.EntriesPath(index, p), err)
	}
	entries, err := splitBundle(raw, index)
	if err != nil {
		return nil, path, nil, fmt.Errorf("entry bundle %s: %w", r.where(path), err)
	}
	// As for tiles: the partial file asked for, or the full bundle.
	want := int(readP)
	if want == 0 {
		want = layout.EntryBundleWidth
	}
	if len(entries) != want && len(entries) != layout.EntryBundleWidth {
		first := index*layout.EntryBundleWidth + uint64(min(len(entries), want))
		return nil, path, nil, fmt.Errorf("entry bundle %s: holds %d entries, its name says %d (leaf %d onwards missing or extra)", r.where(path), len(entries), want, first)
	}
	entries = entries[:width]
	r.seen.remember(resourceKey{-1, index, width}, bundlePrefix(raw, entries))
	return entries, path, raw, nil
}

// splitBundle parses a tlog-tiles entry bundle (2-byte big-endian length,
// then data, repeated). Unlike a lenient parser it names the leaf index
// where the bytes stop making sense.
func splitBundle(raw []byte, bundleIndex uint64) ([][]byte, error) {
	var out [][]byte
	for off := 0; off < len(raw); {
		leaf := bundleIndex*layout.EntryBundleWidth + uint64(len(out))
		if len(out) == layout.EntryBundleWidth {
			return nil, fmt.Errorf("%d trailing bytes at offset %d after %d entries", len(raw)-off, off, len(out))
		}
		if off+2 > len(raw) {
			return nil, fmt.Errorf("leaf %d: length prefix cut off at offset %d", leaf, off)
		}
		n := int(binary.BigEndian.Uint16(raw[off:]))
		if off+2+n > len(raw) {
			return nil, fmt.Errorf("leaf %d: length %d at offset %d runs past the end (%d bytes)", leaf, n, off, len(raw))
		}
		out = append(out, raw[off+2:off+2+n])
		off += 2 + n
	}
	return out, nil
}

// Leaves streams leaves [from, to) in order. Bundles are read ahead by a
// few workers only, so memory stays bounded whatever the log size. The
// iteration stops after the first error, which names the bundle and leaf.
func (r *Reader) Leaves(ctx context.Context, from, to uint64) iter.Seq2[Leaf, error] {
	return func(yield func(Leaf, error) bool) {
		if to < from {
			yield(Leaf{}, fmt.Errorf("leaves [%d, %d): empty or reversed range", from, to))
			return
		}
		if err := r.checkSize(to); err != nil {
			yield(Leaf{}, fmt.Errorf("leaves [%d, %d): %w", from, to, err))
			return
		}
		if to == from {
			return
		}
		getSize := func(context.Context) (uint64, error) { return to, nil }
		// Validate in the read-ahead workers so errors name the file; the
		// consumer below re-splits the validated bytes (slicing only).
		fetch := func(ctx context.Context, index uint64, p uint8) ([]byte, error) {
			width := int(p)
			if width == 0 {
				width = layout.EntryBundleWidth
			}
			_, _, raw, err := r.bundle(ctx, index, width)
			return raw, err
		}
		for b, err := range client.EntryBundles(ctx, r.bundleWorkers, getSize, fetch, from, to-from) {
			if err != nil {
				yield(Leaf{}, err)
				return
			}
			entries, err := splitBundle(b.Data, b.RangeInfo.Index)
			if err != nil || uint(len(entries)) < b.RangeInfo.First+b.RangeInfo.N {
				yield(Leaf{}, fmt.Errorf("entry bundle %d: changed while reading", b.RangeInfo.Index))
				return
			}
			first := b.RangeInfo.Index*layout.EntryBundleWidth + uint64(b.RangeInfo.First)
			for i := uint(0); i < b.RangeInfo.N; i++ {
				if !yield(Leaf{Index: first + uint64(i), Data: entries[b.RangeInfo.First+i]}, nil) {
					return
				}
			}
		}
	}
}

// node returns the hash of the perfect subtree id in a tree of size leaves.
func (r *Reader) node(ctx context.Context, id compact.NodeID, size uint64) ([]byte, error) {
	tLevel, tIndex, nLevel, nIndex := layout.NodeCoordsToTileAddress(uint64(id.Level), id.Index)
	width := int(layout.PartialTileSize(tLevel, tIndex, size))
	if width == 0 {
		width = layout.TileWidth
	}
	t, err := r.tiles.get(ctx, tileKey{tLevel, tIndex, width}, r.provenTileHashes)
	if err != nil {
		return nil, err
	}
	h := t.node(nLevel, nIndex)
	if h == nil {
		return nil, fmt.Errorf("node level %d index %d is not in %s (width %d)", id.Level, id.Index, layout.TilePath(tLevel, tIndex, uint8(width%layout.TileWidth)), width)
	}
	return h, nil
}

// RootAt returns the RFC 6962 root of the first size leaves, from the tiles.
func (r *Reader) RootAt(ctx context.Context, size uint64) ([]byte, error) {
	if err := r.checkSize(size); err != nil {
		return nil, fmt.Errorf("root at %d: %w", size, err)
	}
	if size == 0 {
		return rfc6962.DefaultHasher.EmptyRoot(), nil
	}
	ids := compact.RangeNodes(0, size, nil)
	hashes := make([][]byte, len(ids))
	for i, id := range ids {
		h, err := r.node(ctx, id, size)
		if err != nil {
			return nil, fmt.Errorf("root at %d: %w", size, err)
		}
		hashes[i] = h
	}
	rng, err := rangeFactory.NewRange(0, size, hashes)
	if err != nil {
		return nil, fmt.Errorf("root at %d: %w", size, err)
	}
	return rng.GetRootHash(nil)
}

// InclusionProof returns the RFC 6962 inclusion proof of leaf index in the
// tree of the first size leaves.
//
// Proofs are built like tessera's client.ProofBuilder (the same node list
// from merkle/proof, the same tiles) but node hashes come from a cache of
// fully expanded tiles, so a repeated proof costs lookups, not rehashing.
// The tests check the result against client.ProofBuilder.
func (r *Reader) InclusionProof(ctx context.Context, index, size uint64) ([][]byte, error) {
	if index >= size {
		return nil, fmt.Errorf("inclusion proof: leaf %d is not in a tree of size %d", index, size)
	}
	if err := r.checkSize(size); err != nil {
		return nil, fmt.Errorf("inclusion proof of leaf %d: %w", index, err)
	}
	nodes, err := proof.Inclusion(index, size)
	if err != nil {
		return nil, fmt.Errorf("inclusion proof of leaf %d at size %d: %w", index, size, err)
	}
	p, err := r.fetchProof(ctx, nodes, size)
	if err != nil {
		return nil, fmt.Errorf("inclusion proof of leaf %d at size %d: %w", index, size, err)
	}
	return p, nil
}

// ConsistencyProof returns the RFC 6962 consistency proof between the trees
// of the first smaller and larger leaves.
func (r *Reader) ConsistencyProof(ctx context.Context, smaller, larger uint64) ([][]byte, error) {
	if err := checkConsistencySizes(smaller, larger); err != nil {
		return nil, err
	}
	if err := r.checkSize(larger); err != nil {
		return nil, fmt.Errorf("consistency proof %d -> %d: %w", smaller, larger, err)
	}
	nodes, err := proof.Consistency(smaller, larger)
	if err != nil {
		return nil, fmt.Errorf("consistency proof %d -> %d: %w", smaller, larger, err)
	}
	p, err := r.fetchProof(ctx, nodes, larger)
	if err != nil {
		return nil, fmt.Errorf("consistency proof %d -> %d: %w", smaller, larger, err)
	}
	return p, nil
}

func (r *Reader) fetchProof(ctx context.Context, nodes proof.Nodes, size uint64) ([][]byte, error) {
	hashes := make([][]byte, len(nodes.IDs))
	for i, id := range nodes.IDs {
		h, err := r.node(ctx, id, size)
		if err != nil {
			return nil, err
		}
		hashes[i] = h
	}
	return nodes.Rehash(hashes, rfc6962.DefaultHasher.HashChildren)
}

var rangeFactory = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
