package watch

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/memscope/memscope/diff"
	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/loader"
)

// snapshotRound checks the store's snapshot in a round that saw new
// leaves: it copies one consistent state of the live snapshot (loader.
// CopyLive), holds back the rows the round's checkpoint (of size) does not
// cover yet (holdBack), verifies it against the log and replays its stored queries on
// G and G_auth, exactly as memscope verify and memscope replay do. It
// returns the error-severity verification findings and, for each query
// whose selection diverges now but did not at the last round, a
// WATCH_SELECTION_FLIPPED finding naming the culprit writes. diverged is
// the new set of diverging queries, for the state.
//
// This is whole-store work (verification and replay read every record),
// unlike the log part of a round; docs/WATCH.md says so.
func snapshotRound(ctx context.Context, t Target, st *State, size uint64) (out []finding.Finding, diverged []string, err error) {
	dir, err := os.MkdirTemp("", "memscope-watch-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "snapshot.db")
	if err := loader.CopyLive(ctx, t.Snapshot, copyPath); err != nil {
		return nil, nil, err
	}
	ahead, err := holdBack(ctx, copyPath, size)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, ahead...)
	s, err := assemble.Open(ctx, assemble.Options{Snapshot: copyPath, Log: t.Log, LogKey: t.LogKey, TrustRoots: t.TrustRoots, LogOptions: t.LogOptions, Title: t.Snapshot})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range rep.Findings {
		if f.Severity == finding.SevError {
			f.Message = strings.ReplaceAll(f.Message, copyPath, t.Snapshot)
			out = append(out, f)
		}
	}
	rp, err := s.Replayer(ctx)
	if err != nil {
		return nil, nil, err
	}
	rows, err := rp.ReplayAll(ctx, s.ReplayQueries(), runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, nil, err
	}
	var before []string
	if st.Snapshot != nil {
		before = st.Snapshot.Diverged
	}
	for _, r := range rows {
		if r.Err != nil || r.Class != diff.Diverge {
			continue
		}
		diverged = append(diverged, r.QueryID)
		if slices.Contains(before, r.QueryID) {
			continue
		}
		msg := fmt.Sprintf("query %s's top-%d now differs between G and G_auth: unauthenticated structure changes what the agent selects", r.QueryID, r.K)
		if r.Culprits != nil && len(r.Culprits.Set) > 0 {
			ids := make([]string, len(r.Culprits.Set))
			for i, c := range r.Culprits.Set {
				ids[i] = c.EdgeID
			}
			msg += "; the unauthenticated write(s) that flip it: " + strings.Join(ids, ", ")
		}
		out = append(out, finding.New(finding.WatchSelectionFlipped, "query "+r.QueryID, msg))
	}
	slices.Sort(diverged)
	return out, diverged, nil
}

// maxHeldBack bounds the rows one round names as held back; past it one
// finding counts the rest.
const maxHeldBack = 1000

// holdBack deletes from the round's private copy every row that claims a
// leaf at or beyond size, the tree size of the checkpoint the round
// verified. A recorder acknowledging on the sequenced snapshot commit
// (memscope record --ack sequenced) commits rows before the log publishes
// a checkpoint covering them; verified and replayed as they stand, such
// rows read as not in the log, and authentic writes as unauthenticated,
// which would flip selections falsely. Held back, they are checked in the
// round whose checkpoint covers them. Each is named with a transient
// RECORD_NOT_IN_LOG finding, which a round reports only when the next one
// still sees it: a row that claims a leaf the log never reaches is
// reported, a row the log was about to cover is not. The evidence is
// untouched: only the copy changes.
func holdBack(ctx context.Context, copyPath string, size uint64) ([]finding.Finding, error) {
	db, err := sql.Open("sqlite", "file:"+copyPath+"?mode=rw")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tables, err := leafTables(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("held-back rows: %w", err)
	}
	var out []finding.Finding
	extra := 0
	for _, tb := range tables {
		q := fmt.Sprintf("SELECT leaf_index FROM %q WHERE leaf_index >= ? ORDER BY leaf_index LIMIT %d", tb, maxHeldBack+1)
		rows, err := db.QueryContext(ctx, q, int64(min(size, math.MaxInt64)))
		if err != nil {
			return nil, fmt.Errorf("held-back rows of %s: %w", tb, err)
		}
		for rows.Next() {
			var leaf int64
			if err := rows.Scan(&leaf); err != nil {
				rows.Close()
				return nil, fmt.Errorf("held-back rows of %s: %w", tb, err)
			}
			if len(out) == maxHeldBack {
				extra++
				continue
			}
			out = append(out, finding.New(finding.RecordNotInLog, fmt.Sprintf("%s row at leaf %d", tb, leaf),
				fmt.Sprintf("a row of %s claims leaf %d, which the verified checkpoint does not cover yet: the round checks the store without it", tb, leaf)))
		}
		rows.Close()
		res, err := db.ExecContext(ctx, fmt.Sprintf("DELETE FROM %q WHERE leaf_index >= ?", tb), int64(min(size, math.MaxInt64)))
		if err != nil {
			return nil, fmt.Errorf("held-back rows of %s: %w", tb, err)
		}
		if n, _ := res.RowsAffected(); n > maxHeldBack+1 {
			extra += int(n) - maxHeldBack - 1
		}
	}
	if extra > 0 {
		out = append(out, finding.New(finding.RecordNotInLog, "held-back rows",
			fmt.Sprintf("%d more rows claim leaves the verified checkpoint does not cover yet", extra)))
	}
	return out, nil
}

// keptWhole are the tables holdBack never thins: the registry, and the
// meta values a writer signs when it closes (at the end of the log),
// without which the copy does not open. A row of theirs the checkpoint
// does not cover only loses its verification (transient
// RECORD_NOT_IN_LOG), not the graph's shape.
var keptWhole = map[string]bool{"meta": true, "principals": true}

// leafTables lists the copy's tables that have a leaf_index column, but
// those kept whole.
func leafTables(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	var out []string
	for _, n := range names {
		if keptWhole[n] {
			continue
		}
		var has int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info(?) WHERE name = 'leaf_index'", n).Scan(&has); err != nil {
			return nil, err
		}
		if has > 0 {
			out = append(out, n)
		}
	}
	return out, nil
}
