// Command genseeds writes the seed corpus of loader's FuzzOpenSnapshot: a
// small real snapshot (the clean scenario cut to two rows per table and
// vacuumed to 512-byte pages) and broken variants of it. Run from the
// module root:
//
//	go run ./loader/testdata/genseeds
package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
)

func main() {
	tmp, err := os.MkdirTemp("", "genseeds-")
	check(err)
	defer os.RemoveAll(tmp)
	_, err = scenario.GenerateAll(context.Background(), tmp, []string{"tombstone"}, scenario.Options{Seed: 1})
	check(err)
	small := filepath.Join(tmp, "small.db")
	b, err := os.ReadFile(filepath.Join(tmp, "tombstone", evidence.SnapshotFile))
	check(err)
	check(os.WriteFile(small, b, 0o644))
	db, err := sql.Open("sqlite", "file:"+small)
	check(err)
	for _, table := range []string{"principals", "entries", "nodes", "writes", "tombstones", "queries", "actions", "gate_events", "checkpoints"} {
		_, err := db.Exec("DELETE FROM " + table + " WHERE seq NOT IN (SELECT seq FROM " + table + " ORDER BY seq LIMIT 2)")
		check(err)
	}
	_, err = db.Exec("PRAGMA page_size = 512; VACUUM")
	check(err)
	check(db.Close())
	good, err := os.ReadFile(small)
	check(err)

	wrongMeta := filepath.Join(tmp, "meta.db")
	check(os.WriteFile(wrongMeta, good, 0o644))
	db, err = sql.Open("sqlite", "file:"+wrongMeta)
	check(err)
	_, err = db.Exec("UPDATE meta SET value = 'other/1' WHERE key = 'format'")
	check(err)
	check(db.Close())
	meta, err := os.ReadFile(wrongMeta)
	check(err)

	flip := func(i int) []byte {
		out := append([]byte{}, good...)
		out[i] ^= 0xff
		return out
	}
	seeds := [][]byte{
		good,
		meta,
		good[:len(good)/2],
		good[:100],
		flip(18),             // file format read version
		flip(512 + 3),        // first cell count of page 2
		flip(len(good) - 10), // near the end of the last page
		[]byte("SQLite format 3\x00 but nothing else"),
		[]byte("not a database"),
	}
	dir := filepath.Join("loader", "testdata", "fuzz", "FuzzOpenSnapshot")
	check(os.MkdirAll(dir, 0o755))
	for i, s := range seeds {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
		check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644))
	}
	fmt.Printf("small snapshot: %d bytes\n", len(good))
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
