// Package appender writes memscope's Merkle log: a fresh C2SP tlog-tiles
// log appended with Tessera's POSIX driver. It is the write half of package
// tlog (which reads, proves and checks logs), split the way Tessera splits
// its storage drivers from its client, so that the read path never links
// Tessera's storage.
//
// Leaves are opaque byte strings here; the record format lives elsewhere.
package appender

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	f_log "github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"
)

const (
	// submitChunk is how many leaves are handed to Tessera at a time. It is
	// also Tessera's batch size, so a full chunk is flushed by size, at
	// once, from the appending goroutine. A multiple of the bundle width
	// keeps intermediate partial bundles rare.
	submitChunk = 8 * layout.EntryBundleWidth

	// batchMaxAge only matters for the last, short chunk (flushed by age),
	// so it bounds what Flush and Close wait. It must stay well above the
	// time needed to queue one chunk (about 10 ms; 60 ms seen under heavy
	// CPU contention): an age flush racing a size flush could reorder
	// batches. Indices are checked, so a reorder would be an error, not a
	// silent misnumbering.
	batchMaxAge = 100 * time.Millisecond

	// checkpointInterval is Tessera's minimum (100ms): Close waits for one
	// publication after the last integration.
	checkpointInterval = 100 * time.Millisecond

	// MaxLeafSize is the largest leaf tlog-tiles can store (2-byte length).
	MaxLeafSize = tessera.DefaultEntrySizeLimit
)

// Writer appends leaves to a fresh tlog-tiles log directory.
//
// Leaves are buffered and handed to Tessera in chunks; an index returned by
// Append is final in the sense that the leaf will get exactly that index,
// but it is durable only after Flush or Close returned without error.
// Writer is safe for concurrent use; indices follow the order in which
// calls acquire the writer. Close must be called: Tessera runs background
// goroutines until then. Tessera logs through klog (to stderr by default);
// a terminal UI should redirect klog before creating a log.
type Writer struct {
	mu       sync.Mutex
	dir      string
	appender *tessera.Appender
	shutdown func(context.Context) error
	reader   tessera.LogReader
	cancel   context.CancelFunc

	pending   [][]byte              // leaves buffered, not yet given to Tessera
	inflight  []tessera.IndexFuture // futures of the chunk given to Tessera last
	submitted uint64                // leaves given to Tessera (integrated or in flight)
	tree      *compact.Range        // running RFC 6962 tree over every appended leaf
	closed    bool
	err       error // sticky: once integration failed, the log is unusable
	// notDir: the log is not a POSIX directory (OpenDriver on another
	// driver), so Close has no partial files to remove.
	notDir bool
}

var rangeFactory = compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}

// Create makes a new log in dir, which must not exist or be an empty
// directory. The checkpoint origin is signer.Name().
func Create(ctx context.Context, dir string, signer note.Signer) (*Writer, error) {
	if signer == nil {
		return nil, errors.New("tlog.Create: nil signer")
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("tlog.Create: %s is not empty; a log is only ever created fresh", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tlog.Create: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("tlog.Create: %w", err)
	}
	driver, err := posix.New(ctx, posix.Config{Path: dir})
	if err != nil {
		return nil, fmt.Errorf("tlog.Create: posix driver for %s: %w", dir, err)
	}
	// Background tasks (publisher, stats) live until Close.
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	opts := appendOptions(signer, checkpointInterval, batchMaxAge)
	appender, shutdown, reader, err := tessera.NewAppender(bg, driver, opts)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("tlog.Create: tessera appender in %s: %w", dir, err)
	}
	// Tessera publishes the empty tree's checkpoint in the background; wait
	// for it, so that no publication is still in flight when a Writer that
	// never integrated anything is closed and its directory removed.
	if err := waitForCheckpoint(ctx, reader); err != nil {
		cancel()
		return nil, fmt.Errorf("tlog.Create: %s: %w", dir, err)
	}
	return &Writer{
		dir:      dir,
		appender: appender,
		shutdown: shutdown,
		reader:   reader,
		cancel:   cancel,
		tree:     rangeFactory.NewEmptyRange(0),
	}, nil
}

// Append queues one leaf and returns the index it will have.
func (w *Writer) Append(ctx context.Context, leaf []byte) (uint64, error) {
	idx, err := w.AppendAll(ctx, [][]byte{leaf})
	if err != nil {
		return 0, err
	}
	return idx[0], nil
}

// AppendAll queues leaves in order and returns their indices (consecutive).
// The leaf slices are copied.
func (w *Writer) AppendAll(ctx context.Context, leaves [][]byte) ([]uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return nil, err
	}
	for i, l := range leaves {
		if len(l) > MaxLeafSize {
			return nil, fmt.Errorf("tlog: leaf %d of batch (would be index %d) is %d bytes, over the tlog-tiles limit of %d", i, w.tree.End()+uint64(i), len(l), MaxLeafSize)
		}
	}
	indices := make([]uint64, len(leaves))
	for i, l := range leaves {
		indices[i] = w.tree.End()
		if err := w.tree.Append(rfc6962.DefaultHasher.HashLeaf(l), nil); err != nil {
			return nil, fmt.Errorf("tlog: hashing leaf %d: %w", indices[i], err)
		}
		w.pending = append(w.pending, append([]byte(nil), l...))
		if len(w.pending) == submitChunk {
			if err := w.submitLocked(ctx, false); err != nil {
				return nil, err
			}
		}
	}
	return indices, nil
}

// Size is the number of leaves appended so far (including buffered ones).
func (w *Writer) Size() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tree.End()
}

// Root returns the current size and the RFC 6962 root of all leaves
// appended so far. Pair it with SignCheckpoint to record a historical
// checkpoint; the root equals what Reader.RootAt returns for that size.
func (w *Writer) Root() (uint64, []byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rootLocked()
}

func (w *Writer) rootLocked() (uint64, []byte, error) {
	if w.tree.End() == 0 {
		return 0, rfc6962.DefaultHasher.EmptyRoot(), nil
	}
	root, err := w.tree.GetRootHash(nil)
	return w.tree.End(), root, err
}

// Flush hands every buffered leaf to Tessera and waits until all are
// integrated into the tiles (durable, though the published checkpoint may
// lag until Close).
func (w *Writer) Flush(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.submitLocked(ctx, true)
}

// Close integrates everything, waits for Tessera to publish a checkpoint
// covering every leaf, stops Tessera's background work, removes partial
// tiles and bundles that the final size does not use, and returns the final
// signed checkpoint. The writer cannot be used afterwards.
func (w *Writer) Close(ctx context.Context) ([]byte, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("tlog: writer already closed")
	}
	defer w.cancel()
	// On failure Tessera must still finish what it already accepted before
	// Close returns: its background work would otherwise write into the
	// directory after a caller has cleaned it up.
	settle := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = w.shutdown(sctx)
	}
	if w.err != nil {
		w.closed = true
		settle()
		return nil, w.err
	}
	err := w.submitLocked(ctx, true)
	w.closed = true
	if err != nil {
		settle()
		return nil, err
	}
	size, root, err := w.rootLocked()
	if err != nil {
		return nil, err
	}
	if err := w.shutdown(ctx); err != nil {
		return nil, fmt.Errorf("tlog: waiting for the final checkpoint in %s: %w", w.dir, err)
	}
	w.cancel()
	cp, err := w.reader.ReadCheckpoint(ctx)
	if err != nil {
		return nil, fmt.Errorf("tlog: reading final checkpoint in %s: %w", w.dir, err)
	}
	parsed, err := checkpointBody(cp)
	if err != nil {
		return nil, fmt.Errorf("tlog: final checkpoint in %s: %w", w.dir, err)
	}
	if parsed.Size != size || string(parsed.Hash) != string(root) {
		return nil, fmt.Errorf("tlog: final checkpoint in %s commits to size %d root %x, writer computed size %d root %x", w.dir, parsed.Size, parsed.Hash, size, root)
	}
	if w.notDir {
		return cp, nil
	}
	if err := removeStalePartials(w.dir, size); err != nil {
		return nil, err
	}
	return cp, nil
}

func (w *Writer) usable() error {
	if w.closed {
		return errors.New("tlog: writer is closed")
	}
	return w.err
}

// submitLocked hands the pending leaves to Tessera and, if wait, waits
// until everything handed over is integrated. Without wait it keeps one
// chunk in flight, so queueing the next chunk overlaps Tessera's writes.
// Each leaf must get exactly the index Append promised.
func (w *Writer) submitLocked(ctx context.Context, wait bool) error {
	var futures []tessera.IndexFuture
	if len(w.pending) > 0 {
		futures = make([]tessera.IndexFuture, len(w.pending))
		for i, l := range w.pending {
			futures[i] = w.appender.Add(ctx, tessera.NewEntry(l))
		}
	}
	// Settle the previous chunk before the next one is handed over.
	if err := w.settle(w.submitted-uint64(len(w.inflight)), w.inflight); err != nil {
		return err
	}
	w.inflight = futures
	w.submitted += uint64(len(futures))
	w.pending = w.pending[:0]
	if wait {
		if err := w.settle(w.submitted-uint64(len(w.inflight)), w.inflight); err != nil {
			return err
		}
		w.inflight = nil
	}
	return nil
}

// settle waits for futures of leaves first, first+1, ... and checks that
// each got its promised index.
func (w *Writer) settle(first uint64, futures []tessera.IndexFuture) error {
	for i, f := range futures {
		want := first + uint64(i)
		got, err := f()
		if err != nil {
			w.err = fmt.Errorf("tlog: integrating leaf %d into %s: %w", want, w.dir, err)
			return w.err
		}
		if got.Index != want || got.IsDup {
			w.err = fmt.Errorf("tlog: Tessera assigned index %d (duplicate=%v) to the leaf promised index %d in %s", got.Index, got.IsDup, want, w.dir)
			return w.err
		}
	}
	return nil
}

// removeStalePartials deletes every partial tile and entry bundle
// (".p/<width>" files) except those a tree of exactly size leaves uses.
// Which intermediate partials Tessera wrote depends on batch timing, so
// keeping them would make the directory nondeterministic. Readers of an
// earlier size fall back to the full or the final partial resource.
func removeStalePartials(dir string, size uint64) error {
	keep := map[string]bool{}
	for level := uint64(0); ; level++ {
		width := size >> (level * layout.TileHeight)
		if width == 0 {
			break
		}
		idx := width / layout.TileWidth
		if p := layout.PartialTileSize(level, idx, size); p > 0 {
			keep[layout.TilePath(level, idx, p)] = true
			if level == 0 {
				keep[layout.EntriesPath(idx, p)] = true
			}
		}
		if width < layout.TileWidth {
			break
		}
	}
	tileRoot := filepath.Join(dir, "tile")
	var stale []string
	err := filepath.WalkDir(tileRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(filepath.Dir(path), ".p") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if !keep[filepath.ToSlash(rel)] {
			stale = append(stale, path)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tlog: listing partial tiles in %s: %w", dir, err)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("tlog: removing stale partial %s: %w", p, err)
		}
		// The .p directory goes too once empty, so the tree is canonical.
		if err := os.Remove(filepath.Dir(p)); err != nil && !isNotEmpty(err) {
			return fmt.Errorf("tlog: removing %s: %w", filepath.Dir(p), err)
		}
	}
	return nil
}

func isNotEmpty(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && (errors.Is(pe.Err, fs.ErrExist) || strings.Contains(pe.Err.Error(), "not empty"))
}

// waitForCheckpoint polls until the log's checkpoint file exists.
func waitForCheckpoint(ctx context.Context, r tessera.LogReader) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := r.ReadCheckpoint(ctx); err == nil {
			return nil
		} else if !errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			return fmt.Errorf("the initial checkpoint was not published: %w", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkpointBody parses the body of the checkpoint Tessera just published
// (our own output, signed by our own key) to compare it with the tree the
// writer computed; readers parse checkpoints strictly with tlog.
func checkpointBody(cp []byte) (f_log.Checkpoint, error) {
	var c f_log.Checkpoint
	body, _, ok := bytes.Cut(cp, []byte("\n\n"))
	if !ok {
		return c, errors.New("no signature block")
	}
	if _, err := c.Unmarshal(append(body, '\n')); err != nil {
		return c, err
	}
	return c, nil
}

// appendOptions are the Tessera options of every memscope log.
func appendOptions(signer note.Signer, interval, maxAge time.Duration) *tessera.AppendOptions {
	if maxAge == 0 {
		maxAge = batchMaxAge
	}
	return tessera.NewAppendOptions().
		WithCheckpointSigner(signer).
		WithBatching(submitChunk, maxAge).
		WithCheckpointInterval(interval).
		// Republishing an unchanged tree would only rewrite identical bytes.
		WithCheckpointRepublishInterval(0).
		// Tessera's GC runs on a timer, so which partial files survive would
		// depend on timing; Close removes them deterministically instead.
		WithGarbageCollectionInterval(0)
}
