package assemble

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/memscope/memscope/internal/evidencetest"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// allScenarios is every demo scenario of seed 3, from the shared cache
// (TestMain's set is seed 1's).
var allScenarios = sync.OnceValues(func() (string, error) { return scenariocache.Path(3) })

// openStore opens a snapshot with its scenario's pinned anchors.
func openStore(t *testing.T, sdir, snap string, m *evidence.Manifest, policy string) *Session {
	t.Helper()
	roots := evidencetest.Roots(t, m)
	s, err := Open(context.Background(), Options{Snapshot: snap, Log: filepath.Join(sdir, m.Log), LogKey: m.Anchors.LogKey, TrustRoots: roots, ReplayPolicy: policy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// replayFacts is everything replay shows that the labels decide: each
// edge's label, each node's authentication, and each query's rows now and
// as it ran.
type replayFacts struct {
	Edges  []replay.Edge // with each write's provenance, which every policy reads
	Labels []replay.EdgeLabel
	Nodes  []bool
	Rows   []string
	// Coverage is what replay's unsigned labels read.
	Coverage []verify.TableCoverage
}

func factsOf(t *testing.T, s *Session, rp *replay.Replayer) replayFacts {
	t.Helper()
	var f replayFacts
	f.Edges, f.Labels = rp.Graph().Edges(), rp.Labels()
	f.Coverage = s.coverageReport().Coverage
	for _, n := range rp.Graph().Nodes() {
		f.Nodes = append(f.Nodes, n.Authenticated)
	}
	qs := s.ReplayQueries()
	rows, err := rp.ReplayAll(context.Background(), qs, 1)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := s.AsRanReplay(context.Background(), rp)
	if err != nil {
		t.Fatal(err)
	}
	if err := RecordedAsRan(context.Background(), tr, qs, rows); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		line := r.QueryID + " " + string(r.Class)
		if r.Recorded != nil {
			line += " recorded-mismatch=" + map[bool]string{true: "yes", false: "no"}[r.Recorded.Mismatch]
		}
		if _, cut, err := tr.AsRan(context.Background(), qs[i]); err == nil {
			line += " as-ran " + cut.Desc
		}
		f.Rows = append(f.Rows, line)
	}
	return f
}

// fullFacts labels through the full verification of every entry.
func fullFacts(t *testing.T, sdir, snap string, m *evidence.Manifest, policy string) replayFacts {
	s := openStore(t, sdir, snap, m, policy)
	if err := s.Load(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.prov != nil {
		t.Fatal("the full path ran the provenance pass")
	}
	return factsOf(t, s, rp)
}

// TestProvenanceLabelsEqualFullVerification is the soundness check of the
// provenance pass: on every demo scenario and snapshot, under every label
// replay's write provenance (which every label policy reads), labels, node
// authentication and rows (now and as each query ran) are those of the full
// verification, and the pass itself ran
// (it did not fall back) wherever the store allows it.
func TestProvenanceLabelsEqualFullVerification(t *testing.T) {
	t.Parallel()
	dir, err := allScenarios()
	if err != nil {
		t.Fatal(err)
	}
	fast := 0
	for _, spec := range scenario.Specs {
		sdir := filepath.Join(dir, spec.Name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		snaps, _ := filepath.Glob(filepath.Join(sdir, "*.db"))
		for _, snap := range snaps {
			{
				name := spec.Name + "/" + filepath.Base(snap)
				want := fullFacts(t, sdir, snap, m, "")
				s := openStore(t, sdir, snap, m, "")
				rp, err := s.Replayer(context.Background())
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if s.needLoaded() == nil && s.FellBack == "" {
					t.Fatalf("%s: entries were loaded without a fallback", name)
				}
				got := factsOf(t, s, rp)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: provenance pass (fell back: %q) differs from full verification:\n got %+v\nwant %+v", name, s.FellBack, got, want)
				}
				if s.FellBack == "" {
					fast++
				} else {
					t.Logf("%s: fell back: %s", name, s.FellBack)
				}
			}
		}
	}
	if fast == 0 {
		t.Fatal("the provenance pass never ran")
	}
}

// TestProvenanceFallsBackOnDuplicateID: a store holding one cited source id
// twice (no UNIQUE index) is beyond the pass; replay loads and verifies
// everything and labels as the full path does.
func TestProvenanceFallsBackOnDuplicateID(t *testing.T) {
	t.Parallel()
	dir, err := allScenarios()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "peer-cites-external")
	m, err := evidence.ReadManifest(src)
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(t.TempDir(), "dup.db")
	b, err := os.ReadFile(filepath.Join(src, m.Snapshot))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snap, b, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", snap)
	if err != nil {
		t.Fatal(err)
	}
	// Rebuild entries without its UNIQUE index, then copy a cited source's
	// row under a new seq with another writer.
	var cited string
	s0 := openStore(t, src, filepath.Join(src, m.Snapshot), m, "")
	for i := range s0.WriteCount() {
		if w := s0.WriteAt(i); len(w.Sources) > 0 {
			cited = w.Sources[0]
			break
		}
	}
	if cited == "" {
		t.Fatal("no write cites a source")
	}
	for _, q := range []string{
		"CREATE TABLE e2 AS SELECT * FROM entries",
		"DROP TABLE entries",
		"CREATE TABLE entries (seq INTEGER PRIMARY KEY, eid TEXT NOT NULL, writer TEXT NOT NULL, trust INTEGER NOT NULL, ts INTEGER NOT NULL, content TEXT NOT NULL, session_id TEXT, hmac_tag TEXT, leaf_index INTEGER, record BLOB NOT NULL)",
		"INSERT INTO entries SELECT * FROM e2",
		"DROP TABLE e2",
		"INSERT INTO entries (eid, writer, trust, ts, content, session_id, hmac_tag, leaf_index, record) SELECT eid, 'external:forum', trust, ts, content, session_id, hmac_tag, leaf_index, x'00' FROM entries WHERE eid = '" + cited + "'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	want := fullFacts(t, src, snap, m, "")
	s := openStore(t, src, snap, m, "")
	rp, err := s.Replayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.FellBack, "held by 2 rows") {
		t.Fatalf("fell back: %q, want the duplicate id", s.FellBack)
	}
	if got := factsOf(t, s, rp); !reflect.DeepEqual(got, want) {
		t.Errorf("after the fallback:\n got %+v\nwant %+v", got, want)
	}
}

// TestLazyLoadedAsRanEqualsFull: the inspector's session (LazyContent,
// loaded and verified) places each query among the writes from the
// entries that can change the order only, and replays every query now and
// as it ran exactly as the full timeline does, on every demo scenario.
func TestLazyLoadedAsRanEqualsFull(t *testing.T) {
	t.Parallel()
	dir, err := allScenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range scenario.Specs {
		sdir := filepath.Join(dir, spec.Name)
		m, err := evidence.ReadManifest(sdir)
		if err != nil {
			t.Fatal(err)
		}
		snap := filepath.Join(sdir, m.Snapshot)
		want := fullFacts(t, sdir, snap, m, "")
		s := lazyCopy(t, openStore(t, sdir, snap, m, ""))
		if _, err := s.Verify(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		rp, err := s.Replayer(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := factsOf(t, s, rp); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: lazily loaded session differs from the full path:\n got %+v\nwant %+v", spec.Name, got, want)
		}
	}
}
