package evidencetest

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
)

// MendLevel0Tile rewrites the level-0 hash tile of a log of fewer than
// 256 leaves from its entry bundle: RFC 6962 leaf hashes, as the partial
// tile of the log's size (C2SP tlog-tiles: the checkpoint's second line is
// the size; a partial entry bundle holds the entries, each a big-endian
// uint16 length and the bytes). A test that needs a log whose tiles agree
// with its leaves (the tampered scenario flips a tile hash) mends its own
// copy with it. It reads the files itself: package tlog's tests use this
// package.
func MendLevel0Tile(t testing.TB, logDir string) {
	t.Helper()
	cp, err := os.ReadFile(filepath.Join(logDir, "checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(cp), "\n")
	if len(lines) < 2 {
		t.Fatalf("checkpoint of %s has no size line", logDir)
	}
	size, err := strconv.ParseUint(lines[1], 10, 64)
	if err != nil || size == 0 || size >= 256 {
		t.Fatalf("the log has %q leaves: not one partial tile", lines[1])
	}
	name := strconv.FormatUint(size, 10)
	bundle, err := os.ReadFile(filepath.Join(logDir, "tile", "entries", "000.p", name))
	if err != nil {
		t.Fatal(err)
	}
	var tile []byte
	for off := 0; off < len(bundle); {
		if off+2 > len(bundle) {
			t.Fatal("truncated entry bundle")
		}
		n := int(binary.BigEndian.Uint16(bundle[off:]))
		if off+2+n > len(bundle) {
			t.Fatal("truncated entry bundle")
		}
		tile = append(tile, rfc6962.DefaultHasher.HashLeaf(bundle[off+2:off+2+n])...)
		off += 2 + n
	}
	if uint64(len(tile)) != size*32 {
		t.Fatalf("the entry bundle holds %d leaves, the checkpoint says %d", len(tile)/32, size)
	}
	if err := os.WriteFile(filepath.Join(logDir, "tile", "0", "000.p", name), tile, 0o644); err != nil {
		t.Fatal(err)
	}
}
