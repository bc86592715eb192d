package evidencetest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/memscope/memscope/evidence/tlog"
)

// MendLevel0Tile rewrites the level-0 hash tile of a log of fewer than
// 256 leaves from its entry bundle: RFC 6962 leaf hashes, as the partial
// tile of the log's size (C2SP tlog-tiles). A test that needs a log whose
// tiles agree with its leaves (the tampered scenario flips a tile hash)
// mends its own copy with it.
func MendLevel0Tile(t testing.TB, logDir string) {
	t.Helper()
	ctx := context.Background()
	r, err := tlog.Open(ctx, logDir)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := r.PublishedCheckpoint()
	if err != nil {
		t.Fatal(err)
	}
	if cp.Size >= 256 {
		t.Fatalf("the log has %d leaves: more than one tile", cp.Size)
	}
	var tile []byte
	for leaf, err := range r.Leaves(ctx, 0, cp.Size) {
		if err != nil {
			t.Fatal(err)
		}
		tile = append(tile, rfc6962.DefaultHasher.HashLeaf(leaf.Data)...)
	}
	if err := os.WriteFile(filepath.Join(logDir, "tile", "0", "000.p", strconv.FormatUint(cp.Size, 10)), tile, 0o644); err != nil {
		t.Fatal(err)
	}
}
