// Command genseeds writes the seed corpora of record's fuzz targets from a
// generated scenario: the canonical encodings of real records, the tampered
// scenario's non-canonical and truncated ones, real log leaves, and broken
// variants of each. Run from the module root:
//
//	go run ./record/testdata/genseeds
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/loader"
)

func main() {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "genseeds-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if _, err := scenario.GenerateAll(ctx, tmp, []string{"tampered", "tombstone"}, scenario.Options{Seed: 1}); err != nil {
		log.Fatal(err)
	}
	corpus := map[string][][]byte{}
	for _, name := range []string{"tampered", "tombstone"} {
		snap, err := loader.Open(filepath.Join(tmp, name, evidence.SnapshotFile))
		if err != nil {
			log.Fatal(err)
		}
		take := func(target string, raw []byte, limit int) {
			if len(corpus[target]) < limit {
				corpus[target] = append(corpus[target], raw)
			}
		}
		honest := 0
		check(snap.EachEntryRaw(ctx, func(r *loader.EntryRow) error {
			// A few honest entries and every one the decoder rejects (the
			// tampered store's non-canonical and truncated records).
			if _, err := record.DecodeEntry(r.Raw); err != nil || honest < 6 {
				take("FuzzDecodeEntry", r.Raw, 64)
				if err == nil {
					honest++
				}
			}
			return nil
		}))
		check(snap.EachWrite(ctx, func(r *loader.WriteRow) error { take("FuzzDecodeWrite", r.Raw, 4); return nil }))
		check(snap.EachPrincipal(ctx, func(r *loader.PrincipalRow) error { take("FuzzDecodePrincipalEvent", r.Raw, 12); return nil }))
		check(snap.EachTombstone(ctx, func(r *loader.TombstoneRow) error { take("FuzzDecodeTombstone", r.Raw, 4); return nil }))
		snap.Close()

		lr, err := tlog.Open(ctx, filepath.Join(tmp, name, evidence.LogDir))
		if err != nil {
			log.Fatal(err)
		}
		size, err := lr.Size()
		if err != nil {
			log.Fatal(err)
		}
		for leaf, err := range lr.Leaves(ctx, 0, size) {
			check(err)
			// Keep the first leaf, every tombstone and every odd-sized leaf.
			if leaf.Index == 0 || len(leaf.Data) != 80 {
				corpus["FuzzParseLeaf"] = append(corpus["FuzzParseLeaf"], leaf.Data)
			}
		}
	}
	for target, seeds := range corpus {
		var broken [][]byte
		for _, s := range seeds[:1] {
			broken = append(broken, s[:len(s)/2], append(append([]byte{}, s...), 0x00), flip(s, len(s)/3), flip(s, 0))
		}
		dir := filepath.Join("record", "testdata", "fuzz", target)
		check(os.MkdirAll(dir, 0o755))
		for i, s := range append(seeds, broken...) {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(s)) + ")\n"
			check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644))
		}
	}
}

func flip(b []byte, i int) []byte {
	out := append([]byte{}, b...)
	out[i] ^= 0x20
	return out
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
