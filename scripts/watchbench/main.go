// Command watchbench prepares the logs that docs/PERFORMANCE.md's watch
// rows are measured on (scripts/watch-measure.sh runs it):
//
//	watchbench -dir D -n 1000000 -new 1000
//
// writes a tessera log of n+new record-shaped leaves in D/log, its
// verifier key in D/log.vkey, and a memscope watch state file D/state.json
// that has verified the first n leaves (root from the log's own tiles), so
// the next `memscope watch --once` round covers exactly the new ones.
// With -fleet T it also writes T copies of the log under D/fleet/ with a
// state each at size n and D/fleet.json listing them.
//
//	watchbench -store S -new 1000 -state F
//
// writes, for an existing store S (a memscope demo directory: S/log,
// S/snapshot.db), the state file F of a monitor with --snapshot whose last
// round was at the log's size minus new: that checkpoint and, per table,
// the mark a round at that size leaves (the last row whose claimed leaf
// is before it), so the next round is an incremental one over the new
// leaves. With -structural the writes mark is one row lower: the round
// also re-checks the last write row before the new leaves, a structural
// write, so it builds the replay graph (on the 1M-entry demo store the
// new leaves themselves hold none). The store is opened read-only.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	_ "modernc.org/sqlite"

	"golang.org/x/mod/sumdb/note"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/evidence/tlog/appender"
	"github.com/memscope/memscope/internal/watch"
	"github.com/memscope/memscope/verify"
)

func main() {
	dir := flag.String("dir", "", "output directory (must not exist)")
	n := flag.Int("n", 1000000, "leaves the state has verified")
	extra := flag.Int("new", 1000, "leaves after those")
	fleet := flag.Int("fleet", 0, "also write this many copies as a fleet")
	store := flag.String("store", "", "existing store: write only the --snapshot state -state for it")
	stateOut := flag.String("state", "", "with -store: the state file to write (must not exist)")
	structural := flag.Bool("structural", false, "with -store: put the writes mark one row lower, so the round re-checks the last write row before it: a round whose new rows include a structural write (it builds the replay graph)")
	flag.Parse()
	if *store != "" {
		snapshotState(*store, uint64(*extra), *stateOut, *structural)
		return
	}
	if *dir == "" {
		log.Fatal("-dir is required")
	}
	ctx := context.Background()
	skey, vkey, err := note.GenerateKey(rand.Reader, "bench.example/watch")
	check(err)
	signer, err := note.NewSigner(skey)
	check(err)
	logDir := filepath.Join(*dir, "log")
	w, err := appender.Create(ctx, logDir, signer)
	check(err)
	const chunk = 10000
	total := *n + *extra
	for i := 0; i < total; i += chunk {
		leaves := make([][]byte, 0, chunk)
		for j := i; j < min(i+chunk, total); j++ {
			leaves = append(leaves, leaf(j))
		}
		_, err := w.AppendAll(ctx, leaves)
		check(err)
	}
	_, err = w.Close(ctx)
	check(err)
	check(os.WriteFile(filepath.Join(*dir, "log.vkey"), []byte(vkey+"\n"), 0o644))
	st := stateAt(ctx, logDir, uint64(*n))
	check(watch.SaveState(filepath.Join(*dir, "state.json"), st))
	if *fleet > 0 {
		writeFleet(*dir, logDir, vkey, st, *fleet)
	}
	fmt.Printf("log %s: %d leaves; state at %d\n", logDir, total, *n)
}

// leaf is a record-shaped leaf: a UUIDv7-looking id and 64 bytes.
func leaf(i int) []byte {
	b := make([]byte, record.RecordLeafSize)
	binary.BigEndian.PutUint64(b[0:8], uint64(0x019c_0000_0000_7000)|uint64(i)<<16)
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80
	binary.BigEndian.PutUint64(b[9:], uint64(i))
	for k := 16; k < len(b); k++ {
		b[k] = byte(i + k)
	}
	return b
}

func stateAt(ctx context.Context, logDir string, size uint64) *watch.State {
	r, err := tlog.Open(ctx, logDir)
	check(err)
	cp, err := r.PublishedCheckpoint()
	check(err)
	root, err := r.RootAt(ctx, size)
	check(err)
	return &watch.State{Version: 1, Log: logDir, Origin: cp.Origin, Size: size, Root: root}
}

func writeFleet(dir, logDir, vkey string, st *watch.State, count int) {
	var tenants []watch.Tenant
	for i := 0; i < count; i++ {
		name := fmt.Sprintf("t%05d", i)
		d := filepath.Join(dir, "fleet", name)
		check(os.MkdirAll(filepath.Dir(d), 0o755))
		out, err := exec.Command("cp", "-r", logDir, d).CombinedOutput()
		if err != nil {
			log.Fatalf("cp: %v %s", err, out)
		}
		s := *st
		s.Log = d
		check(watch.SaveState(d+".state", &s))
		tenants = append(tenants, watch.Tenant{Name: name, Log: d, LogKey: vkey, State: d + ".state"})
	}
	b, err := json.Marshal(tenants)
	check(err)
	check(os.WriteFile(filepath.Join(dir, "fleet.json"), b, 0o644))
}

// snapshotState writes the state of a monitor with --snapshot at the
// store's log size minus extra (see the package comment).
func snapshotState(store string, extra uint64, out string, structural bool) {
	ctx := context.Background()
	logDir := filepath.Join(store, "log")
	r, err := tlog.Open(ctx, logDir)
	check(err)
	cp, err := r.PublishedCheckpoint()
	check(err)
	if extra > cp.Size {
		log.Fatalf("the log has %d leaves, fewer than -new %d", cp.Size, extra)
	}
	st := stateAt(ctx, logDir, cp.Size-extra)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(store, "snapshot.db")+"?mode=ro&immutable=1")
	check(err)
	defer db.Close()
	marks := verify.Marks{}
	for _, tb := range append(slices.Clone(verify.MarkTables), "queries") {
		var m sql.NullInt64
		check(db.QueryRowContext(ctx, fmt.Sprintf("SELECT max(seq) FROM %s WHERE leaf_index < ? OR leaf_index IS NULL", tb), st.Size).Scan(&m))
		marks[tb] = m.Int64
		if !m.Valid {
			marks[tb] = math.MinInt64
		}
	}
	if structural {
		if marks["writes"] == math.MinInt64 {
			log.Fatal("-structural: no write row before the new leaves")
		}
		marks["writes"]--
	}
	st.Snapshot = &watch.SnapshotState{Marks: marks}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	check(err)
	check(f.Close())
	check(watch.SaveState(out, st))
	fmt.Printf("state %s: size %d of %d, marks %v\n", out, st.Size, cp.Size, marks)
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
