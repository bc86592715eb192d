package assemble

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/present/finding"
)

func hashFile(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestDiffBetweenPhases: each diff of consecutive phase snapshots lists
// exactly what the manifest says the later phase added, accepts the
// tombstoned deletion and reports the silent one as an error; the
// snapshots are not modified.
func TestDiffBetweenPhases(t *testing.T) {
	dir := filepath.Join(scenarioDir, "incident")
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Phases) != len(scenario.IncidentPhases) {
		t.Fatalf("%d phases in the manifest", len(m.Phases))
	}
	for i := 1; i < len(m.Phases); i++ {
		prev, cur := m.Phases[i-1], m.Phases[i]
		a, b := filepath.Join(dir, prev.Snapshot), filepath.Join(dir, cur.Snapshot)
		ha, hb := hashFile(t, a), hashFile(t, b)
		got := map[diff.ChangeKind]map[string][]string{}
		res, err := DiffSnapshots(context.Background(), DiffOptions{A: a, B: b, Log: filepath.Join(dir, m.Log), LogKey: m.Anchors.LogKey}, func(c diff.RowChange) error {
			if got[c.Kind] == nil {
				got[c.Kind] = map[string][]string{}
			}
			got[c.Kind][c.Table] = append(got[c.Kind][c.Table], c.Key)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		status := "consistent"
		if prev.LogSize == cur.LogSize {
			status = "identical" // the acted phase logs nothing
		}
		if res.Consistency.Status != status || res.Consistency.A.Size != prev.LogSize || res.Consistency.B.Size != cur.LogSize {
			t.Fatalf("%s -> %s: consistency %+v", prev.Name, cur.Name, res.Consistency)
		}
		for table, want := range cur.Added {
			have := got[diff.Added][table]
			slices.Sort(have)
			want = slices.Sorted(slices.Values(want))
			if !slices.Equal(have, want) {
				t.Errorf("%s -> %s: %s added %v, manifest says %v", prev.Name, cur.Name, table, have, want)
			}
		}
		for table := range got[diff.Added] {
			if _, ok := cur.Added[table]; !ok {
				t.Errorf("%s -> %s: rows added to %s, which the manifest does not list", prev.Name, cur.Name, table)
			}
		}
		if !slices.Equal(got[diff.Tombstoned]["entries"], cur.Tombstoned) && len(cur.Tombstoned)+len(got[diff.Tombstoned]["entries"]) > 0 {
			t.Errorf("%s -> %s: tombstoned %v, manifest %v", prev.Name, cur.Name, got[diff.Tombstoned]["entries"], cur.Tombstoned)
		}
		if !slices.Equal(got[diff.Removed]["entries"], cur.SilentlyDeleted) && len(cur.SilentlyDeleted)+len(got[diff.Removed]["entries"]) > 0 {
			t.Errorf("%s -> %s: removed %v, manifest %v", prev.Name, cur.Name, got[diff.Removed]["entries"], cur.SilentlyDeleted)
		}
		if len(got[diff.Changed]) > 0 {
			t.Errorf("%s -> %s: changed rows %v", prev.Name, cur.Name, got[diff.Changed])
		}
		var errs []string
		for _, f := range res.Findings {
			if f.Severity == finding.SevError {
				errs = append(errs, string(f.Code)+" "+f.Subject)
			}
		}
		var want []string
		for _, id := range cur.SilentlyDeleted {
			want = append(want, string(finding.DiffRemovedWithoutTombstone)+" entry "+id)
		}
		if !slices.Equal(errs, want) {
			t.Errorf("%s -> %s: errors %v, want %v", prev.Name, cur.Name, errs, want)
		}
		if hashFile(t, a) != ha || hashFile(t, b) != hb {
			t.Fatalf("%s -> %s: a snapshot changed while diffed", prev.Name, cur.Name)
		}
	}
}

func TestDiffRollbackAndFork(t *testing.T) {
	dir := filepath.Join(scenarioDir, "incident")
	m, err := evidence.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, m.Log)
	codes := func(res *DiffResult) []finding.Code {
		var out []finding.Code
		for _, f := range res.Findings {
			out = append(out, f.Code)
		}
		return out
	}
	// Newer as A, older as B: a rollback.
	res, err := DiffSnapshots(context.Background(), DiffOptions{A: filepath.Join(dir, m.Snapshot), B: filepath.Join(dir, m.Phases[0].Snapshot), Log: log, LogKey: m.Anchors.LogKey}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Consistency.Status != "rollback" || !slices.Contains(codes(res), finding.DiffRollback) {
		t.Fatalf("rollback not reported: %+v %v", res.Consistency, codes(res))
	}
	// Another store's snapshot against this store's log: not an extension.
	res, err = DiffSnapshots(context.Background(), DiffOptions{A: filepath.Join(scenarioDir, "clean", "snapshot.db"), B: filepath.Join(dir, m.Snapshot), Log: log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Consistency.Status != "fork" || !slices.Contains(codes(res), finding.DiffFork) {
		t.Fatalf("fork not reported: %+v %v", res.Consistency, codes(res))
	}
	// One snapshot at two of its checkpoints: the later one adds exactly
	// the rows logged between them (in a phase without a silent deletion).
	snap := filepath.Join(dir, m.Phases[2].Snapshot)
	res, err = DiffSnapshots(context.Background(), DiffOptions{A: snap, B: snap, CheckpointA: 1, CheckpointB: 2, Log: log, LogKey: m.Anchors.LogKey}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Consistency.Status != "consistent" {
		t.Fatalf("checkpoints 1 and 2: %+v", res.Consistency)
	}
	added := 0
	for _, c := range res.Report.Tables {
		added += c.Added
		if c.Removed+c.Changed+c.Tombstoned > 0 {
			t.Fatalf("checkpoints 1 -> 2 of one snapshot removed or changed rows: %+v", res.Report.Tables)
		}
	}
	if uint64(added) != res.Consistency.B.Size-res.Consistency.A.Size {
		t.Fatalf("%d rows added between tree sizes %d and %d", added, res.Consistency.A.Size, res.Consistency.B.Size)
	}
}
