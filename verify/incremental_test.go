package verify_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
	"github.com/memscope/memscope/verify"
)

// newCodes are the codes CheckNew decides for a record as Run does.
// Left out, as CheckNew's comment says: DUPLICATE_ID, the writers' clock
// and checkpoint-time checks, TOMBSTONE_UNKNOWN_TARGET, row order, event
// rows; and RECORD_NOT_IN_LOG, whose message differs (CheckNew read only
// the new leaves), is compared by code and subject.
var newCodes = []finding.Code{finding.SigInvalid, finding.WriterUnregistered, finding.KeyOutsideValidity, finding.SignedBeforeRevoked,
	finding.InclusionFailed, finding.RecordNotInLog, finding.ParentMissing, finding.ParentAfterChild, finding.ColumnMismatch,
	finding.RecordMalformed, finding.RecordNotCanonical, finding.RowMalformed, finding.TombstoneNoAuthority, finding.TombstoneNotInLog,
	finding.TombstoneLeafMismatch, finding.TombstonedLive, finding.SourceMissing, finding.TimeInFuture, finding.WeightOutOfRange,
	finding.RegistrySigInvalid, finding.KeyMalformed}

// TestCheckNewAgreesWithRun: on every scenario, tampered ones included,
// CheckNew over the leaves after a point (the whole log, then its second
// half) reports for the records it checks exactly the error findings
// memscope verify reports for them. The tampered scenario holds one case
// of each failure (a bad signature, a revoked key's record, a row that
// does not match its leaf, an entry whose parent is gone), so the test
// fails if CheckNew misses one.
func TestCheckNewAgreesWithRun(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"tampered", "clean", "tombstone", "structural-write", "incident", "channel-promotion", "agentpoison"} {
		t.Run(name, func(t *testing.T) {
			src, m := scenariocache.Scenario(t, 1, name)
			dir := evidencetest.CopyTree(t, src)
			snap, logDir := filepath.Join(dir, m.Snapshot), filepath.Join(dir, m.Log)
			// CheckNew takes leaves the round proved: the tampered log's
			// flipped hash (TILE_MISMATCH, a log finding) is mended.
			evidencetest.MendLevel0Tile(t, logDir)
			opts := verify.Options{Snapshot: snap, Log: logDir, LogKey: m.Anchors.LogKey, TrustRoots: evidencetest.Roots(t, m)}
			full, err := verify.Run(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			r, err := tlog.Open(ctx, logDir)
			if err != nil {
				t.Fatal(err)
			}
			cp, err := r.PublishedCheckpoint()
			if err != nil {
				t.Fatal(err)
			}
			for _, from := range []uint64{0, cp.Size / 2} {
				got, want := checkNewAndRun(t, ctx, m, dir, opts, full, from, cp)
				if !slices.Equal(got, want) {
					t.Errorf("from leaf %d: CheckNew found\n  %s\nverify found for the same records\n  %s", from, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
				if name == "tampered" && from == 0 {
					for _, c := range []finding.Code{finding.SigInvalid, finding.KeyOutsideValidity, finding.InclusionFailed, finding.ParentMissing} {
						if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, string(c)+" ") }) {
							t.Errorf("the tampered store gave no %s: the test shows nothing for it", c)
						}
					}
				}
			}
		})
	}
}

// checkNewAndRun runs CheckNew over the leaves [from, size) with the
// marks a monitor would hold after a round at from (per table, the last
// row whose claimed leaf is before from), and returns its error findings
// and Run's on the records CheckNew checked, as "CODE subject" lines.
func checkNewAndRun(t *testing.T, ctx context.Context, m *evidence.Manifest, dir string, opts verify.Options, full *verify.Report, from uint64, cp tlog.Checkpoint) (got, want []string) {
	t.Helper()
	snap, logDir := filepath.Join(dir, m.Snapshot), filepath.Join(dir, m.Log)
	r, err := tlog.Open(ctx, logDir)
	if err != nil {
		t.Fatal(err)
	}
	nl := verify.NewLeaves{From: from, Size: cp.Size, Root: cp.Root}
	for leaf, err := range r.Leaves(ctx, from, cp.Size) {
		if err != nil {
			t.Fatal(err)
		}
		nl.Leaves = append(nl.Leaves, leaf.Data)
	}
	db, err := sql.Open("sqlite", "file:"+snap+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	marks := verify.Marks{}
	if from > 0 {
		for _, tb := range verify.MarkTables {
			var mk sql.NullInt64
			if err := db.QueryRow(fmt.Sprintf("SELECT max(seq) FROM %s WHERE leaf_index < ?", tb), from).Scan(&mk); err != nil {
				t.Fatal(err)
			}
			marks[tb] = mk.Int64
		}
	}
	live, err := loader.OpenLive(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	o := opts
	o.Snap = live
	nc, err := verify.CheckNew(ctx, o, nl, marks)
	if err != nil {
		t.Fatal(err)
	}
	checked := checkedSubjects(t, db, marks, from, nl)
	line := func(f finding.Finding) string { return string(f.Code) + " " + f.Subject }
	for _, f := range nc.Report.Findings {
		if f.Severity == finding.SevError && slices.Contains(newCodes, f.Code) {
			got = append(got, line(f))
		}
	}
	for _, f := range full.Findings {
		if f.Severity == finding.SevError && slices.Contains(newCodes, f.Code) && checked[f.Subject] {
			want = append(want, line(f))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	return got, want
}

// checkedSubjects are the subjects of the rows CheckNew checks, found
// independently by SQL: every registry event, and the entry, write and
// tombstone rows past the marks or whose id a new leaf carries.
func checkedSubjects(t *testing.T, db *sql.DB, marks verify.Marks, from uint64, nl verify.NewLeaves) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for _, l := range nl.Leaves {
		if pl, err := record.ParseLeaf(l); err == nil {
			ids[pl.ID.String()] = true
		}
	}
	out := map[string]bool{}
	for _, q := range []struct{ table, col, prefix string }{{"entries", "eid", "entry "}, {"writes", "wid", "write "}, {"tombstones", "target", "tombstone "}, {"principals", "rid", "principal "}} {
		mk, ok := marks[q.table]
		rows, err := db.Query(fmt.Sprintf("SELECT seq, %s FROM %s", q.col, q.table))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var seq int64
			var id string
			if err := rows.Scan(&seq, &id); err != nil {
				t.Fatal(err)
			}
			if !ok || seq > mk || ids[id] || q.table == "principals" {
				out[q.prefix+id] = true
			}
		}
		rows.Close()
	}
	return out
}
