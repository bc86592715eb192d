package recorder_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/internal/recorder"
)

// TestAckModes: when Do returns, the call's entry is committed to the
// snapshot with its log index (both modes); with AckIntegrated, tessera's
// own tree state already covers that index. Between bursts the WAL is
// folded into the snapshot file and truncated, so an immutable reader sees
// every row; after Close no WAL is left and the file is back in
// rollback-journal mode.
func TestAckModes(t *testing.T) {
	for _, ack := range []recorder.Ack{recorder.AckSequenced, recorder.AckIntegrated} {
		t.Run(string(ack), func(t *testing.T) {
			ctx := context.Background()
			rec, dir := openRecorderAck(t, ack)
			snap := filepath.Join(dir, "snapshot.db")
			// Read-only as a live reader opens it: the WAL is read.
			live := openDSN(t, "file:"+snap+"?mode=ro")
			const n = 20
			for i := 0; i < n; i++ {
				var id record.ID
				err := rec.Do(ctx, func(tx *recorder.Tx) error {
					var err error
					id, err = tx.Entry(recorder.EntryIn{Writer: recorder.DefaultAgent, Content: "ack " + strconv.Itoa(i), Trust: record.Trusted})
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				var leaf sql.NullInt64
				if err := live.QueryRow("SELECT leaf_index FROM entries WHERE eid = ?", id.String()).Scan(&leaf); err != nil || !leaf.Valid {
					t.Fatalf("acknowledged entry %d is not committed with a log index: %v %v", i, leaf, err)
				}
				if ack == recorder.AckIntegrated {
					if size := treeStateSize(t, dir); size <= uint64(leaf.Int64) {
						t.Fatalf("acknowledged (integrated) entry %d has leaf %d but tessera's tree state holds %d leaves", i, leaf.Int64, size)
					}
				}
			}
			live.Close()
			// Idle: the committer folds and truncates the WAL.
			waitFolded(t, snap)
			frozen := openSnapshot(t, snap)
			var c int
			if err := frozen.QueryRow("SELECT COUNT(*) FROM entries").Scan(&c); err != nil || c != n {
				t.Fatalf("an immutable reader of the idle store sees %d entries (want %d): %v", c, n, err)
			}
			frozen.Close()
			if err := rec.Close(ctx); err != nil {
				t.Fatal(err)
			}
			for _, side := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(snap + side); !os.IsNotExist(err) {
					t.Fatalf("a %s is left beside the closed snapshot: %v", side, err)
				}
			}
			hdr := make([]byte, 20)
			f, err := os.Open(snap)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.ReadAt(hdr, 0); err != nil {
				t.Fatal(err)
			}
			// SQLite file format, header offsets 18-19: 1 = rollback
			// journal, 2 = WAL.
			if hdr[18] != 1 || hdr[19] != 1 {
				t.Fatalf("closed snapshot's read/write versions are %d/%d, want 1/1 (rollback journal)", hdr[18], hdr[19])
			}
			if size := treeStateSize(t, dir); size == 0 {
				t.Fatal("the closed log is empty")
			}
		})
	}
}

// treeStateSize reads the size tessera's POSIX driver (v1.0.4,
// storage/posix/files.go: stateDir ".state", treeStateFile "treeState")
// last wrote as integrated.
func treeStateSize(t *testing.T, dir string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "log", ".state", "treeState"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Size uint64 `json:"size"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st.Size
}

// waitFolded waits until the recorder, idle, has folded the snapshot's
// WAL into the file and truncated it.
func waitFolded(t *testing.T, snap string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for walBytes(snap) != 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if b := walBytes(snap); b != 0 {
		t.Fatalf("the WAL holds %d bytes after the recorder went idle", b)
	}
}

func walBytes(snap string) int64 {
	st, err := os.Stat(snap + "-wal")
	if err != nil {
		return 0
	}
	return st.Size()
}
