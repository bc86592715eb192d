package timeline_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/analyses/timeline"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/replay"
)

// incident is the phased incident scenario of seed 3, from the shared
// scenario cache.
func incident(t *testing.T) (string, *evidence.Manifest) {
	t.Helper()
	return scenariocache.Scenario(t, 3, "incident")
}

func open(t *testing.T, dir string, m *evidence.Manifest, snap string) (*assemble.Session, *replay.Replayer, *timeline.Replay) {
	t.Helper()
	opts := assemble.Options{Snapshot: filepath.Join(dir, snap), Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey}
	opts.TrustRoots = evidencetest.Roots(t, m)
	ctx := context.Background()
	s, err := assemble.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Load(ctx, nil); err != nil {
		t.Fatal(err)
	}
	rp, err := s.Replayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.TimeReplay(rp)
	if err != nil {
		t.Fatal(err)
	}
	return s, rp, tr
}

func TestTimelineInLogOrder(t *testing.T) {
	dir, m := incident(t)
	_, _, tr := open(t, dir, m, m.Snapshot)
	tl := tr.Timeline()
	last := int64(-1)
	var lastSize uint64
	logged := 0
	for i, e := range tl.Events {
		switch {
		case e.Kind == timeline.KindCheckpoint && e.Size > 0:
			if int64(e.Size)-1 < last || e.Size < lastSize {
				t.Fatalf("event %d: checkpoint of size %d after leaf %d", i, e.Size, last)
			}
			lastSize = e.Size
		case e.Leaf >= 0:
			if e.Leaf <= last || uint64(e.Leaf) < lastSize {
				t.Fatalf("event %d (%s %s): leaf %d after leaf %d / checkpoint size %d", i, e.Kind, e.ID, e.Leaf, last, lastSize)
			}
			last = e.Leaf
			logged++
			if e.Placed != timeline.ByLog {
				t.Fatalf("event %d has a leaf but is placed by %s", i, e.Placed)
			}
		default:
			if e.Placed != timeline.ByTime {
				t.Fatalf("event %d (%s) has no log position but is placed by %s", i, e.Kind, e.Placed)
			}
		}
	}
	// Queries, actions and gate events are signed and logged, so every
	// event of a generated store has a log position.
	if logged == 0 || tl.Order() != "log" {
		t.Fatalf("%d logged events, order %q", logged, tl.Order())
	}
	// Every query of a phase sits after that phase's writes: the acted
	// queries come after the first injected write.
	qi, ok := tl.Index(timeline.KindQuery, m.Attack.Query)
	wi, ok2 := tl.Index(timeline.KindWrite, m.Attack.FirstWrite)
	if !ok || !ok2 || qi < wi {
		t.Fatalf("attacked query at %d (%v), first write at %d (%v)", qi, ok, wi, ok2)
	}
}

func TestFirstFlipNamesManifestWrite(t *testing.T) {
	dir, m := incident(t)
	s, rp, tr := open(t, dir, m, m.Snapshot)
	q, ok := s.Query(m.Attack.Query)
	if !ok {
		t.Fatalf("no query %s", m.Attack.Query)
	}
	for _, scan := range []bool{false, true} {
		f, err := tr.FirstFlip(context.Background(), q, timeline.FlipOptions{Scan: scan, ScanLimit: -1, Queries: s.ReplayQueries(), EntryOf: s.PassageEntries()})
		if err != nil {
			t.Fatal(err)
		}
		if !f.Found || f.Write.ID != m.Attack.FirstWrite || f.Write.Leaf != *m.Attack.FirstWriteLeaf {
			t.Fatalf("scan %v: first flip %+v, manifest %s leaf %d", scan, f.Write, m.Attack.FirstWrite, *m.Attack.FirstWriteLeaf)
		}
		if !f.Confirmed || f.Write.Writer != "agent:peer" {
			t.Fatalf("scan %v: confirmed %v writer %q", scan, f.Confirmed, f.Write.Writer)
		}
		if f.Solves > int64(timeline.FlipBudget(f.Candidates, false)) {
			t.Fatalf("%d solves over %d candidates, budget %d", f.Solves, f.Candidates, timeline.FlipBudget(f.Candidates, false))
		}
		if scan != f.Scanned {
			t.Fatalf("scan %v but Scanned %v", scan, f.Scanned)
		}
		if scan && (len(f.Intervals) != 1 || f.Intervals[0].Until != nil || f.Intervals[0].From.ID != m.Attack.FirstWrite) {
			t.Fatalf("intervals %+v", f.Intervals)
		}
		// The acted phase's born-first query ran on the flipped selection and
		// the transfer cited the passage it brought in.
		if !contains(f.QueriesAffected, m.Attack.Query) || !contains(f.ActionsAffected, "act-pay-fowler") {
			t.Fatalf("affected queries %v actions %v", f.QueriesAffected, f.ActionsAffected)
		}
		if contains(f.QueriesAffected, "q-born-first-clean") {
			t.Fatalf("the clean query ran before the flip but is listed: %v", f.QueriesAffected)
		}
	}
	if rp.Solves() == 0 {
		t.Fatal("no solves counted")
	}
}

func TestAsOfAroundFirstWrite(t *testing.T) {
	dir, m := incident(t)
	s, _, tr := open(t, dir, m, m.Snapshot)
	q, _ := s.Query(m.Attack.Query)
	leaf := *m.Attack.FirstWriteLeaf
	before, err := tr.Timeline().AfterLeaf(leaf - 1)
	if err != nil {
		t.Fatal(err)
	}
	after, err := tr.Timeline().AfterLeaf(leaf)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := tr.At(context.Background(), q, before)
	if err != nil {
		t.Fatal(err)
	}
	ra, err := tr.At(context.Background(), q, after)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Class != diff.Same || ra.Class != diff.Diverge {
		t.Fatalf("as of leaf %d: %s, as of leaf %d: %s; want SAME then DIVERGE", leaf-1, rb.Class, leaf, ra.Class)
	}
	// As it ran, every recorded selection matches: the clean query saw the
	// clean graph and the acted query the flipped one.
	for _, q := range s.ReplayQueries() {
		row, _, err := tr.AsRan(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if row.Recorded == nil || row.Recorded.Mismatch {
			t.Fatalf("query %s: recorded selection differs from the replay as it ran (%+v)", q.ID, row.Recorded)
		}
	}
	clean, _ := s.Query("q-born-first" + scenario.IncidentQuerySuffix("clean"))
	row, _, err := tr.AsRan(context.Background(), clean)
	if err != nil {
		t.Fatal(err)
	}
	if row.Class != diff.Same {
		t.Fatalf("clean query as it ran: %s", row.Class)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
