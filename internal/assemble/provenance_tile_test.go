package assemble

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/evidencetest"
)

// TestProvenanceFallsBackOnTileMismatch: a log whose hash tile was
// altered over intact entry bundles (what a hostile log server can serve)
// is TILE_MISMATCH for the full verification, which then proves inclusion
// from the bundles. The provenance pass proves leaves through the tiles,
// so a leaf that does not prove there must send it to the full path, not
// label the entry unverified: replay labels exactly as verify does.
func TestProvenanceFallsBackOnTileMismatch(t *testing.T) {
	t.Parallel()
	dir, err := allScenarios()
	if err != nil {
		t.Fatal(err)
	}
	src := evidencetest.CopyTree(t, filepath.Join(dir, "peer-cites-external"))
	m, err := evidence.ReadManifest(src)
	if err != nil {
		t.Fatal(err)
	}
	tiles, _ := filepath.Glob(filepath.Join(src, m.Log, "tile", "0", "*"))
	var tile string
	for _, p := range tiles {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			tile = p
		} else if sub, _ := filepath.Glob(filepath.Join(p, "*")); len(sub) > 0 {
			tile = sub[0]
		}
	}
	if tile == "" {
		t.Fatalf("no level-0 tile under %s", filepath.Join(src, m.Log, "tile", "0"))
	}
	b, err := os.ReadFile(tile)
	if err != nil {
		t.Fatal(err)
	}
	b[5] ^= 0xff // the first leaf hash, not its first byte
	if err := os.WriteFile(tile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(src, m.Snapshot)
	want := fullFacts(t, src, snap, m, "")
	s := openStore(t, src, snap, m, "")
	rp, err := s.Replayer(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.FellBack == "" {
		t.Error("the provenance pass labelled over a tile that does not match its bundles")
	}
	if got := factsOf(t, s, rp); !reflect.DeepEqual(got, want) {
		t.Errorf("over an altered tile, the provenance pass (fell back: %q) differs from full verification:\n got %+v\nwant %+v", s.FellBack, got, want)
	}
	full := openStore(t, src, snap, m, "")
	rep, err := full.Verify(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tileMismatch := false
	for _, f := range rep.Findings {
		tileMismatch = tileMismatch || f.Code == "TILE_MISMATCH"
	}
	if !tileMismatch {
		t.Errorf("full verification does not see the altered tile: %+v", rep.Findings)
	}
}
