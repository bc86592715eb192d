package recorder

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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
