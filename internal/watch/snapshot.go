package watch

import (
	"context"
	"fmt"
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
// CopyLive), verifies it against the log and replays its stored queries on
// G and G_auth, exactly as memscope verify and memscope replay do. It
// returns the error-severity verification findings and, for each query
// whose selection diverges now but did not at the last round, a
// WATCH_SELECTION_FLIPPED finding naming the culprit writes. diverged is
// the new set of diverging queries, for the state.
//
// This is whole-store work (verification and replay read every record),
// unlike the log part of a round; docs/WATCH.md says so.
func snapshotRound(ctx context.Context, t Target, st *State) (out []finding.Finding, diverged []string, err error) {
	dir, err := os.MkdirTemp("", "memscope-watch-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "snapshot.db")
	if err := loader.CopyLive(ctx, t.Snapshot, copyPath); err != nil {
		return nil, nil, err
	}
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
