package assemble

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/lineage"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// entryLoader fills a Session's entry rows and lineage graph from a stream
// of decoded entry rows (Load's own read, or verification's through
// verify.Options.OnEntry), publishing them as they arrive.
type entryLoader struct {
	s        *Session
	rows     entryStore
	lin      *lineage.Builder
	writers  map[string]uint32 // index in rows.writers
	progress func(done, total int)
	onEntry  []func(i int, e *Entry)
	next     int // publish when this many rows are in
	// graph and rowOf are the lineage graph of every row and its
	// node-to-row map, once build has run.
	graph *lineage.Graph
	rowOf []int32
	// pos is the position in the current stream: a stream that starts
	// again (after preload, or after a verification that stopped) skips
	// the rows already held, each of which must be the same row again.
	pos int
}

func (s *Session) newEntryLoader(progress func(done, total int), onEntry []func(i int, e *Entry)) *entryLoader {
	// The array is sized by the estimate (exact on a writer's store) and
	// grows past it only on a store whose seqs are not distinct.
	return &entryLoader{s: s, rows: entryStore{rows: make([]entryRow, 0, s.EntryTotal())}, lin: lineage.NewBuilder(s.EntryTotal()),
		writers: map[string]uint32{}, progress: progress, onEntry: onEntry, next: 64}
}

// writer is w's index in the store's writers, added on first sight.
func (l *entryLoader) writer(w string) uint32 {
	if v, ok := l.writers[w]; ok {
		return v
	}
	v := uint32(len(l.rows.writers))
	l.rows.writers = append(l.rows.writers, w)
	l.writers[w] = v
	return v
}

// restart begins another stream of the same rows.
func (l *entryLoader) restart() { l.pos = 0 }

// add takes the next row of the stream.
func (l *entryLoader) add(r *loader.EntryRow) error {
	if l.pos < len(l.rows.rows) {
		// Held already: the same table read again must give the same row.
		if id := l.rows.id(&l.rows.rows[l.pos]); id != r.EID || l.s.seqOf(l.pos) != r.Seq {
			return fmt.Errorf("%s: entry row %d changed while it was being read (seq %d id %s, then seq %d id %s)",
				l.s.Opts.Snapshot, l.pos, l.s.seqOf(l.pos), id, r.Seq, r.EID)
		}
		l.pos++
		return nil
	}
	l.pos++
	s := l.s
	// The signed bytes are the truth: lineage reads the record.
	e := entryOf(r, func(w string) string { return w })
	n := len(l.rows.rows)
	s.noteSeq(n, r.Seq)
	addLineage(l.lin, r, e.Writer)
	for _, f := range l.onEntry {
		f(n, &e)
	}
	l.rows.add(&e, l.writer(e.Writer), !s.Opts.LazyContent)
	// The first screenful is published at once, then every 4096 rows.
	if n+1 >= l.next {
		l.next += 4096
		l.publish()
		if l.progress != nil {
			l.progress(n+1, max(s.EntryTotal(), n+1))
		}
	}
	return nil
}

func (l *entryLoader) publish() {
	// The rows first: a reader below the count sees a store that holds
	// its row.
	p := l.rows
	l.s.rows.Store(&p)
	l.s.loaded.Store(int64(len(p.rows)))
}

// build makes the lineage graph of the rows held, which must be every row
// (the builder is spent).
func (l *entryLoader) build() {
	g := l.lin.Graph()
	rowOf := make([]int32, g.Len())
	// Row n was the lineage builder's n-th entry.
	for row := range len(l.rows.rows) {
		if j, ok := g.InputNode(row); ok {
			rowOf[j] = int32(row)
		}
	}
	l.graph, l.rowOf = g, rowOf
}

// finish publishes every row and the lineage graph (built now unless
// build has run).
func (l *entryLoader) finish() {
	s := l.s
	n := len(l.rows.rows)
	l.publish()
	if l.graph == nil {
		l.build()
	}
	s.mu.Lock()
	s.estimate.Store(int64(n))
	s.Lineage, s.rowOf = l.graph, l.rowOf
	s.mu.Unlock()
	if l.progress != nil {
		l.progress(n, n)
	}
}

// preloadRows is how many rows LoadVerify reads by itself before
// verification starts handing rows over: verification first reads the
// log, the registry and the tombstones (seconds at a million entries), and
// the Entries view should not stay empty meanwhile. Verification decodes
// these rows again, so they are a few screenfuls, not more.
const preloadRows = 1024

var errPreloaded = errors.New("preloaded")

// LoadVerify is Load with verification riding along: verification reads
// and decodes every entry row once and hands each to the load
// (verify.Options.OnEntry), so the rows are not read and decoded twice
// (the inspector's time to "verified" was the load's plus the CLI's).
// Rows are published as they arrive, as with Load; the first few thousand
// are read at once, before verification reaches the entries. onEntry is
// Load's; progress sees the records verified. The error is the load's:
// afterwards Verify returns the report at once, or, when this
// verification failed, runs it again and returns its error.
//
// When a verification has already run or is running, LoadVerify is Load.
// When verification stops with an error, the rows it did not hand over are
// read by themselves (the load does not depend on the log or the anchors).
func (s *Session) LoadVerify(ctx context.Context, progress func(done, total int), onEntry ...func(i int, e *Entry)) error {
	if !s.loadStarted.CompareAndSwap(false, true) {
		return fmt.Errorf("inspect: Load called twice on %s", s.Opts.Snapshot)
	}
	s.mu.Lock()
	claimed := s.report == nil && s.verifying == nil
	var done chan struct{}
	if claimed {
		done = make(chan struct{})
		s.verifying = done
	}
	s.mu.Unlock()
	if !claimed {
		err := s.load(ctx, nil, onEntry)
		s.loadErr = err
		close(s.loadDone)
		return err
	}

	l := s.newEntryLoader(nil, onEntry)
	preload := preloadRows
	if s.preloadRows > 0 {
		preload = s.preloadRows
	}
	// The first rows are read here while verification reads the log;
	// verification's rows wait for them and then skip what is held.
	pre := make(chan error, 1)
	go func() {
		err := s.Snap.EachEntry(ctx, func(r *loader.EntryRow) error {
			if l.pos == preload {
				return errPreloaded
			}
			return l.add(r)
		})
		if errors.Is(err, errPreloaded) {
			err = nil
		}
		l.publish()
		pre <- err
	}()
	waited := false
	var preErr error
	preloaded := func() error {
		if !waited {
			waited = true
			preErr = <-pre
			l.restart()
		}
		return preErr
	}
	opts := s.verifyOptions(progress)
	opts.OnEntry = func(r *loader.EntryRow) error {
		if err := preloaded(); err != nil {
			return err
		}
		return l.add(r)
	}
	// Once every row is in, the lineage graph is built while verification
	// runs its last checks, not after them (on the way to "verified").
	var built chan struct{}
	opts.EntriesRead = func() {
		if preloaded() != nil {
			return
		}
		built = make(chan struct{})
		go func() {
			defer close(built)
			l.build()
		}()
	}
	// OnEntry and EntriesRead run on this goroutine (verification's
	// reading goroutine), before Run returns.
	rep, verr := verify.Run(ctx, opts)
	err := preloaded()
	switch {
	case verr != nil && err == nil && built != nil:
		// Every row was handed over; a cancelled load still ends as one
		// (the graph being built is dropped).
		err = ctx.Err()
	case verr != nil && err == nil:
		// Whatever verification did not hand over is read by itself
		// (ctx cancelled: at once an error).
		l.restart()
		err = s.Snap.EachEntry(ctx, l.add)
	}
	if err == nil {
		// The report's entry look-ups are sorted, and the entry ids'
		// collisions found, on the other core while the lineage graph is
		// finished (the views' first look-up and the lineage summary would
		// otherwise do them after it, on the way to "verified").
		var beside sync.WaitGroup
		var collisions []finding.Finding
		beside.Go(func() {
			if rep != nil {
				rep.SortEntries()
			}
			collisions = storeCollisions(&l.rows)
		})
		if built != nil {
			<-built
		} else {
			l.build()
		}
		beside.Wait()
		s.heldCollisions.Store(&collisions)
		l.finish()
	}
	s.endVerify(done, rep, verr)
	s.loadErr = err
	close(s.loadDone)
	return err
}

// endVerify ends the verification run that claimed done: its report is
// cached unless it failed, and the callers waiting for it go on.
func (s *Session) endVerify(done chan struct{}, rep *verify.Report, err error) {
	s.mu.Lock()
	s.verifying = nil
	if err == nil {
		s.report = rep
	}
	s.mu.Unlock()
	close(done)
}

// verifyOptions are the session's evidence and anchors as verify takes
// them.
func (s *Session) verifyOptions(progress func(done, total int)) verify.Options {
	return verify.Options{Snapshot: s.Opts.Snapshot, Snap: s.Snap, Log: s.Opts.Log, LogKey: s.Opts.LogKey, LogOptions: s.Opts.LogOptions,
		TrustRoots: s.Opts.TrustRoots, HMACKey: s.Opts.HMACKey, Progress: progress, Workers: s.Opts.Workers, AnchorSources: s.Opts.AnchorSources}
}
