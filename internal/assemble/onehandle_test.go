package assemble

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/loader"
)

// An inspector session opens its snapshot once: the open, the load,
// verification, the provenance pass, replay now and as each query ran,
// the defences' verdicts and content read back all go through the
// session's one handle. Not parallel: the count is the process's.
func TestSessionOpensItsSnapshotOnce(t *testing.T) {
	sdir := filepath.Join(scenarioDir, "structural-write")
	m, err := evidence.ReadManifest(sdir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before := loader.Opened()
	s := openStore(t, sdir, filepath.Join(sdir, m.Snapshot), m, "")
	s.Opts.LazyContent = true
	if _, err := s.ProvenanceReplayer(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rp, err := s.Replayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TimeReplay(rp); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ActionVerdicts(ctx); err != nil {
		t.Fatal(err)
	}
	contents, err := s.Contents(ctx, 0, 2)
	if err != nil || len(contents) != 2 || contents[0] == "" {
		t.Fatalf("contents %q, %v", contents, err)
	}
	if n := loader.Opened() - before; n != 1 {
		t.Fatalf("the session opened its snapshot %d times, want once", n)
	}
}
