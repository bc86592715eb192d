package recorder

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
)

func openForSyncTest(t *testing.T) *Recorder {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := Init(ctx, dir, nil, ""); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func doEntry(r *Recorder, i int) chan error {
	done := make(chan error, 1)
	go func() {
		done <- r.Do(context.Background(), func(tx *Tx) error {
			_, err := tx.Entry(EntryIn{Writer: DefaultAgent, Content: "note " + strconv.Itoa(i), Trust: record.Trusted})
			return err
		})
	}()
	return done
}

// A result is released only once its group's sync has returned, and a
// call queued during a sync is not released before that sync either: its
// rows wait in the next group.
func TestReleasedOnlyOnceSynced(t *testing.T) {
	r := openForSyncTest(t)
	defer r.Close(context.Background())
	gate := make(chan struct{})
	syncs := make(chan struct{}, 16)
	r.syncHook = func() error {
		syncs <- struct{}{}
		<-gate
		return r.st.SyncWAL()
	}
	first := doEntry(r, 1)
	<-syncs // the first group is committed and its sync is held
	second := doEntry(r, 2)
	select {
	case err := <-first:
		t.Fatalf("released before its sync returned (err %v)", err)
	case err := <-second:
		t.Fatalf("a call queued during a sync was released before it (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(gate)
	for _, c := range []chan error{first, second} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	if _, _, jobs := r.CommitTimes(); jobs != 2 {
		t.Fatalf("%d jobs committed, want 2", jobs)
	}
}

// A failed sync fails its group and stops recording: nothing after it is
// acknowledged.
func TestFailedSyncStopsRecording(t *testing.T) {
	r := openForSyncTest(t)
	defer r.Close(context.Background())
	disk := errors.New("disk gone")
	r.syncHook = func() error { return disk }
	if err := <-doEntry(r, 1); !errors.Is(err, disk) {
		t.Fatalf("first call: %v, want the sync's error", err)
	}
	if err := <-doEntry(r, 2); err == nil {
		t.Fatal("a call after a failed sync was acknowledged")
	}
}

// Under a steady load the committer is never idle, so only the size check
// keeps the WAL bounded: it is folded once past walFoldBytes, and its file
// (reused from the start after each fold) stays near that size however
// much is recorded.
func TestWALBoundedUnderLoad(t *testing.T) {
	r := openForSyncTest(t)
	defer r.Close(context.Background())
	wal := filepath.Join(r.dir, evidence.SnapshotFile) + "-wal" // SQLite's name for the WAL
	content := strings.Repeat("x", 8<<10)
	const writers, perWriter = 16, 200 // about 3 x walFoldBytes of content
	var most atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if st, err := os.Stat(wal); err == nil && st.Size() > most.Load() {
				most.Store(st.Size())
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				err := r.Do(context.Background(), func(tx *Tx) error {
					_, err := tx.Entry(EntryIn{Writer: DefaultAgent, Content: content + strconv.Itoa(w*perWriter+i), Trust: record.Trusted})
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	written := int64(writers * perWriter * len(content))
	if written < 3*walFoldBytes {
		t.Fatalf("the load wrote %d bytes of content, want at least %d", written, 3*walFoldBytes)
	}
	// The WAL was seen, and reached the size that folds it: the load
	// exercised the fold.
	if most.Load() < walFoldBytes {
		t.Fatalf("the WAL (%s) reached only %d bytes under load, want at least %d", wal, most.Load(), walFoldBytes)
	}
	if limit := int64(walFoldBytes + 4<<20); most.Load() > limit {
		t.Fatalf("the WAL reached %d bytes under load (%d written), want at most %d", most.Load(), written, limit)
	}
}
