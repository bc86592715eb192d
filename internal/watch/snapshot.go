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
	"github.com/memscope/memscope/replay"
	"github.com/memscope/memscope/verify"
)

// snapshotOutcome is what a round's snapshot check found.
type snapshotOutcome struct {
	// findings are the error-severity findings and the flips.
	findings []finding.Finding
	// diverged is the new set of diverging queries, for the state.
	diverged []string
	// marks are the per-table seq marks the next round starts from.
	marks verify.Marks
	// note says what the check read, for the advance event.
	note string
	// rowsRead counts the snapshot rows the check read (whole-store
	// rounds count 0: they copy the file).
	rowsRead int64
	// checked and context count the rows the incremental check checked
	// and read only as context (verify.NewCheck).
	checked, context int
	// replayed counts the stored queries replayed.
	replayed int
	// replayRows counts the rows read to build the replay graph of an
	// incremental round (structural tables, registry, cited entries).
	replayRows int64
}

// snapshotRound checks the store's snapshot in a round that saw new
// leaves by the whole-store path: it copies one consistent state of the
// live snapshot (loader.CopyLive), holds back the rows the round's
// checkpoint (of size) does not cover yet (holdBack), verifies it against
// the log and replays every stored query on G and G_auth, exactly as
// memscope verify and memscope replay do. A monitor's first round with a
// snapshot takes it (it has no marks yet), and a round whose store the
// incremental check cannot read by index (incrementalRound says why).
// This is whole-store work; docs/WATCH.md says so.
func snapshotRound(ctx context.Context, t Target, st *State, size uint64) (snapshotOutcome, error) {
	var o snapshotOutcome
	c, err := liveCopy(ctx, t, size)
	if err != nil {
		return o, err
	}
	defer c.close()
	o.findings, o.marks = c.heldBack, c.marks
	s := c.session
	rep, err := s.Verify(ctx, nil)
	if err != nil {
		return o, err
	}
	for _, f := range rep.Findings {
		if f.Severity == finding.SevError {
			f.Message = strings.ReplaceAll(f.Message, c.path, t.Snapshot)
			o.findings = append(o.findings, f)
		}
	}
	rp, err := s.Replayer(ctx)
	if err != nil {
		return o, err
	}
	qs := s.ReplayQueries()
	flips, diverged, err := replayQueries(ctx, rp, qs, previouslyDiverged(st))
	if err != nil {
		return o, err
	}
	o.findings = append(o.findings, flips...)
	o.diverged, o.replayed = diverged, len(qs)
	return o, nil
}

// previouslyDiverged is the state's set of diverging queries.
func previouslyDiverged(st *State) []string {
	if st.Snapshot == nil {
		return nil
	}
	return st.Snapshot.Diverged
}

// replayQueries replays qs on G and G_auth and returns a
// WATCH_SELECTION_FLIPPED finding, naming the culprit writes, for each
// query that diverges now and is not in before; diverged is before with
// the replayed queries' answers put in, sorted.
func replayQueries(ctx context.Context, rp *replay.Replayer, qs []replay.Query, before []string) (out []finding.Finding, diverged []string, err error) {
	rows, err := rp.ReplayAll(ctx, qs, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, nil, err
	}
	replayed := map[string]bool{}
	for _, q := range qs {
		replayed[q.ID] = true
	}
	for _, id := range before {
		if !replayed[id] {
			diverged = append(diverged, id)
		}
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
	return out, slices.Compact(diverged), nil
}

// storeCopy is a round's private copy of the live snapshot, rows past
// the checkpoint held back, opened as a session.
type storeCopy struct {
	dir, path string
	session   *assemble.Session
	heldBack  []finding.Finding
	marks     verify.Marks
}

func (c *storeCopy) close() {
	if c.session != nil {
		c.session.Close()
	}
	os.RemoveAll(c.dir)
}

// liveCopy copies one consistent state of the live snapshot, holds back
// the rows the checkpoint of size does not cover, reads the marks the
// next round starts from, and opens the copy.
func liveCopy(ctx context.Context, t Target, size uint64) (*storeCopy, error) {
	dir, err := os.MkdirTemp("", "memscope-watch-")
	if err != nil {
		return nil, err
	}
	c := &storeCopy{dir: dir, path: filepath.Join(dir, "snapshot.db")}
	if err := loader.CopyLive(ctx, t.Snapshot, c.path); err != nil {
		c.close()
		return nil, err
	}
	if c.heldBack, c.marks, err = holdBack(ctx, c.path, size); err != nil {
		c.close()
		return nil, err
	}
	c.session, err = assemble.Open(ctx, assemble.Options{Snapshot: c.path, Log: t.Log, LogKey: t.LogKey, TrustRoots: t.TrustRoots, LogOptions: t.LogOptions, Title: t.Snapshot})
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
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
//
// It also returns the marks the next round starts from: per table of
// markTables, the largest seq left in the copy, but before the first row
// held back, so the round whose checkpoint covers that row reads it.
func holdBack(ctx context.Context, copyPath string, size uint64) ([]finding.Finding, verify.Marks, error) {
	db, err := sql.Open("sqlite", "file:"+copyPath+"?mode=rw")
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	tables, err := leafTables(ctx, db)
	if err != nil {
		return nil, nil, fmt.Errorf("held-back rows: %w", err)
	}
	var out []finding.Finding
	extra := 0
	firstHeld := map[string]int64{}
	for _, tb := range tables {
		var first sql.NullInt64
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT min(seq) FROM %q WHERE leaf_index >= ?", tb), int64(min(size, math.MaxInt64))).Scan(&first); err == nil && first.Valid {
			firstHeld[tb] = first.Int64
		}
		q := fmt.Sprintf("SELECT leaf_index FROM %q WHERE leaf_index >= ? ORDER BY leaf_index LIMIT %d", tb, maxHeldBack+1)
		rows, err := db.QueryContext(ctx, q, int64(min(size, math.MaxInt64)))
		if err != nil {
			return nil, nil, fmt.Errorf("held-back rows of %s: %w", tb, err)
		}
		for rows.Next() {
			var leaf int64
			if err := rows.Scan(&leaf); err != nil {
				rows.Close()
				return nil, nil, fmt.Errorf("held-back rows of %s: %w", tb, err)
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
			return nil, nil, fmt.Errorf("held-back rows of %s: %w", tb, err)
		}
		if n, _ := res.RowsAffected(); n > maxHeldBack+1 {
			extra += int(n) - maxHeldBack - 1
		}
	}
	if extra > 0 {
		out = append(out, finding.New(finding.RecordNotInLog, "held-back rows",
			fmt.Sprintf("%d more rows claim leaves the verified checkpoint does not cover yet", extra)))
	}
	marks, err := copyMarks(ctx, db, firstHeld)
	return out, marks, err
}

// markTables are the tables whose new rows a round reads past its mark:
// verify's record tables and the stored queries.
var markTables = append(slices.Clone(verify.MarkTables), "queries")

// copyMarks reads the marks of a copy whose held-back rows are gone.
func copyMarks(ctx context.Context, db *sql.DB, firstHeld map[string]int64) (verify.Marks, error) {
	marks := verify.Marks{}
	for _, tb := range markTables {
		var hi sql.NullInt64
		if err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT max(seq) FROM %q", tb)).Scan(&hi); err != nil {
			if strings.Contains(err.Error(), "no such table") {
				continue // absent: every row is new next round
			}
			return nil, fmt.Errorf("marks of %s: %w", tb, err)
		}
		m := int64(math.MinInt64)
		if hi.Valid {
			m = hi.Int64
		}
		if f, ok := firstHeld[tb]; ok {
			m = min(m, f-1)
		}
		marks[tb] = m
	}
	return marks, nil
}

// leafTables lists the copy's tables that have a leaf_index column, but
// those holdBack never thins, as a live handle shows them whole
// (loader.LiveWhole: the registry and the meta values).
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
		if slices.Contains(loader.LiveWhole, n) {
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
