package appender

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera"
	"github.com/transparency-dev/tessera/api"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/storage/posix"
	"golang.org/x/mod/sumdb/note"
)

// A recorder (memscope record) appends to the same log across restarts, so
// besides Create there is Open, which resumes an existing log on any
// Tessera driver (POSIX here, MySQL for memscope record --log-storage).

// Open resumes the POSIX log in dir, which Create made.
func Open(ctx context.Context, dir string, signer note.Signer, o Options) (*Writer, error) {
	driver, err := posix.New(ctx, posix.Config{Path: dir})
	if err != nil {
		return nil, fmt.Errorf("tlog.Open: posix driver for %s: %w", dir, err)
	}
	if o.CheckpointInterval == 0 {
		o.CheckpointInterval = checkpointInterval
	}
	w, err := OpenDriver(ctx, driver, dir, signer, o)
	if w != nil {
		w.notDir = false
	}
	return w, err
}

// Options tune a resumed log for a recorder, which waits for every
// integration before it acknowledges: BatchMaxAge is how long Tessera
// waits for more leaves before it sequences a short batch (default 100 ms,
// Create's). It must stay well above the time to hand a chunk over (see
// batchMaxAge): below it, Tessera's age timer can split a chunk and the
// halves reach the sequencer in either order. Every index is checked, so
// such a reordering is an error that stops the writer, never a
// misnumbering.
type Options struct {
	CheckpointInterval time.Duration
	BatchMaxAge        time.Duration
}

// OpenDriver starts appending to the log a Tessera driver holds (new or
// existing), publishing checkpoints every interval (a driver may require
// more than the POSIX minimum: MySQL's is 1 s; zero means the POSIX
// minimum). The running Merkle range
// is rebuilt from the log's entry bundles, so indices continue where the
// log ends. name labels the log in errors. Close removes stale partial
// files only for a POSIX directory named by name.
func OpenDriver(ctx context.Context, driver tessera.Driver, name string, signer note.Signer, o Options) (*Writer, error) {
	if signer == nil {
		return nil, errors.New("tlog.Open: nil signer")
	}
	if o.CheckpointInterval == 0 {
		o.CheckpointInterval = checkpointInterval
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	appender, shutdown, reader, err := tessera.NewAppender(bg, driver, appendOptions(signer, o.CheckpointInterval, o.BatchMaxAge))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("tlog.Open: tessera appender for %s: %w", name, err)
	}
	if err := waitForCheckpoint(ctx, reader); err != nil {
		cancel()
		return nil, fmt.Errorf("tlog.Open: %s: %w", name, err)
	}
	w := &Writer{dir: name, appender: appender, shutdown: shutdown, reader: reader, cancel: cancel, tree: rangeFactory.NewEmptyRange(0), notDir: true}
	size, err := reader.NextIndex(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("tlog.Open: %s: size: %w", name, err)
	}
	if err := w.rebuild(ctx, size); err != nil {
		cancel()
		return nil, fmt.Errorf("tlog.Open: %s: %w", name, err)
	}
	w.submitted = size
	return w, nil
}

// rebuild hashes the log's first size leaves into the writer's range. A
// driver that sequences before it integrates (MySQL) may need a moment
// before the last bundle is readable.
func (w *Writer) rebuild(ctx context.Context, size uint64) error {
	for idx := uint64(0); idx*layout.EntryBundleWidth < size; idx++ {
		p := layout.PartialTileSize(0, idx, size)
		var raw []byte
		var err error
		for try := 0; ; try++ {
			raw, err = w.reader.ReadEntryBundle(ctx, idx, p)
			if err == nil || try == 100 {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		if err != nil {
			return fmt.Errorf("reading entry bundle %d: %w", idx, err)
		}
		var b api.EntryBundle
		if err := b.UnmarshalText(raw); err != nil {
			return fmt.Errorf("entry bundle %d: %w", idx, err)
		}
		want := int(p)
		if want == 0 {
			want = layout.EntryBundleWidth
		}
		if len(b.Entries) < want {
			return fmt.Errorf("entry bundle %d holds %d leaves, want %d", idx, len(b.Entries), want)
		}
		for _, leaf := range b.Entries[:want] {
			if err := w.tree.Append(rfc6962.DefaultHasher.HashLeaf(leaf), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// Reader is Tessera's reader of the log being written (for serving it).
func (w *Writer) Reader() tessera.LogReader { return w.reader }

// Range returns a copy of the running Merkle range over every leaf
// appended so far.
func (w *Writer) Range() (*compact.Range, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	hashes := w.tree.Hashes()
	cp := make([][]byte, len(hashes))
	copy(cp, hashes)
	return rangeFactory.NewRange(0, w.tree.End(), cp)
}
